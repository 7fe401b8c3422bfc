/**
 * verify: it reads every byte of every log — a window at a time, once, as it folds them —
 * checks each entry, holds each log against what this clone acknowledged, checks that no id
 * carries two different events, and that every view equals a fresh rebuild; it names each
 * problem by file and line. (repair.ts makes a damaged memory usable again.)
 */
import { closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Contradictions } from '../decider/contradictions.js';
import { replayer } from '../decider/evolve.js';
import type { MemoryState } from '../decider/state.js';
import { GccError } from '../errors.js';
import { LOG_WINDOW } from '../projections/render-log.js';
import { trackedUnder } from '../store/git-probe.js';
import { intactDamage, ledgerDisagrees } from '../store/intact.js';
import { layout, type Layout } from '../store/paths.js';
import type { LogFile } from '../store/logfile.js';
import { LOCAL, Store } from '../store/store.js';
import { newest, shared } from './reader.js';
import { branchViews } from './branch-views.js';
import { FullRebuild, ViewWriter } from './views.js';
import { type Redact, REDACTED_NOTE, setAside } from './aside.js';

export interface Problem {
  file: string;
  line?: number;
  message: string;
}

function problemOf(err: unknown, file: string): Problem {
  if (err instanceof GccError)
    return { file: err.file ?? file, ...(err.line ? { line: err.line } : {}), message: err.message };
  return { file, message: String(err) };
}

/** Every file under `dir`, relative to it. */
function filesUnder(dir: string, rel = ''): string[] {
  const out: string[] = [];
  let names: string[];
  try {
    names = readdirSync(join(dir, rel));
  } catch {
    return out;
  }
  for (const n of names) {
    const r = rel ? `${rel}/${n}` : n;
    const st = statSync(join(dir, r));
    if (st.isDirectory()) out.push(...filesUnder(dir, r));
    else out.push(r);
  }
  return out;
}

/** What a caller holding a state of its own is told, so that it need not hold it beside verify's. */
export interface VerifyHooks {
  /** The logs are whole and their fold begins: a state folded from them may be let go. */
  release?: () => void;
  /** The state folded from every log. */
  folded?: (state: MemoryState) => void;
  /** What is worth saying but is no damage: events that contradict earlier ones (the fold absorbs them by rule). */
  warn?: (p: Problem) => void;
}

/**
 * Integrity of every log, agreement with the ledger, and every view against a fresh rebuild;
 * and whether git tracks anything under `.GCC/.local/`. `store`: an opened memory's own, whose
 * logs are checked and read again here rather than known twice.
 */
export function verifyMemory(l: Layout, now: number, hooks: VerifyHooks = {}, store = new Store(l)): Problem[] {
  return [...trackedLocal(l, store), ...verifyLogs(l, now, hooks, store)];
}

/**
 * `.GCC/.local/` is this clone's own (ledger, local log, caches, serve token) and `.gitignore`
 * keeps it out, but `git add -f` puts it in a commit and every clone then checks it out: what
 * this clone trusts as its own would be what someone else committed. Asked here, by the whole
 * pass, not on every open: it costs a git process.
 */
function trackedLocal(l: Layout, store: Store): Problem[] {
  if (!store.repo) return [];
  const files = trackedUnder(l.root, l.local);
  if (!files?.size) return [];
  const shown = [...files].slice(0, 3).join(', ') + (files.size > 3 ? ', …' : '');
  const tracked = `git tracks ${files.size} ${files.size === 1 ? 'file' : 'files'} here (${shown})`;
  const why =
    "this folder is the clone's own (ledger, local log, caches, serve token) and is never committed, " +
    'so what a clone trusts as its own would be what someone committed.';
  const fix =
    'Untrack it: `git rm -r --cached .GCC/.local` and commit; ' +
    'then remove the files that came with the repository ' +
    '(`rm -r .GCC/.local` unless you committed them yourself: gctx makes the folder again)';
  return [{ file: relative(l.root, l.local), message: `${tracked}: ${why} ${fix}` }];
}

function verifyLogs(l: Layout, now: number, hooks: VerifyHooks, store: Store): Problem[] {
  const problems: Problem[] = [];
  const damage: GccError[] = [];
  store.check(now, damage);
  for (const d of damage) problems.push(problemOf(d, d.file ?? '.GCC'));
  const damaged = (f: LogFile) => damage.some((d) => d.file === f.rel);
  /** Read a log whole, holding it against what was acknowledged of it, and say what is wrong. */
  const readWhole = (f: LogFile) => {
    const entry = store.ledger.logs[f.name];
    const held = { name: f.name, path: f.path, rel: f.rel, root: l.root, ledger: l.ledger };
    try {
      const r = f.load(now, entry?.size ?? 0);
      if (entry && (f.meta.size < entry.size || r.prefixCrc !== entry.crc)) {
        // Said of the ledger when the log reads whole and it is the ledger that is at odds.
        const known = (r.tail ? null : ledgerDisagrees(held, entry)) ?? intactDamage(held, entry, now);
        problems.push(
          known
            ? problemOf(known, f.rel)
            : {
                file: f.rel,
                message: `its ${entry.size} acknowledged bytes (${entry.seq} events) are not what they were`,
              },
        );
      }
      if (r.tail)
        problems.push({
          file: f.rel,
          message:
            f.name === store.ledger.open || f.name === LOCAL
              ? 'torn entry at the end (a crash mid-write); any gctx command sets it aside'
              : 'ends in an incomplete entry (ignored)',
        });
    } catch (err) {
      problems.push(problemOf((entry && intactDamage(held, entry, now)) || err, f.rel));
    }
  };
  // check() trusts older months by their folders; verify reads every byte, once: the fold below
  // reads each log a window at a time and holds its bytes against what is known of it (for a
  // log the size the ledger says, its acknowledged bytes and their CRC). A log of another size
  // (grown since, or ending in a torn entry) is read whole first; and every log is, when the
  // fold meets damage, so that each problem is named by its file.
  const rest: LogFile[] = [];
  for (const f of store.logs.values()) {
    if (damaged(f)) continue;
    if (f.unread || f.sizeOnDisk() !== f.meta.size) readWhole(f);
    else rest.push(f);
  }
  if (problems.length) {
    for (const f of rest) readWhole(f);
    return problems;
  }
  // The union: ids unique, one event each; then the views against a rebuild in a scratch tree.
  const scratch = mkdtempSync(join(tmpdir(), 'gcc-verify-'));
  try {
    const shadow = layout(scratch);
    mkdirSync(shadow.local, { recursive: true });
    hooks.release?.();
    const contradictions = new Contradictions();
    const fold = replayer(contradictions.refused);
    const build = new FullRebuild(shadow, 2 * LOG_WINDOW);
    try {
      store.stream((e, f) => {
        contradictions.where = f.rel;
        fold.add(e);
        build.add(e);
      }, now);
    } catch (err) {
      for (const f of rest) readWhole(f);
      return problems.length ? problems : [problemOf(err, '.GCC/events')];
    }
    const state = fold.state();
    hooks.folded?.(state);
    if (hooks.warn) reportContradictions(contradictions, state, hooks.warn);
    // A rebuild to compare against: its checkpoint is never kept.
    const views = new ViewWriter(shadow, { views: () => null, saveViews: () => undefined });
    const after = build.finish(views, state);
    for (const name of after.relabel) {
      // A label two writers both used: commit.md shows it qualified, as the engine writes it.
      views.writeCommits(state, name, (add) => store.stream((e) => e.type === 'commit.recorded' && add(e), now, name));
    }
    for (const name of after.relog)
      views.writeLog(state, name, newest(store, { branch: name, limit: 2 * LOG_WINDOW, filter: shared }).reverse());
    const blocks: Blocks = [Buffer.allocUnsafe(1 << 16), Buffer.allocUnsafe(1 << 16)];
    const rebuilt = filesUnder(shadow.gcc);
    const want = new Set(rebuilt);
    for (const v of branchViews(l.gcc))
      if (!want.has(v.rel))
        problems.push({
          file: relative(l.root, join(l.gcc, v.rel)),
          message: `view of ${v.branch}, which is no longer in memory; run \`gctx replay\` (it removes it)`,
        });
    for (const rel of rebuilt) {
      if (rel.startsWith('.local/')) continue;
      const path = join(l.gcc, rel);
      const file = relative(l.root, path);
      const line = firstDifference(join(shadow.gcc, rel), path, blocks);
      if (line === 0) problems.push({ file, message: 'view is missing; run `gctx replay`' });
      else if (line > 0)
        problems.push({
          file,
          line,
          message: 'differs from a rebuild from .GCC/events/; run `gctx replay` (a differing file is kept aside first)',
        });
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return problems;
}

/**
 * Each event that contradicts the ones before it, by file and position: no damage (the fold
 * absorbs it by rule, docs/reliability.md), but a sign of a forged or hand-made log, or of two
 * clones that did opposite things before they met.
 */
function reportContradictions(c: Contradictions, state: MemoryState, warn: (p: Problem) => void): void {
  for (const { event: e, where, what } of c.finish(state))
    warn({ file: where, message: `event ${e.seq} (${e.type}, ${e.at}) ${what}` });
  if (c.more)
    warn({
      file: '.GCC/events',
      message: `${c.more} more ${c.more === 1 ? 'event contradicts' : 'events contradict'} earlier ones`,
    });
}

/** Two blocks reused for every pair of files compared. */
type Blocks = [Buffer, Buffer];

/**
 * The first line at which two files differ (-1 when they are the same, 0 when `have` is
 * missing), read a block at a time: a commit.md of ten thousand commits is never held whole.
 */
function firstDifference(want: string, have: string, [x, y]: Blocks): number {
  let a: number;
  let b: number;
  try {
    b = openSync(have, 'r');
  } catch {
    return 0;
  }
  a = openSync(want, 'r');
  try {
    let line = 1;
    for (let pos = 0; ; ) {
      const n = readSync(a, x, 0, x.length, pos);
      const m = readSync(b, y, 0, y.length, pos);
      const k = Math.min(n, m);
      for (let i = 0; i < k; i++) {
        if (x[i] !== y[i]) return line;
        if (x[i] === 0x0a) line++;
      }
      if (n !== m) return line;
      if (n === 0) return -1;
      pos += n;
    }
  } finally {
    closeSync(a);
    closeSync(b);
  }
}

/** Move a file aside, redacted (for replay's differing main.md and metadata.yaml: aside/ is committed). */
export function keepAside(l: Layout, path: string, stamp: Date, redact: Redact): string {
  const kept = setAside(
    l,
    path,
    `${relative(l.gcc, path).replaceAll('/', '__')}.${stamp.toISOString().replace(/[:.]/g, '-')}`,
    redact,
    true,
  );
  if (!kept) return `${relative(l.root, path)} (gone before it could be kept)`;
  return kept.redacted ? `${kept.target}${REDACTED_NOTE}` : kept.target;
}
