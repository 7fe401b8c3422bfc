/**
 * The journal: a copy of each of this clone's own logs (its segments and its local log) in the
 * per-worktree git dir, `<git-dir>/gcc/<16 hex>/journal/`, where no work-tree command reaches
 * (`git stash -u`, `git clean -fdx`, `git reset --hard`, `rm -rf .GCC`, an archive extracted
 * over it). Every batch is written here, with the same bytes, and fsynced before the log
 * itself: an acknowledged batch is durable in the place nothing else touches. Outside git there
 * is no journal, and the log is the only home (docs/reliability.md).
 */
import {
  closeSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { findRepo, type GitRepo } from './git-probe.js';
import { crc32 } from '../log/crc32.js';

const MONTH_DIR = /^\d{4}-\d{2}$/;

const LOCAL_FILE = 'local.md';

/** This memory's private folder in the git dir, or null outside git. */
export function privateDir(root: string, repo: GitRepo | null): string | null {
  if (!repo) return null;
  const rel = relative(repo.top, root).split(sep).join('/');
  // A CRC-32 names it: a hook that appends loads no node:crypto, and memories per work tree are few.
  return join(repo.gitDir, 'gcc', crc32(rel).toString(16).padStart(8, '0'));
}

/** Whether this clone's journal holds a copy of a log of the memory at `root` (its `.GCC/` may be gone). */
export function journalHolds(root: string, repo = findRepo(root)): boolean {
  const dir = privateDir(root, repo);
  return dir !== null && new Journal(join(dir, 'journal')).names().length > 0;
}

export class Journal {
  constructor(readonly dir: string) {}

  /** The copy of a log (a segment name, or `local` for the local log). */
  pathOf(name: string): string {
    return name === 'local' ? join(this.dir, LOCAL_FILE) : join(this.dir, ...name.split('/'));
  }

  /** The logs the journal holds a copy of. */
  names(): string[] {
    const out: string[] = [];
    let top: string[];
    try {
      top = readdirSync(this.dir);
    } catch {
      return out;
    }
    for (const entry of top.sort()) {
      if (entry === LOCAL_FILE) out.push('local');
      else if (MONTH_DIR.test(entry)) {
        try {
          const files = readdirSync(join(this.dir, entry)).sort();
          for (const f of files) if (/^[^.].*\.md$/.test(f)) out.push(`${entry}/${f}`);
        } catch {
          /* gone meanwhile */
        }
      }
    }
    return out;
  }

  size(name: string): number | null {
    try {
      return statSync(this.pathOf(name)).size;
    } catch {
      return null;
    }
  }

  read(name: string): Buffer | null {
    try {
      return readFileSync(this.pathOf(name));
    } catch {
      return null;
    }
  }

  /**
   * The batch `buf`, to be appended to `log` at offset `at`, written to the copy first and
   * fsynced. A copy that holds more (a batch a crash left unacknowledged, or taken back) is cut
   * to `at` first; one that holds less (a log from before the journal, or a copy lost) is made
   * again from the log's first `at` bytes.
   */
  append(name: string, log: string, at: number, buf: Buffer): void {
    const path = this.pathOf(name);
    mkdirSync(dirname(path), { recursive: true });
    const fd = openSync(path, 'a+');
    try {
      const size = fstatSync(fd).size;
      if (size !== at) {
        closeSync(fd);
        const head = at === 0 ? Buffer.alloc(0) : readFileSync(log).subarray(0, at);
        this.replace(name, Buffer.concat([size > at ? readFileSync(path).subarray(0, at) : head, buf]));
        return;
      }
      for (let off = 0; off < buf.length; ) off += writeSync(fd, buf, off, buf.length - off);
      fsyncSync(fd);
    } finally {
      try {
        closeSync(fd);
      } catch {
        /* closed above */
      }
    }
  }

  /** The copy cut back to `size` (a batch taken back, a torn tail set aside). */
  truncate(name: string, size: number): void {
    try {
      const fd = openSync(this.pathOf(name), 'r+');
      try {
        if (fstatSync(fd).size > size) {
          ftruncateSync(fd, size);
          fsyncSync(fd);
        }
      } finally {
        closeSync(fd);
      }
    } catch {
      /* no copy */
    }
  }

  /** The copy replaced whole, durably. */
  replace(name: string, bytes: Buffer): void {
    const path = this.pathOf(name);
    mkdirSync(dirname(path), { recursive: true });
    writeDurably(path, bytes);
  }

  drop(name: string): void {
    rmSync(this.pathOf(name), { force: true });
  }
}

/** `bytes` at `path` by a rename of a fsynced temporary file: never half written. */
export function writeDurably(path: string, bytes: Buffer): void {
  const tmp = `${path}.tmp-${process.pid}`;
  const fd = openSync(tmp, 'w');
  try {
    for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off, bytes.length - off);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}
