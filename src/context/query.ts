/**
 * CONTEXT: memory at several granularities, each answer inside a token budget. Every list is
 * newest first (search: most relevant first, ties newest first); an answer that must be cut
 * keeps the newest and says exactly how to reach the rest (the next page is older). Text for
 * the reader carries no internal ids and no event-type names; the data behind it does.
 */
import { yamlLib } from '../runtime/lazy-deps.js';
import { currentBranch, displayLabel, type BranchInfo, type MemoryState } from '../decider/state.js';
import { type EventOf, type FileChange, type GccEvent, isLocalType, MAIN } from '../events/types.js';
import { gccError } from '../errors.js';
import { filesFitted } from '../log/prose.js';
import { flatText } from '../log/safe-text.js';
import { renderCommit } from '../projections/render-commit.js';
import { renderMain } from '../projections/render-main.js';
import { METADATA_COMMENT, metadataObject, renderMetadata } from '../projections/render-metadata.js';
import { CHARS_PER_TOKEN, clip, estimateTokens, fitItems, fitText, MIN_BUDGET } from './budget.js';
import { count, disputedLines, entryLine, failedLines, failureLines, pendingLine } from './lines.js';
import type { SearchResult } from './search-index.js';
import {
  CONTEXT_LEVELS,
  type ContextAnswer,
  type ContextLevel,
  type ContextOptions,
  type ContextQuery,
  type ContextSource,
} from './levels.js';
import { type StaleCheck, staleText } from './stale.js';
import { beyondBriefing, defaultSpell, pendingFiles, statusView, when } from './status.js';

export type { ContextAnswer, ContextLevel, ContextOptions, ContextQuery, ContextSource };

type Commit = EventOf<'commit.recorded'>;

/** What CONTEXT reads: the folded state, and events read back newest first. */
const DEFAULT_BUDGET = 2000;
/**
 * Commits a branch view shows by default, chosen with the resume benchmark (docs/benchmarks.md):
 * the smallest K whose view carries the branch's last decision and why, its next step and its
 * files in flight — one, as the GCC paper found. `--k` asks for more.
 */
export const DEFAULT_K = 1;
export const DEFAULT_LOG = 20;

const page = (n: number | undefined): number => (n && Number.isInteger(n) && n > 0 ? n : 1);

/** One commit, compactly: label, hash, date, contribution, files (`where` the rest are, when cut), next step. */
function commitBlock(b: BranchInfo | undefined, e: Commit, max = 600, where = '', stale = ''): string {
  const d = e.data;
  const kind = d.merge ? ` (merge of ${d.merge.from})` : d.abandon ? ` (abandoned ${d.abandon.from})` : '';
  const head = `${displayLabel(b, d.label, d.id)} ${d.id} ${when(e.at)}${kind}: ${clip(d.contribution, max)}`;
  const more = [
    d.files.length ? `  Files: ${filesFitted(d.files, 300, d.files.length, where)}` : '',
    d.next ? `  Next: ${clip(d.next, 200)}` : '',
    stale && `  ${stale}`,
  ].filter(Boolean);
  return `${[head, ...more].join('\n')}\n`;
}

function branchView(
  src: ContextSource,
  q: Extract<ContextQuery, { level: 'branch' }>,
  o: ContextOptions,
  budget: number,
): ContextAnswer {
  const s = src.state;
  const name = q.name ?? currentBranch(s, o.session);
  const b = s.branches[name];
  if (!b)
    throw gccError('E_BRANCH_NOT_FOUND', `no branch named ${JSON.stringify(name)}`, 'list branches with `gctx status`');
  const k = q.k && q.k > 0 ? Math.min(q.k, 100) : DEFAULT_K;
  const p = page(q.page);
  const commits = src.newest({ branch: name, limit: p * k, filter: (e) => e.type === 'commit.recorded' }) as Commit[];
  const shown = commits.slice((p - 1) * k);
  const from = b.parent ? ` from ${b.parent}` : '';
  const head = [`Branch ${name} [${b.life}]${from}, created ${when(b.created)}: ${clip(b.purpose, 400)}`];
  if (b.hypotheses.length) head.push(`Hypotheses: ${b.hypotheses.map((h) => clip(h, 160)).join('; ')}`);
  if (b.life === 'abandoned') {
    const merged = s.failed.findLast((f) => f.branch === name && f.merged)?.merged;
    const also = merged ? ` (and merged into ${merged.into} on another clone)` : '';
    head.push(`Abandoned ${when(b.closed ?? '')}: ${clip(b.reason ?? '', 4000)}${also}`);
  }
  if (b.life === 'merged') {
    const dropped = s.failed.findLast((f) => f.branch === name && f.merged);
    const also = dropped ? `, and abandoned on another clone: ${clip(dropped.reason, 4000)}` : '';
    head.push(`Merged into ${b.mergedInto} ${when(b.closed ?? '')}${also}`);
  }
  // The branch's work since its last commit: what a session picking the branch up is in the middle of.
  const pending = pendingLine(b, 10, `in \`${(o.spell ?? defaultSpell)({ level: 'log', branch: name })}\``);
  if (pending) head.push(pending);
  head.push(...failureLines(b, 5, `in \`${(o.spell ?? defaultSpell)({ level: 'log', branch: name })}\``));
  // Recent commits older than the page (on a later page, the newer ones are not "earlier").
  const oldest = shown.at(-1)?.at;
  const earlier =
    oldest === undefined ? [] : b.recent.filter((c) => c.at <= oldest && !shown.some((x) => x.data.id === c.id));
  // The earlier ones are the state's recent window: those beyond it are counted (the tail below
  // gives the page that shows them).
  const beyond = Math.max(0, b.commits - (p - 1) * k - shown.length - earlier.length);
  head.push(
    `${b.commits} commit${b.commits === 1 ? '' : 's'}${
      earlier.length
        ? `; earlier: ${earlier
            .map((c) => `${displayLabel(b, c.label, c.id)} ${clip(c.title, 60)}`)
            .reverse()
            .join('; ')}${beyond ? `; and ${beyond} older` : ''}`
        : ''
    }.`,
  );
  if (!shown.length) head.push(b.commits ? `(no commits on page ${p})` : '(no commits yet)');
  else head.push(`Newest first${p > 1 ? `, page ${p}` : ''}:`);
  const older = b.commits - (p - 1) * k - shown.length;
  const stale = src.stale?.(shown.map((e) => e.data.files)).map(staleText) ?? [];
  const items = shown.map((e, i) =>
    commitBlock(b, e, 600, `in \`${(o.spell ?? defaultSpell)({ level: 'commit', id: e.data.id })}\``, stale[i]),
  );
  const next = (n: number): ContextQuery => ({ level: 'branch', name, k, page: p + Math.max(1, Math.floor(n / k)) });
  const spell = o.spell ?? defaultSpell;
  const fit = fitItems(`${head.join('\n')}\n`, items, budget, (n) => {
    const left = shown.length - n + Math.max(0, older);
    const more: ContextQuery =
      n < shown.length ? { level: 'branch', name, k: n, page: Math.floor(((p - 1) * k) / n) + 2 } : next(k);
    return left > 0 ? `… ${count(left, 'older commit')}: ${spell(more)}\n` : '';
  });
  const truncated = fit.truncated || older > 0;
  const text = fit.text;
  return {
    text,
    truncated,
    tokens: estimateTokens(text),
    next: truncated
      ? fit.truncated
        ? { level: 'branch', name, k: fit.shown, page: Math.floor(((p - 1) * k) / fit.shown) + 2 }
        : next(k)
      : null,
    data: {
      branch: {
        name,
        status: b.life,
        parent: b.parent,
        purpose: b.purpose,
        hypotheses: b.hypotheses,
        reason: b.reason,
        mergedInto: b.mergedInto,
        commits: b.commits,
      },
      pending: pendingFiles(b),
      page: p,
      commits: shown.slice(0, fit.shown).map((c, i) => ({
        ...c.data,
        label: displayLabel(b, c.data.label, c.data.id),
        at: c.at,
        ...(stale[i] ? { stale: stale[i] } : {}),
      })),
    },
  };
}

/**
 * A commit by label (`C003`, `feat/x@C003`), display label (`C003.1a2b3c4`) or hash prefix (4
 * characters or more). A bare word that reads as both — `c200`, `c2004` are labels and hashes —
 * is a label first, then a hash: whichever names one commit. When several could be meant, the
 * error lists them, each in a form that names one.
 */
export function findCommit(src: ContextSource, ref: string, session?: string): Commit {
  const want = ref.trim();
  const m = /^(?:(.+)[@:])?(C\d+)(?:\.([0-9a-f]{4,}))?$/i.exec(want);
  // A label several branches use, kept until the hash has had its say.
  let several: { label: string; on: string[] } | null = null;
  if (m) {
    const branch = m[1] ?? currentBranch(src.state, session);
    const label = m[2]!.toUpperCase();
    const hits: Commit[] = [];
    // The fold knows which labels a branch used and which twice: a label it never used is not
    // looked for in the logs, and the scan stops at the first commit of one used once.
    const b = src.state.branches[branch];
    const n = Number(label.slice(1));
    const used = b?.labels.some(([lo, hi]) => lo <= n && n <= hi) ?? false;
    const once = !b?.dupLabels.includes(label) || Boolean(m[3]);
    if (used) {
      src.scan({ branch, label: n }, (e) => {
        if (
          e.type === 'commit.recorded' &&
          e.data.label === label &&
          (!m[3] || e.data.id.startsWith(m[3].toLowerCase()))
        )
          hits.push(e);
        return !(once && hits.length > 0);
      });
    }
    if (hits.length === 1) return hits[0]!;
    if (hits.length > 1) {
      const listed = hits.map((h) => `${displayLabel(b, h.data.label, h.data.id)} "${clip(h.data.title, 50)}"`);
      const first = hits[0]!.data.id;
      throw gccError(
        'E_COMMIT_NOT_FOUND',
        `${label} names ${hits.length} commits on ${branch} (numbered apart, each from the commits its writer had ` +
          `seen: two clones, or one whose git history was rewritten under it): ${listed.join(', ')}`,
        `name one by its label with hash (${displayLabel(b, label, first)}) or by its hash (${first})`,
      );
    }
    if (!m[1]) {
      // Not on the current branch: a unique label elsewhere is accepted, an ambiguous one is not.
      const elsewhere: Commit[] = [];
      const usedElsewhere = Object.values(src.state.branches).some(
        (o) => o.name !== branch && o.labels.some(([lo, hi]) => lo <= n && n <= hi),
      );
      if (usedElsewhere)
        src.scan({}, (e) => {
          if (
            e.type === 'commit.recorded' &&
            e.data.label === label &&
            (!m[3] || e.data.id.startsWith(m[3].toLowerCase()))
          )
            elsewhere.push(e);
          return elsewhere.length < 2;
        });
      if (elsewhere.length === 1) return elsewhere[0]!;
      if (elsewhere.length > 1) several = { label, on: [...new Set(elsewhere.map((e) => e.branch))] };
    }
  }
  // A hash, or a bare label no commit carries that reads as one.
  const hash = (!m || (!m[1] && !m[3])) && /^[0-9a-f]{4,40}$/i.test(want) ? findByHash(src, want.toLowerCase()) : [];
  const named = (c: Commit) => {
    const label = displayLabel(src.state.branches[c.branch], c.data.label, c.data.id);
    return `${c.data.id} (${c.branch}@${label} "${clip(c.data.title, 50)}")`;
  };
  if (several) {
    const { label, on } = several;
    const also = hash.length ? `; it also starts the hash of ${hash.map(named).join(', ')}` : '';
    throw gccError(
      'E_COMMIT_NOT_FOUND',
      `${label} is not on ${m![1] ?? currentBranch(src.state, session)} and names commits on several branches ` +
        `(${on.join(', ')})${also}`,
      `name the branch: ${on.map((b) => `${b}@${label}`).join(' or ')}, or use the hash`,
    );
  }
  if (hash.length === 1) return hash[0]!;
  if (hash.length > 1)
    throw gccError(
      'E_COMMIT_NOT_FOUND',
      `${want} starts the hash of several commits: ${hash.map(named).join(', ')}`,
      `give more characters of the hash (${hash.map((c) => c.data.id).join(' or ')})`,
    );
  throw gccError(
    'E_COMMIT_NOT_FOUND',
    `no commit ${JSON.stringify(want)}`,
    'use a hash (4 characters or more) or a label like C003 or feat/x@C003; `gctx context --branch` lists them',
  );
}

/** Commits whose hash starts with `prefix`: the first two found (enough to tell one from several). */
function findByHash(src: ContextSource, prefix: string): Commit[] {
  const hits: Commit[] = [];
  src.scan({}, (e) => {
    if (e.type === 'commit.recorded' && e.data.id.startsWith(prefix) && !hits.some((h) => h.id === e.id)) hits.push(e);
    return hits.length < 2;
  });
  return hits;
}

/** The roadmap when it must be cut, as lines: what happened, newest first, before the standing lists. */
function roadmapLines(s: MemoryState): string[] {
  const lines = ['## Milestones, newest first'];
  if (!s.milestones.length) lines.push('(none yet)');
  for (const m of [...s.milestones].reverse())
    lines.push(
      `- M${m.n} ${m.at.slice(0, 10)} ${m.status}: ${clip(m.title, 160)} (${clip(m.branch, 60)}, ${m.commits})`,
    );
  const hidden = s.milestoneCount - s.milestones.length;
  if (hidden > 0) lines.push(`- … ${hidden} earlier milestones, in commit.md`);
  const failed = failedLines(s, s.failed.length);
  if (failed.length) lines.push('## Failed approaches, newest first', ...failed);
  const disputed = disputedLines(s, s.failed.length);
  if (disputed.length) lines.push('## Merged on one clone, abandoned on another', ...disputed);
  const open = s.objectives.filter((x) => !x.done);
  lines.push(
    `## Objectives (${open.length} open of ${s.objectives.length})`,
    ...open.map((x) => `- [ ] ${clip(x.text, 200)}`),
  );
  const active = Object.values(s.branches).filter((b) => b.name !== MAIN && b.life === 'active');
  if (active.length) lines.push('## Active branches', ...active.map((b) => `- ${b.name}: ${clip(b.purpose, 160)}`));
  if (s.notes.trim()) lines.push('## Notes', ...clip(s.notes, 2000).split('\n'));
  return lines;
}

/** Lines of the roadmap a page shows when none is asked for: enough for a budget's worth. */
const FULL_PAGE_LINES = 60;

/**
 * The roadmap: main.md as it stands when it fits and no page is asked for; else its lines
 * newest first, `k` a page, as many of them as the budget holds, saying how to get the rest.
 */
function fullView(
  src: ContextSource,
  q: Extract<ContextQuery, { level: 'full' }>,
  o: ContextOptions,
  budget: number,
): ContextAnswer {
  const s = src.state;
  const data = {
    objectives: s.objectives,
    milestones: [...s.milestones].reverse(),
    failed: [...s.failed].reverse(),
    notes: s.notes,
  };
  const whole = q.page === undefined && q.k === undefined ? renderMain(s) : null;
  if (whole !== null && whole.length <= Math.max(1, budget) * CHARS_PER_TOKEN)
    return { text: whole, truncated: false, tokens: estimateTokens(whole), next: null, data };
  const lines = roadmapLines(s);
  const k = q.k && q.k > 0 ? Math.min(q.k, 500) : FULL_PAGE_LINES;
  const p = page(q.page);
  const before = (p - 1) * k;
  const items = lines.slice(before, before + k).map((l) => `${l}\n`);
  // A page that starts inside a section says which.
  const section =
    before > 0 && !lines[before]?.startsWith('## ')
      ? lines.slice(0, before).findLast((l) => l.startsWith('## '))
      : undefined;
  const empty = items.length ? '' : ` (nothing on this page: ${lines.length} lines)`;
  const continued = section ? `${section} (continued)\n` : '';
  const head = `# Project Roadmap, newest first${p > 1 ? `, page ${p}` : ''}${empty}\n${continued}`;
  const spell = o.spell ?? defaultSpell;
  const after = (shown: number): ContextQuery =>
    shown < items.length
      ? { level: 'full', k: shown, page: Math.floor(before / shown) + 2 }
      : { level: 'full', k, page: p + 1 };
  const fit = fitItems(head, items, budget, (shown) => {
    const left = lines.length - before - shown;
    return left > 0 ? `… ${left} more line${left === 1 ? '' : 's'}: ${spell(after(shown))}\n` : '';
  });
  const next = lines.length - before - fit.shown > 0 ? after(fit.shown) : null;
  return { text: fit.text, truncated: next !== null, tokens: estimateTokens(fit.text), next, data };
}

const shared = (e: GccEvent): boolean => !isLocalType(e.type);

function logView(
  src: ContextSource,
  q: Extract<ContextQuery, { level: 'log' }>,
  o: ContextOptions,
  budget: number,
): ContextAnswer {
  const branch = q.branch ?? currentBranch(src.state, o.session);
  if (!src.state.branches[branch])
    throw gccError(
      'E_BRANCH_NOT_FOUND',
      `no branch named ${JSON.stringify(branch)}`,
      'list branches with `gctx status`',
    );
  const n = q.n && q.n > 0 ? Math.min(q.n, 500) : DEFAULT_LOG;
  const p = page(q.page);
  // This clone's own moves (switches, sessions, prompts) are left out: the log is the branch's,
  // the same in every clone.
  const total = src.state.branches[branch]!.logged;
  const events = src.newest({ branch, limit: p * n, filter: shared }).slice((p - 1) * n);
  const stale = src.stale?.(events.map((e) => (e.type === 'commit.recorded' ? e.data.files : []))).map(staleText) ?? [];
  const items = events.map((e, i) => `${entryLine(e)}${stale[i] ? ` (${stale[i]})` : ''}\n`);
  const spell = o.spell ?? defaultSpell;
  const before = (p - 1) * n;
  const headFor = (k: number) => {
    const range = `entries ${total - before} to ${total - before - k + 1} of ${total}`;
    return `Log of ${branch}, newest first: ${k ? range : `nothing on page ${p} (${total} entries)`}\n`;
  };
  const head = headFor(events.length);
  // The query for what follows when `shown` entries fit; pure, as fitItems probes it.
  const after = (shown: number): ContextQuery =>
    shown < events.length
      ? { level: 'log', branch, n: shown, page: Math.floor(before / shown) + 2 }
      : { level: 'log', branch, n, page: p + 1 };
  const fit = fitItems(head, items, budget, (shown) => {
    const left = total - before - shown;
    return left > 0 ? `… ${left} older entr${left === 1 ? 'y' : 'ies'}: ${spell(after(shown))}\n` : '';
  });
  // The header counts what was shown, when the budget cut the page short.
  const text = fit.shown < events.length && fit.shown > 0 ? headFor(fit.shown) + fit.text.slice(head.length) : fit.text;
  const nextQ: ContextQuery | null = total - before - fit.shown > 0 ? after(fit.shown) : null;
  return {
    text,
    truncated: nextQ !== null,
    tokens: estimateTokens(text),
    next: nextQ,
    data: {
      branch,
      page: p,
      total,
      entries: events
        .slice(0, fit.shown)
        .map((e, i) => ({ at: e.at, branch: e.branch, text: entryLine(e), ...(stale[i] ? { stale: stale[i] } : {}) })),
    },
  };
}

/** What a hit is, in the reader's words, on the hit's line: a commit's label and title, else its kind. */
function hitLabel(d: SearchResult['hits'][number]['doc']): string {
  switch (d.kind) {
    case 'commit':
    case 'synthesis':
      return flatText([d.ref, d.title].filter(Boolean).join(' ')) || d.kind;
    case 'abandon':
      return 'abandoned';
    case 'tool':
      return d.ref ? `tool ${flatText(d.ref)}` : 'tool';
    case 'log':
      return 'note';
    case 'notes':
      return 'main.md notes';
    default:
      return d.kind;
  }
}

function search(
  src: ContextSource,
  q: Extract<ContextQuery, { level: 'search' }>,
  o: ContextOptions,
  budget: number,
): ContextAnswer {
  const words = q.text.trim();
  if (!words) throw gccError('E_INVALID_ARGUMENT', 'search needs some text', 'gctx search "retry logic"');
  const limit = q.limit && q.limit > 0 ? Math.min(q.limit, 100) : 10;
  const p = page(q.page);
  const r = src.search(words, { limit, page: p });
  // A commit's label as readers see it elsewhere: qualified by its hash where the branch has it twice.
  const hits = r.hits.map((h) => {
    const d = h.doc;
    if ((d.kind !== 'commit' && d.kind !== 'synthesis') || d.ref === undefined || d.hash === undefined) return h;
    return { ...h, doc: { ...d, ref: displayLabel(src.state.branches[d.branch], d.ref, d.hash) } };
  });
  const items = hits.map(
    (h) => `${when(h.doc.at)} ${h.doc.branch} ${hitLabel(h.doc)}${h.snippet ? `: ${h.snippet}` : ''}\n`,
  );
  const spell = o.spell ?? defaultSpell;
  const note = r.note ? `(${r.note})\n` : '';
  const matches = `${count(r.total, 'match', 'matches')} for ${JSON.stringify(words)}`;
  const some = r.match === 'any' ? ' (no entry has every word; these have some)' : '';
  const head =
    (r.hits.length
      ? `${matches}${some}, most relevant first${p > 1 ? `, page ${p}` : ''}:\n`
      : r.total > 0
        ? `Nothing on page ${p} (${matches} in ${count(r.pages, 'page')}).\n`
        : `No match for ${JSON.stringify(words)}.\n`) + note;
  const after = (shown: number): ContextQuery | null =>
    shown < items.length
      ? { level: 'search', text: words, limit: shown, page: Math.floor(((p - 1) * limit) / shown) + 2 }
      : p < r.pages
        ? { level: 'search', text: words, limit, page: p + 1 }
        : null;
  const fit = fitItems(head, items, budget, (shown) => {
    const more = after(shown);
    return more ? `… more: ${spell(more)}\n` : '';
  });
  const nextQ = after(fit.shown);
  const text = fit.text;
  return {
    text,
    truncated: nextQ !== null,
    tokens: estimateTokens(text),
    next: nextQ,
    data: {
      total: r.total,
      page: p,
      pages: r.pages,
      hits: hits.slice(0, fit.shown).map((h) => ({ ...h.doc, score: h.score, snippet: h.snippet })),
    },
  };
}

export function contextQuery(src: ContextSource, q: ContextQuery, o: ContextOptions = {}): ContextAnswer {
  if (o.budget !== undefined && !(o.budget >= MIN_BUDGET))
    throw gccError(
      'E_INVALID_ARGUMENT',
      `a budget of ${o.budget} tokens leaves no room for an entry and the way to the next`,
      `give ${MIN_BUDGET} tokens or more, e.g. --budget ${MIN_BUDGET}`,
    );
  const budget = o.budget ?? DEFAULT_BUDGET;
  switch (q.level) {
    case 'status':
      // Only a session a host started (and so briefed) gets the rest: without a briefing, status is the briefing.
      return q.beyond && o.session !== undefined && src.state.sessions[o.session]?.briefed
        ? beyondBriefing(src, o, budget)
        : statusView(src, o, budget);
    case 'branch':
      return branchView(src, q, o, budget);
    case 'commit': {
      const c = findCommit(src, q.id, o.session);
      const stale = staleText(src.stale?.([c.data.files])[0] ?? []);
      const label = displayLabel(src.state.branches[c.branch], c.data.label, c.data.id);
      const text = `${stale ? `${stale}\n` : ''}${renderCommit(c, label)}`;
      const fit = fitText(text, budget, 'raise the budget to read the whole commit');
      return {
        text: fit.text,
        truncated: fit.truncated,
        tokens: estimateTokens(fit.text),
        next: null,
        data: { ...c.data, at: c.at, branch: c.branch, ...(stale ? { stale } : {}) },
      };
    }
    case 'log':
      return logView(src, q, o, budget);
    case 'metadata': {
      const meta = metadataObject(src.state);
      if (q.segment !== undefined && !Object.hasOwn(meta, q.segment)) {
        throw gccError(
          'E_INVALID_ARGUMENT',
          `no metadata segment ${JSON.stringify(q.segment)}`,
          `use one of: ${Object.keys(meta).join(', ')}`,
        );
      }
      const value = q.segment === undefined ? meta : { [q.segment]: meta[q.segment] };
      // The whole of it is the view's text, rendered once per state (the same bytes as `yaml`'s).
      const yaml =
        q.segment === undefined
          ? renderMetadata(src.state).slice(METADATA_COMMENT.length)
          : yamlLib().stringify(value, { lineWidth: 0 });
      const fit = fitText(yaml, budget, 'ask for one segment (branches, file_tree, config)');
      return { text: fit.text, truncated: fit.truncated, tokens: estimateTokens(fit.text), next: null, data: value };
    }
    case 'full':
      return fullView(src, q, o, budget);
    case 'search':
      return search(src, q, o, budget);
    default:
      throw gccError(
        'E_INVALID_ARGUMENT',
        `unknown context level ${JSON.stringify((q as { level?: unknown }).level)}`,
        `use ${CONTEXT_LEVELS.join(', ')}`,
      );
  }
}
