/**
 * Forgetting on purpose: the way a person takes memory away so that it stays away. A segment
 * deleted by hand comes back at the next open — from this clone's journal, or from git — since
 * that is what the store promises for work-tree accidents; `gctx forget` removes the segment,
 * its journal copy and what this clone acknowledged of it, under the lock, and records how many
 * events went (never their text: a secret may be why).
 */
import { rmSync } from 'node:fs';
import { relative } from 'node:path';
import { type Placed, MAIN } from '../events/types.js';
import { type GccError, gccError } from '../errors.js';
import { runGit } from '../store/git-probe.js';
import { layout, SEGMENT_NAME } from '../store/paths.js';
import { LOCAL, Store } from '../store/store.js';

export interface Forgotten {
  /** Segments forgotten, relative to the project. */
  files: string[];
  /** Events they held, as far as this clone acknowledged or read them. */
  events: number;
  /** Those git holds: the removal reaches teammates only once it is committed. */
  inGit: string[];
}

/** A segment as the user may name it: `2026-12/x.md`, `events/…`, `.GCC/events/…`, or a path. */
function segmentName(arg: string): string | null {
  const m = /(\d{4}-\d{2}\/[^/\\]+\.md)$/.exec(arg.replaceAll('\\', '/'));
  return m && SEGMENT_NAME.test(m[1]!) ? m[1]! : null;
}

function tracked(store: Store, paths: string[]): string[] {
  if (!store.repo || paths.length === 0) return [];
  try {
    return runGit(store.layout.root, ['ls-files', '--with-tree=HEAD', '--', ...paths])
      .split('\n')
      .filter(Boolean);
  } catch {
    return [];
  }
}

/**
 * Forget the named segments; with none named, every own log the work tree no longer holds (a
 * deliberate `rm`) whose journal copy would bring it back.
 */
export async function forgetSegments(root: string, asked: readonly string[], now: () => Date): Promise<Forgotten> {
  const store = new Store(layout(root));
  const l = store.layout;
  const names: string[] = [];
  for (const arg of asked) {
    const name = segmentName(arg);
    if (!name)
      throw gccError(
        'E_INVALID_ARGUMENT',
        `${arg} is not a memory segment`,
        'name one under .GCC/events/: `gctx forget .GCC/events/2026-12/20261201T123432Z-ee39d9.md`',
      );
    names.push(name);
  }
  const out: Forgotten = { files: [], events: 0, inGit: [] };
  await store.withLock(() => {
    const journal = store.journal;
    const onDisk = new Set(store.listSegments());
    const gone = asked.length
      ? names
      : (journal?.names() ?? []).filter((n) => n !== LOCAL && !onDisk.has(n) && !store.fromJournal.has(n));
    for (const name of gone) {
      const known = onDisk.has(name) || store.ledger.logs[name] || journal?.size(name) != null;
      if (!known)
        throw gccError(
          'E_INVALID_ARGUMENT',
          `.GCC/events/${name} is not in this memory`,
          '`gctx verify` lists the segments; name one of them: `gctx forget .GCC/events/<month>/<segment>.md`',
        );
    }
    if (gone.length === 0) return;
    for (const name of gone) {
      const seq = store.ledger.logs[name]?.seq ?? 0;
      out.events += seq;
      out.files.push(relative(root, l.segment(name)));
      rmSync(l.segment(name), { force: true });
      journal?.drop(name);
      store.fromJournal.delete(name);
      delete store.ledger.logs[name];
      store.logs.delete(name);
      if (store.ledger.open === name) store.ledger.open = null;
    }
    out.inGit = tracked(store, out.files);
    const damage: GccError[] = [];
    store.check(now().getTime(), damage);
    if (damage.length) throw damage[0]!;
    store.acknowledge('all', true);
    const record: Placed = {
      type: 'memory.repaired',
      data: {
        segment: gone.length === 1 ? gone[0]! : `${gone.length} segments`,
        kept: 0,
        lost: out.events,
        reason: 'forgotten on request (`gctx forget`)',
      },
      branch: MAIN,
    };
    let lastId = '';
    for (const f of store.logs.values()) if (f.meta.lastId > lastId) lastId = f.meta.lastId;
    store.append([record], 'shared', lastId, now());
  });
  return out;
}
