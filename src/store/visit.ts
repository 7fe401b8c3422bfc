/**
 * A visit: the work tree holds a commit of the first layout whose files git tracks — someone
 * ran `git checkout <old commit>`, `git bisect` stepped across the migration, or switched to a
 * branch nobody migrated yet. Migrating there would change tracked files (stage removals,
 * rewrite `.GCC/.gitignore`), and git would then refuse to leave the commit without `-f`.
 *
 * So while visiting, the old logs are read, never changed: their events are folded from a
 * read-only log held in memory (FrozenLog), which is never acknowledged in the ledger, never
 * appended to and never written as views. What is recorded meanwhile goes to this clone's own
 * segment in `.GCC/events/`, untracked at that commit: git leaves it in the work tree through
 * every checkout, and the commit the user returns to folds it in. Only a write on a branch,
 * with no bisect or rebase under way, migrates (the user works there and will commit it).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GccEvent } from '../events/types.js';
import { gccError } from '../errors.js';
import { serialize } from '../log/codec.js';
import { crc32 } from '../log/crc32.js';
import { needsMigration, OLD_FILES, readOldLayout } from './first-layout.js';
import { type GitRepo, headOf, indexSignature, runGit } from './git-probe.js';
import type { EventCursor } from './cursor.js';
import { emptyMeta, note } from './log-meta.js';
import { LogFile, type Read } from './logfile.js';
import { GCC_DIR, type Layout } from './paths.js';

export interface Visit {
  /** The branch HEAD names, or null when it is detached (a commit checked out, a bisect, a rebase). */
  branch: string | null;
  /** A git operation that moves HEAD by itself is under way: what it is, or null. */
  busy: string | null;
}

/** Whether git's index holds any file of the first layout (unknown counts as held: nothing is changed then). */
function tracksOldFiles(root: string): boolean {
  try {
    return runGit(root, ['ls-files', '-z', '--', ...OLD_FILES.map((p) => `${GCC_DIR}/${p}`)]).length > 0;
  } catch {
    return true;
  }
}

/** The branch HEAD names (`refs/heads/…`), or null when detached. */
function headBranch(repo: GitRepo): string | null {
  try {
    const m = /^ref:\s*refs\/heads\/(.+)$/.exec(readFileSync(join(repo.gitDir, 'HEAD'), 'utf8').trim());
    return m ? m[1]! : null;
  } catch {
    return null;
  }
}

function busyWith(repo: GitRepo): string | null {
  const under = [
    ['BISECT_LOG', 'a bisect'],
    ['rebase-merge', 'a rebase'],
    ['rebase-apply', 'a rebase'],
  ] as const;
  for (const [file, what] of under) if (existsSync(join(repo.gitDir, file))) return what;
  return null;
}

/** Where HEAD stands now: on which branch, and whether a bisect or rebase moves it. */
export function headState(repo: GitRepo): Visit {
  return { branch: headBranch(repo), busy: busyWith(repo) };
}

/** The visit the work tree is on, or null: the first layout present, and tracked by git. */
export function visitOf(l: Layout, repo: GitRepo | null): Visit | null {
  if (!repo || !needsMigration(l) || !tracksOldFiles(l.root)) return null;
  return headState(repo);
}

/** Whether a write may migrate where the visit stands: on a branch, with no bisect or rebase moving HEAD. */
export function mayMigrate(v: Visit): boolean {
  return v.branch !== null && v.busy === null;
}

/** What the visit means for the user, said once per command. */
export function visitNote(v: Visit): string {
  const where = v.busy ? `during ${v.busy}` : v.branch === null ? 'at a detached HEAD' : `on branch ${v.branch}`;
  const then = mayMigrate(v)
    ? 'the next command that records something (or `gctx migrate`) moves it to .GCC/events/ and stages the change'
    : 'what is recorded goes to an uncommitted segment in .GCC/events/, which git keeps through checkouts';
  return `this commit holds the first layout of .GCC/ (${where}): read as it is, no file git tracks is changed and no view written; ${then} (docs/git.md: visiting an old commit)`;
}

function readOnly(): never {
  throw gccError('E_INTERNAL', 'the first layout is read-only while visiting');
}

/**
 * The first layout's events as one read-only log: what a migration would write, in memory.
 * Named by its content, so a snapshot or search shard made at one old commit is never taken
 * for another's.
 */
export class FrozenLog extends LogFile {
  private constructor(
    name: string,
    l: Layout,
    private readonly events: GccEvent[],
    bytes: Buffer,
  ) {
    super(name, join(l.gcc, 'log.md'), `${GCC_DIR}/log.md`, l.root);
    this.meta = emptyMeta();
    this.meta.size = bytes.length;
    this.meta.crc = crc32(bytes);
    note(this.meta, events);
  }

  /**
   * From the old logs on disk. `withLocal`: this clone has no local log yet, so the old
   * layout's local state (switches, session lifecycles) is folded too, as a migration would
   * move it into the local log.
   */
  static read(l: Layout, withLocal: boolean): FrozenLog {
    const old = readOldLayout(l);
    const all = withLocal ? [...old.shared, ...old.local].sort((a, b) => (a.id < b.id ? -1 : 1)) : old.shared;
    const events = all.map((e, i) => {
      const { more: _more, ...rest } = e;
      return { ...rest, seq: i + 1 } as GccEvent;
    });
    const bytes = Buffer.from(serialize(events), 'utf8');
    return new FrozenLog(`first-layout-${crc32(bytes).toString(16).padStart(8, '0')}-${bytes.length}`, l, events, bytes);
  }

  override sizeOnDisk(): number | null {
    return this.meta.size;
  }
  override readNew(): Read {
    return { events: [], tail: 0 };
  }
  override readAll(): GccEvent[] {
    return this.events;
  }
  override load(_now?: number, prefix = 0): { tail: number; prefixCrc: number } {
    return { tail: 0, prefixCrc: crc32(Buffer.from(serialize(this.events), 'utf8').subarray(0, prefix)) };
  }
  override cursor(): EventCursor {
    let given = false;
    return {
      // A copy: a merge lets go of each event it visited, and these are read again by the next pass.
      next: () => (given ? null : ((given = true), this.events.slice())),
      close: () => undefined,
    };
  }
  override readAfter(offset: number): GccEvent[] {
    // Named by content: a snapshot that knew this log knew all of it.
    return offset >= this.meta.size ? [] : this.events;
  }
  override append(): void {
    readOnly();
  }
  override takeBack(): void {
    readOnly();
  }
  override quarantine(): string | null {
    return readOnly();
  }
}

/** What a store knows of a visit: where it stands, its read-only log, and where git stood when it last looked. */
export class Visits {
  visit: Visit | null = null;
  private frozen: FrozenLog | null = null;
  private key = '';

  constructor(
    private readonly l: Layout,
    private readonly repo: GitRepo | null,
  ) {}

  /**
   * Look for the first layout (`again`: whatever git did since the last look), putting its
   * read-only log among `logs` or taking it out. Returns whether that log changed.
   * `localEmpty`: this clone has no local log yet (FrozenLog.read).
   */
  look(logs: Map<string, LogFile>, localEmpty: () => boolean, again: boolean): boolean {
    // Only git brings or takes the first layout away, moving HEAD or the index as it does.
    const key = this.repo ? `${headOf(this.repo)} ${indexSignature(this.repo)}` : '';
    if (!again && key === this.key) return false;
    this.key = key;
    this.visit = visitOf(this.l, this.repo);
    const next = this.visit ? FrozenLog.read(this.l, localEmpty()) : null;
    const prev = this.frozen;
    if (prev) logs.delete(prev.name);
    if (next) logs.set(next.name, next);
    this.frozen = next;
    return prev?.name !== next?.name;
  }
}
