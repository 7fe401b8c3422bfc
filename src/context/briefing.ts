/**
 * The session briefing: what an agent needs to pick up where the last one stopped — open
 * objectives, where it stands, what the last milestone did, the next step, the work in flight,
 * what failed and why — under 1,000 tokens whatever the history (every list capped, every
 * item clipped, and what a full briefing cuts is its end: the oldest failed approaches, the
 * other branches), and the same bytes from one turn to the next while memory is unchanged (no
 * clock, no counters that move by themselves), so a host's prompt cache keeps it.
 *
 * The framing as project data is added once, by whoever hands it to a model (observer/framing.ts).
 */
import { currentBranch, displayLabel, drift, driftText, type MemoryState } from '../decider/state.js';
import { type FileChange, MAIN } from '../events/types.js';
import { filesFitted } from '../log/prose.js';
import { clip, fitText } from './budget.js';
import { type StaleCheck, staleNote } from './stale.js';
import {
  constraintLines,
  disputedLines,
  dropText,
  lastPromptLine,
  failedLines,
  failureLines,
  fromParent,
  milestoneText,
  newestDrop,
  notesLine,
  pendingLine,
  purposeOf,
  ruledOutLines,
  uncommittedLine,
} from './lines.js';

export const BRIEFING_BUDGET = 900;
const TOOLS =
  'Memory tools: commit after each milestone (what and why, and the next step); branch to try an alternative; ' +
  'merge with a synthesis, or abandon with a reason.';
const FAILED_SHOWN = 4;

/** `uncommitted`: what git sees changed in the work tree since the last commit, shown when no hook logged the work. */
export function briefing(
  state: MemoryState,
  session?: string,
  budget = BRIEFING_BUDGET,
  uncommitted?: readonly FileChange[] | null,
  stale?: StaleCheck,
): string {
  const here = currentBranch(state, session);
  const b = state.branches[here]!;
  const lines: string[] = [`Memory branch: ${here}${fromParent(here, b)} — ${purposeOf(b)}`];
  const moved = drift(state, session);
  if (moved) lines.push(driftText(state, moved, false));
  const open = state.objectives.map((o, i) => ({ ...o, n: i + 1 })).filter((o) => !o.done);
  if (state.objectives.length) {
    lines.push(`Open objectives (${open.length} of ${state.objectives.length}):`);
    for (const o of open.slice(0, 6)) lines.push(`  ${o.n}. ${clip(o.text, 140)}`);
    if (open.length > 6) lines.push(`  … ${open.length - 6} more (context full)`);
  } else {
    lines.push('Objectives: none recorded yet.');
  }
  lines.push(...constraintLines(state, 5));
  // The newest milestone first: an abandon recorded here is one, though not progress; the
  // last progress follows it, with its files and next step.
  const last = b.last;
  const drop = newestDrop(b);
  const whole = (label: string) => `context commit ${label}`;
  if (drop) {
    const label = displayLabel(b, drop.label, drop.id);
    const said = dropText(state, drop, FAILED_SHOWN, 300, whole(label));
    lines.push(`Last milestone on ${here}: ${label} ${drop.at.slice(0, 10)} — ${said}`);
  }
  if (last) {
    const label = displayLabel(b, last.label, last.id);
    const lead = drop ? 'Last progress before it' : `Last milestone on ${here}`;
    lines.push(`${lead}: ${label} ${last.at.slice(0, 10)} — ${milestoneText(last, 420, whole(label))}`);
    if (last.files.length)
      lines.push(`  Files: ${filesFitted(last.files, 200, last.fileCount ?? last.files.length, `(${whole(label)})`)}`);
    const note = staleNote(stale, last.files);
    if (note) lines.push(`  ${note}`);
  } else if (!drop) {
    lines.push(`No commits on ${here} yet.`);
  }
  const next = last?.next;
  if (next) lines.push(`Next step (as recorded): ${clip(next, 240)}`);
  const asked = lastPromptLine(state, 300);
  if (asked) lines.push(asked);
  // The work in flight before the failed approaches, and bounded: when the whole will not fit,
  // what is cut is the end, and the end should be the oldest approach, not what is under way.
  const pending = pendingLine(b, 8, '(context log)', 600) ?? uncommittedLine(uncommitted, 8, 600);
  if (pending) lines.push(pending);
  lines.push(...failureLines(b, 3, '(context log)'));
  const disputed = disputedLines(state, 2);
  if (disputed.length) lines.push('Merged on one clone, abandoned on another:', ...disputed);
  // Abandoned branches, then what commits and merges ruled out on the way: both are not to be tried again.
  const failed = [
    ...failedLines(state, FAILED_SHOWN),
    ...ruledOutLines(state, FAILED_SHOWN, (branch) => `context branch ${branch}`),
  ];
  if (failed.length) lines.push('Failed approaches — do not retry without a new reason:', ...failed);
  const others = Object.values(state.branches)
    .filter((x) => x.life === 'active' && x.name !== here && x.name !== MAIN)
    .sort((x, y) => (x.created < y.created ? 1 : x.created > y.created ? -1 : 0));
  if (others.length)
    lines.push(
      `Other open branches: ${others
        .slice(0, 4)
        .map((o) => `${o.name} (${clip(o.purpose, 60)})`)
        .join('; ')}${others.length > 4 ? `; +${others.length - 4} more (context status)` : ''}`,
    );
  const notes = notesLine(state, 'context full');
  if (notes) lines.push(notes);
  lines.push(`${TOOLS} ${followUps(state, b)}`);
  return fitText(lines.join('\n'), budget, 'ask context for more').text;
}

/**
 * The one or two calls that recover what this briefing left out, named: the log, where the failing
 * calls and the steps since the last commit are whole; the branch a dead end was ruled out on. The
 * default `context` answer adds what the briefing leaves out, never restating it.
 */
function followUps(state: MemoryState, b: MemoryState['branches'][string]): string {
  const calls: string[] = [];
  const failures = b.pending.failures;
  if (failures.length > 1 || failures.some((f) => f.result.length > 360) || b.pending.turns > 0)
    calls.push('`context log` (every step since the last commit, failures whole)');
  const dead = state.failedApproaches.at(-1)?.branch;
  if (dead && dead !== b.name && state.branches[dead])
    calls.push(`\`context branch ${dead}\` (how its dead ends were ruled out)`);
  if (!calls.length) return 'For more: `context` (what this leaves out).';
  return `For more: ${calls.slice(0, 2).join('; ')}.`;
}
