/** How operations turn the engine's results into answers: one way for every front end. */
import type { ContextQuery } from '../context/query.js';
import type { Command } from '../decider/commands.js';
import type { Answer, RunContext } from './operation.js';

export async function write(ctx: RunContext, cmd: Command): Promise<Answer> {
  const r = await ctx.memory.execute(cmd, { session: ctx.session });
  // A commit that checks objectives off says which, as `roadmap check` does.
  const objectives = ctx.memory.state.objectives;
  const checked =
    cmd.type === 'commit'
      ? r.events
          .flatMap((e) => (e.type === 'objective.checked' ? [objectives.findIndex((o) => o.id === e.data.id)] : []))
          .filter((i) => i >= 0)
      : [];
  const message = [r.message, ...checked.map((i) => `Objective ${i + 1} done: ${objectives[i]!.text}`)].join('\n');
  return {
    text: message,
    data: {
      ok: true,
      branch: r.branch,
      message,
      events: r.events.map((e) => ({ id: e.id, type: e.type, branch: e.branch })),
    },
  };
}

/** `at`: a git ref whose committed memory answers instead (engine/at-ref.ts). */
export async function read(ctx: RunContext, q: ContextQuery, budget?: number, at?: string): Promise<Answer> {
  if (q.level === 'search' && at === undefined) await ctx.memory.loadSearch();
  const a = ctx.memory.context(q, { session: ctx.session, budget: budget ?? ctx.budget, spell: ctx.spell, at });
  return {
    text: a.text,
    data: { ok: true, level: q.level, truncated: a.truncated, tokens: a.tokens, next: a.next, data: a.data },
  };
}

/** A command as a library caller sends it: `memory.execute({"type":"switch","name":"main"})`. */
export const execute = (cmd: Record<string, unknown>): string => `memory.execute(${JSON.stringify(cmd)})`;
