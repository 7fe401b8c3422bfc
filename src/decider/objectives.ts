/** Finding objectives by number or text, and keeping their text to one clean line. */
import { gccError } from '../errors.js';
import type { Objective } from './state.js';

/** One line, whitespace folded, control characters (C0, DEL, C1) dropped: objectives live on one line of main.md. */
export function normalizeLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\s]+/g, ' ').trim();
}

/**
 * The index of the open objective that says `text`, case and whitespace aside, or -1. Compared
 * as stored: a lone surrogate reads back from the log as U+FFFD.
 */
export function sameObjective(objectives: readonly Objective[], text: string): number {
  const key = (t: string) => normalizeLine(t).toWellFormed().toLowerCase();
  const want = key(text);
  return objectives.findIndex((o) => !o.done && key(o.text) === want);
}

/** By 1-based number as shown in main.md, by exact text, or by a unique case-insensitive part of it; else a throw. */
export function findObjective(objectives: readonly Objective[], target: string): Objective {
  const t = normalizeLine(String(target));
  if (/^#?\d+$/.test(t)) {
    const o = objectives[Number(t.replace('#', '')) - 1];
    if (o) return o;
  }
  const exact = objectives.find((o) => o.text === t);
  if (exact) return exact;
  const lower = t.toLowerCase();
  const partial = objectives.filter((o) => o.text.toLowerCase().includes(lower));
  if (partial.length === 1 && lower !== '') return partial[0]!;
  const hint = objectives.length
    ? `objectives are numbered 1 to ${objectives.length} in main.md`
    : 'there are no objectives yet: `gctx roadmap add "<text>"`';
  throw gccError(
    'E_OBJECTIVE_NOT_FOUND',
    partial.length > 1
      ? `${JSON.stringify(t)} matches ${partial.length} objectives`
      : `no objective matches ${JSON.stringify(t)}`,
    hint,
  );
}
