/**
 * Memory as a git ref's history knew it, without checking the ref out: the segments under
 * `.GCC/events/` in the ref's tree (one `git ls-tree`), their bytes (one `git cat-file --batch`),
 * parsed and validated like any log (they are untrusted input), merged by id and folded by the
 * decider. A finding recorded on a git branch never merged is in no segment of a ref that does
 * not contain it, so it is absent there. Independent of the store: it reads git objects, never
 * the work tree, the ledger or the local log (so every session reads from main's pointer).
 *
 * Limits (docs/stale.md): memory of the first layout (`.GCC/branches/**\/log.md`) is not read;
 * ranked search is not offered at a ref.
 */
import type { ContextSource } from '../context/query.js';
import { replay } from '../decider/evolve.js';
import type { MemoryState } from '../decider/state.js';
import { gccError } from '../errors.js';
import type { GccEvent } from '../events/types.js';
import { parseBytes, salvage } from '../log/codec.js';
import { gitEnv, readBlobs } from '../store/git-blobs.js';
import { gitProgram, safeGit } from '../store/git-probe.js';
import { childProcess } from '../runtime/lazy-deps.js';

const TIMEOUT_MS = 30_000;
const SEGMENT = /^\.GCC\/events\/\d{4}-\d{2}\/\d{8}T\d{6}Z-[0-9a-f]{6}\.md$/;

export interface AtRef {
  events: GccEvent[];
  state: MemoryState;
  /** Segments that did not parse whole: what of them held together was kept. */
  damaged: string[];
}

function git(root: string, args: readonly string[]): Buffer {
  return childProcess().execFileSync(gitProgram(root), safeGit(args), {
    cwd: root,
    env: gitEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: TIMEOUT_MS,
    maxBuffer: 1024 * 1024 * 1024,
  });
}

/** The segments in `ref`'s tree under the project at `root`: path → blob. */
function segmentsAt(root: string, ref: string): Map<string, string> {
  if (!ref || ref.startsWith('-') || /[\u0000-\u001f\u007f]/.test(ref)) {
    const fix = 'name a branch, tag or commit: `gctx context --at main`';
    throw gccError('E_INVALID_ARGUMENT', `not a git ref: ${JSON.stringify(ref)}`, fix);
  }
  let out: string;
  try {
    out = git(root, ['ls-tree', '-r', '-z', '--end-of-options', ref, '--', '.GCC/events']).toString('utf8');
  } catch (err) {
    const why =
      String((err as { stderr?: unknown }).stderr ?? '')
        .trim()
        .split('\n')[0] || 'git could not read it';
    const fix = 'name a branch, tag or commit this repository has (`git log --oneline`): `gctx context --at HEAD~3`';
    throw gccError('E_INVALID_ARGUMENT', `no git ref ${JSON.stringify(ref)} here (${why})`, fix);
  }
  const found = new Map<string, string>();
  for (const line of out.split('\0')) {
    const m = /^\d{6} blob ([0-9a-f]{40,64})\t(.+)$/s.exec(line);
    if (m && SEGMENT.test(m[2]!)) found.set(m[2]!, m[1]!);
  }
  return found;
}

/** The shared events committed in `ref`'s history, in id order, and the state they fold to. */
export function memoryAt(root: string, ref: string): AtRef {
  const segments = segmentsAt(root, ref);
  const bytes = readBlobs(root, [...new Set(segments.values())], TIMEOUT_MS);
  const all: GccEvent[] = [];
  const damaged: string[] = [];
  for (const [path, id] of [...segments].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const buf = bytes.get(id);
    if (!buf) continue;
    try {
      all.push(...parseBytes(buf, { file: path }).events);
    } catch {
      damaged.push(path);
      all.push(...salvage(buf).events);
    }
  }
  all.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  // A segment two refs both carry (a cherry-pick, a copy) gives the same events twice: kept once.
  const events = all.filter((e, i) => i === 0 || e.id !== all[i - 1]!.id);
  return { events, state: replay(events), damaged };
}

/** A CONTEXT source over the memory at `ref`: every level but ranked search. */
export function sourceAt(root: string, ref: string): ContextSource {
  const { events, state } = memoryAt(root, ref);
  const newestFirst = [...events].reverse();
  return {
    state,
    newest: (q) => {
      const found: GccEvent[] = [];
      for (const e of newestFirst) {
        if (found.length >= q.limit) break;
        const on = q.branch === undefined || e.branch === q.branch;
        if (on && (q.before === undefined || e.id < q.before) && (!q.filter || q.filter(e))) found.push(e);
      }
      return found;
    },
    scan: (q, visit) => {
      for (const e of newestFirst) if ((q.branch === undefined || e.branch === q.branch) && !visit(e)) return;
    },
    search: () => {
      const fix = 'search without --at, or read the ref with `gctx context --at <ref> --log`';
      throw gccError('E_INVALID_ARGUMENT', 'ranked search reads the memory as it is, not at a git ref', fix);
    },
  };
}
