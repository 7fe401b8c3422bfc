/**
 * Reading the effects `transition()` returns. Emits come back typed by their setup names,
 * but at run time every `emit` action is the built-in `xstate.emit` carrying the event in
 * `params.event` (see reference/xstate.md §1.4), so we match on that.
 */
export interface ExecutableEffect {
  type: string;
  params?: unknown;
}

export function emittedBy<E>(actions: readonly ExecutableEffect[]): E[] {
  const out: E[] = [];
  for (const a of actions) {
    if (a.type === 'xstate.emit') out.push((a.params as { event: E }).event);
  }
  return out;
}
