/**
 * CONTEXT's status level: where memory stands for the session — the branch, the open
 * objectives, the newest commit and the last progress, the work in flight and what is failing,
 * the recent commits before, the open branches, the failed approaches.
 */
import {
  currentBranch,
  displayLabel,
  drift,
  driftText,
  GIST_KEPT,
  type BranchInfo,
  RECENT_COMMITS,
} from '../decider/state.js';
import { MAIN } from '../events/types.js';
import { clip, estimateTokens, fitText } from './budget.js';
import {
  clipTo,
  constraintLines,
  count,
  disputedLines,
  entryLine,
  lastPromptLine,
  dropText,
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
import type { ContextAnswer, ContextOptions, ContextQuery, ContextSource } from './levels.js';
import { staleNote } from './stale.js';

/**
 * Commits before the last one that status shows: with the last, the same window of recent
 * commits the state keeps per branch (RECENT_COMMITS). On one branch, that is where the approaches
 * dropped along the way are written down (docs/benchmarks.md, the resume benchmark).
 */
const EARLIER_COMMITS = RECENT_COMMITS - 1;

export const defaultSpell = (q: ContextQuery): string => `context ${JSON.stringify(q)}`;
export const when = (at: string): string => at.slice(0, 16).replace('T', ' ');

export function statusView(src: ContextSource, o: ContextOptions, budget: number): ContextAnswer {
  const s = src.state;
  const here = currentBranch(s, o.session);
  const b = s.branches[here]!;
  const spell = o.spell ?? defaultSpell;
  const lines: string[] = [`On memory branch ${here}${fromParent(here, b)}: ${purposeOf(b)}`];
  const moved = drift(s, o.session);
  if (moved) lines.push(driftText(s, moved, false));
  const open = s.objectives.map((x, i) => ({ ...x, n: i + 1 })).filter((x) => !x.done);
  lines.push(`Objectives: ${open.length} open, ${s.objectives.length - open.length} done${open.length ? '' : '.'}`);
  for (const x of open.slice(0, 10)) lines.push(`  ${x.n}. ${clip(x.text, 160)}`);
  if (open.length > 10) lines.push(`  … ${open.length - 10} more in \`${spell({ level: 'full' })}\``);
  lines.push(...constraintLines(s, 8));
  // The newest commit first, as the branch view has it: an abandon recorded here is one (not
  // progress: the last progress follows it). A label two clones both used carries the hash: said once.
  const named = (c: { label: string; id: string }) => {
    const shown = displayLabel(b, c.label, c.id);
    return {
      shown,
      head: `${shown}${shown === c.label ? ` ${c.id}` : ''}`,
      whole: `\`${spell({ level: 'commit', id: shown })}\``,
    };
  };
  const drop = newestDrop(b);
  if (drop) {
    const n = named(drop);
    lines.push(`Last commit ${n.head} (${when(drop.at)}): ${dropText(s, drop, 5, 300, n.whole)}`);
  }
  if (b.last) {
    const n = named(b.last);
    const lead = `${drop ? 'Last progress' : 'Last commit'} ${n.head} (${when(b.last.at)})`;
    lines.push(`${lead}: ${milestoneText(b.last, 300, n.whole)}`);
    if (b.last.next) lines.push(`  Next: ${clip(b.last.next, 200)}`);
    const stale = staleNote(src.stale, b.last.files);
    if (stale) lines.push(`  ${stale}`);
  }
  const asked = lastPromptLine(s, 400);
  if (asked) lines.push(asked);
  const logWhere = `in \`${spell({ level: 'log', branch: here })}\``;
  const pending = pendingLine(b, 10, logWhere) ?? uncommittedLine(src.uncommitted?.(here), 10);
  if (pending) lines.push(pending);
  lines.push(...failureLines(b, 5, logWhere));
  const earlier = earlierCommits(src, here, EARLIER_COMMITS, spell);
  if (earlier.length) lines.push('Earlier commits, newest first:', ...earlier);
  const active = Object.values(s.branches)
    .filter((x) => x.life === 'active' && x.name !== MAIN)
    .sort((x, y) => (x.created < y.created ? 1 : -1));
  const merged = Object.values(s.branches).filter((x) => x.life === 'merged');
  const abandoned = Object.values(s.branches).filter((x) => x.life === 'abandoned').length;
  const closed = `${merged.length ? `, ${merged.length} merged` : ''}${abandoned ? `, ${abandoned} abandoned` : ''}`;
  lines.push(`Branches: ${active.length} open${closed}${active.length ? ':' : '.'}`);
  for (const x of active.slice(0, 8))
    lines.push(`  ${x.name === here ? '*' : ' '} ${x.name} (${count(x.commits, 'commit')}): ${clip(x.purpose, 120)}`);
  if (active.length > 8)
    lines.push(`  … ${active.length - 8} more in \`${spell({ level: 'metadata', segment: 'branches' })}\``);
  // Commits made on a branch where its merge was not seen yet are in no synthesis: said until read elsewhere.
  const left = merged
    .filter((x) => x.late?.length)
    .slice(0, 3)
    .map((x) => `${x.name}: ${x.late!.map((c) => displayLabel(x, c.label, c.id)).join(', ')}`);
  const late = '(`gctx context --commit <branch>@<label>`)';
  if (left.length) lines.push(`  ${merged.length} merged; commits made after their merge ${late}: ${left.join('; ')}.`);
  const spellFull = spell({ level: 'full' });
  const disputed = disputedLines(s, 5, (name) => `\`${spell({ level: 'branch', name })}\``);
  if (disputed.length) lines.push('Merged on one clone, abandoned on another:', ...disputed);
  const wholeBranch = (name: string) => `\`${spell({ level: 'branch', name })}\``;
  const failed = [...failedLines(s, 5, `in \`${spellFull}\``, wholeBranch), ...ruledOutLines(s, 5, wholeBranch)];
  if (failed.length) lines.push('Failed approaches (do not retry without a new reason), newest first:', ...failed);
  const notes = notesLine(s, `\`${spellFull}\``);
  if (notes) lines.push(notes);
  const parts = `\`${spellFull}\`, \`${spell({ level: 'branch', name: here })}\``;
  const fit = fitText(lines.join('\n'), budget, `raise the budget, or ask for one part: ${parts}`);
  return {
    text: fit.text,
    truncated: fit.truncated,
    tokens: estimateTokens(fit.text),
    next: null,
    data: {
      branch: here,
      objectives: s.objectives,
      branches: Object.values(s.branches).map((x) => ({
        name: x.name,
        status: x.life,
        parent: x.parent,
        commits: x.commits,
        purpose: x.purpose,
      })),
      failed: [...s.failed].reverse(),
      ruledOut: [...s.failedApproaches].reverse(),
      constraints: [...s.constraints].reverse(),
      pending: pendingFiles(b),
    },
  };
}

/** Log entries the default CONTEXT answer shows: the steps behind the briefing's summary of the work in flight. */
const BEYOND_LOG = 8;

/**
 * The default CONTEXT answer, asked after the briefing: what the briefing left out and nothing it
 * said — the branch's newest log entries (calls and their results), the commits before the last,
 * the open branches with their commit counts — then where the rest is.
 */
export function beyondBriefing(src: ContextSource, o: ContextOptions, budget: number): ContextAnswer {
  const s = src.state;
  const here = currentBranch(s, o.session);
  const spell = o.spell ?? defaultSpell;
  const lines: string[] = [`Beyond the briefing, on memory branch ${here}:`];
  // The work in flight moves turn by turn: said as it stands now, the one line the briefing may have said earlier.
  const b = s.branches[here]!;
  const pending =
    pendingLine(b, 10, `in \`${spell({ level: 'log', branch: here })}\``) ??
    uncommittedLine(src.uncommitted?.(here), 10);
  if (pending) lines.push(pending);
  const skip = new Set(['session.started', 'session.compacted', 'session.ended', 'branch.switched', 'commit.recorded']);
  const log = src.newest({ branch: here, limit: BEYOND_LOG, filter: (e) => !skip.has(e.type) });
  if (log.length) lines.push('Newest log entries, newest first:', ...log.map((e) => `  ${entryLine(e)}`));
  const earlier = earlierCommits(src, here, EARLIER_COMMITS, spell);
  if (earlier.length) lines.push('Earlier commits, newest first:', ...earlier);
  const active = Object.values(s.branches).filter((x) => x.life === 'active' && x.name !== MAIN && x.name !== here);
  if (active.length)
    lines.push(
      `Other open branches: ${active
        .slice(0, 8)
        .map((x) => `${x.name} (${x.commits} commit${x.commits === 1 ? '' : 's'})`)
        .join(', ')}${active.length > 8 ? `, +${active.length - 8} more` : ''}`,
    );
  const everyEntry = `\`${spell({ level: 'log', branch: here })}\` (every entry, newest first)`;
  lines.push(`More: ${everyEntry}, \`${spell({ level: 'status' })}\` (where memory stands, in full).`);
  const fit = fitText(
    lines.join('\n'),
    budget,
    `raise the budget, or ask for one part: \`${spell({ level: 'log', branch: here })}\``,
  );
  return {
    text: fit.text,
    truncated: fit.truncated,
    tokens: estimateTokens(fit.text),
    next: null,
    data: { branch: here, log: log.map((e) => ({ at: e.at, type: e.type, data: e.data })) },
  };
}

/**
 * Commits before the last one, newest first: on the branch, then on the branch it came from
 * (and so on up to main), so a session on a young branch still sees what the trunk decided —
 * from the state's window of recent commits, never the logs. Abandon records are left out: the
 * failed approaches list has them, with their reasons. A decision and its why are usually in a
 * commit's first sentences; each is clipped to those. Where a branch has older commits than the
 * list reached, a line says how many and the branch view's page that starts with them.
 */
function earlierCommits(src: ContextSource, here: string, max: number, spell: (q: ContextQuery) => string): string[] {
  const s = src.state;
  const out: string[] = [];
  const more: string[] = [];
  const skip = s.branches[here]?.last?.id;
  let name: string | null = here;
  for (let depth = 0; name !== null && depth < 20; depth++) {
    const b: BranchInfo | undefined = s.branches[name];
    if (!b) break;
    if (out.length >= max) {
      // The list is full before it reached the branch this one came from: its commits, counted.
      const where = `\`${spell({ level: 'branch', name })}\``;
      if (b.commits > 0)
        more.push(`  … and ${count(b.commits, 'commit')} on ${name}, where ${here} came from: ${where}`);
      break;
    }
    // The branch's newest commits looked at: listed, shown above as the last, or an abandon record.
    let seen = 0;
    for (const c of [...b.recent].reverse()) {
      if (out.length >= max) break;
      seen++;
      if (c.id === skip || c.abandon) continue;
      const label = displayLabel(b, c.label, c.id);
      const ref = name === here ? label : `${name}@${label}`;
      // Cut, it says where it is whole (the state keeps a commit's head only).
      const whole = `\`${spell({ level: 'commit', id: ref })}\``;
      const said = c.gist === undefined ? clip(c.title, 240) : clipTo(c.gist, 240, whole, GIST_KEPT);
      out.push(`  ${ref} ${c.at.slice(0, 10)}: ${said}`);
    }
    const left = b.commits - seen;
    const page2 = `\`${spell({ level: 'branch', name, k: seen, page: 2 })}\``;
    if (left > 0 && seen > 0) more.push(`  … ${count(left, 'older commit')} on ${name}: ${page2}`);
    name = b.parent;
  }
  return out.length || more.length ? [...out, ...more] : [];
}

export function pendingFiles(b: BranchInfo) {
  return Object.values(b.pending.files)
    .sort((x, y) => (x.at < y.at ? 1 : -1))
    .map((f) => ({ path: f.path, added: f.added, removed: f.removed }));
}
