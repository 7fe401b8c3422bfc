/**
 * Run by closed.test.ts as `node --allow-natives-syntax --import tsx state-shape.child.ts`:
 * folds branches that close (merged, abandoned) and one left open, by replay, by the engine's
 * unfrozen fold on a state read back from a snapshot, and by immer's evolve, and prints as JSON
 * the path of every record in the state V8 keeps as a hash table rather than a compact object.
 * Only the state's maps (branches, files, sessions, a branch's pending files) are meant to be
 * hash tables: they are keyed by names people choose.
 */
import { evolve, evolveUnfrozen, replay } from '../../src/decider/evolve.js';
import type { MemoryState } from '../../src/decider/state.js';
import { reviveState } from '../../src/engine/revive.js';
import type { Placed } from '../../src/events/types.js';
import { given, init, commit as milestone } from '../support/given.js';

const hasFastProperties = new Function('o', 'return %HasFastProperties(o)') as (o: object) => boolean;

const commit = (branch: string, label: string, extra: object = {}): Placed =>
  milestone(branch, label, {
    id: `c${label.slice(1)}${branch.length}`.padEnd(7, '0'),
    contribution: `did ${label} on ${branch}, at length`,
    next: 'then more',
    files: [{ path: `src/${branch}.ts`, added: 1, removed: 0 }],
    ...extra,
  });
function branch(name: string, close: 'merged' | 'abandoned' | 'open'): Placed[] {
  const out: Placed[] = [
    { type: 'branch.created', data: { name, parent: 'main', purpose: `try ${name}`, hypotheses: ['h'] }, branch: name },
  ];
  for (let i = 1; i <= 7; i++) out.push(commit(name, `C00${i}`));
  out.push({
    type: 'tool.recorded',
    data: {
      tool: 'Bash',
      input: 'npm test',
      result: 'failed',
      isError: true,
      files: [{ path: 'src/x.ts', added: 2, removed: 1 }],
    },
    branch: name,
  } as Placed);
  if (close === 'merged') {
    const record = commit('main', `C9${name.length}`, {
      contribution: 'merged',
      merge: { from: name, tried: 't', learned: 'l', integrated: 'i' },
    });
    out.push(record, {
      type: 'branch.merged',
      data: { branch: name, into: 'main', commit: (record.data as { id: string }).id },
      branch: name,
    });
  } else if (close === 'abandoned')
    out.push({ type: 'branch.abandoned', data: { branch: name, reason: 'no' }, branch: name });
  return out;
}

const first = given([init, commit('main', 'C001'), ...branch('a', 'merged'), ...branch('b', 'abandoned')]);
const more = given([...branch('c', 'merged'), ...branch('d', 'abandoned'), ...branch('e', 'open')]);

const MAPS = /^(branches|files|sessions|branches\.[^.]+\.pending\.files)$/;
function slow(state: MemoryState): string[] {
  const out: string[] = [];
  const walk = (v: unknown, path: string) => {
    if (typeof v !== 'object' || v === null) return;
    if (Array.isArray(v)) {
      v.forEach((x, i) => walk(x, `${path}[${i}]`));
      return;
    }
    if (!MAPS.test(path) && !hasFastProperties(v)) out.push(path);
    for (const [k, x] of Object.entries(v)) walk(x, path ? `${path}.${k}` : k);
  };
  walk(state, '');
  return out;
}

const replayed = replay([...first, ...more]);
const revived = reviveState(JSON.parse(JSON.stringify(replay(first))))!;
process.stdout.write(
  JSON.stringify({
    replay: slow(replayed),
    unfrozen: slow(evolveUnfrozen(revived, more)),
    immer: slow(evolve(replay(first), more)),
    closed: ['a', 'b', 'c', 'd'].every((n) => replayed.branches[n]!.life !== 'active'),
  }),
);
