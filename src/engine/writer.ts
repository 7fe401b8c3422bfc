/**
 * Writing projection files. Rewrites go through a temporary file and a rename so a reader
 * never sees half a file; appends extend commit.md. Projections are caches of the logs, so
 * they are not fsynced: a crash leaves them behind, and the next open rebuilds them.
 * Signatures of main.md and metadata.yaml as gctx last wrote them, kept in the checkpoint,
 * tell a person's edits (anything on disk that changed since) from gctx's own writes.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { FileWrite } from '../projections/files.js';
import { assertNoSymlink, type Layout } from '../store/paths.js';
import { overwriteText, replaceText, sameText, type Text } from '../store/text-file.js';

export function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

function signature(path: string): string | null {
  try {
    const st = statSync(path);
    return `${st.size}:${st.mtimeMs}:${st.ino}`;
  } catch {
    return null;
  }
}

/** What the checkpoint file holds; see ProjectionWriter. */
interface Checkpoint {
  stamp: string | null;
  /** Signatures (size, mtime, inode) of main.md and metadata.yaml as gctx last wrote or checked them. */
  seen: Record<string, string>;
}

export class ProjectionWriter {
  private readonly madeDirs = new Set<string>();
  private cp: Checkpoint | null = null;
  /** What this process last wrote to the checkpoint. */
  private lastCheckpoint: string | null = null;
  constructor(private readonly l: Layout) {}

  /**
   * The checkpoint as last read, or written by this process. Signatures tell a file gctx
   * wrote (or checked) and nobody touched since from one a person or a tool changed, without
   * reading it: a fresh process skips reading and rendering main.md and metadata.yaml in the
   * common case, the one short-lived hooks hit. Any rewrite changes the inode or the mtime.
   */
  private current(): Checkpoint {
    this.cp ??= this.readCheckpointFile();
    return this.cp;
  }

  isSeen(path: string): boolean {
    const sig = signature(path);
    return sig !== null && this.current().seen[basename(path)] === sig;
  }

  /** Remember a file's signature; it is saved with the next checkpoint. */
  markSeen(path: string): void {
    const map = this.current().seen;
    const sig = signature(path);
    if (sig === null) delete map[basename(path)];
    else map[basename(path)] = sig;
  }

  private ensureDir(dir: string): void {
    if (this.madeDirs.has(dir)) return;
    assertNoSymlink(this.l.root, dir);
    mkdirSync(dir, { recursive: true });
    this.madeDirs.add(dir);
  }

  apply(writes: Map<string, FileWrite>): void {
    const checked = new Set<string>();
    for (const [path, w] of writes) {
      this.ensureDir(dirname(path));
      assertNoSymlink(this.l.root, path, checked); // an append would follow a link out of the tree
      if (w.kind === 'write') {
        replaceText(path, w.content);
      } else if (!existsSync(path)) {
        replaceText(path, w.create + w.content);
      } else if (w.content) {
        appendFileSync(path, w.content);
      }
    }
  }

  /** Write only the files whose content differs; returns the paths written. */
  applyFull(files: Map<string, Text>): string[] {
    const written: string[] = [];
    const checked = new Set<string>();
    for (const [path, content] of files) {
      assertNoSymlink(this.l.root, path, checked);
      if (!sameText(path, content)) {
        this.ensureDir(dirname(path));
        replaceText(path, content);
        written.push(path);
      }
    }
    return written;
  }

  /** Whether a signature of the file is on record (none before the first checkpoint). */
  hasSeen(path: string): boolean {
    return basename(path) in this.current().seen;
  }

  /**
   * What the projections were last written for (the state's stamp), with the signatures.
   * One small write per operation, in place: a torn checkpoint reads as none, which only
   * makes the next open rebuild the projections.
   */
  checkpoint(stamp: string): void {
    const cp = this.current();
    cp.stamp = stamp;
    const text = JSON.stringify(cp);
    if (text === this.lastCheckpoint) return; // unchanged since this process wrote it
    this.ensureDir(this.l.cache);
    overwriteText(join(this.l.cache, 'checkpoint'), text);
    this.lastCheckpoint = text;
  }

  /**
   * Read the checkpoint afresh (another process may have written it since): called at the
   * start of every operation under the lock, it also drops anything unsaved of this one.
   */
  readCheckpoint(): string | null {
    this.cp = this.readCheckpointFile();
    return this.cp.stamp;
  }

  private readCheckpointFile(): Checkpoint {
    try {
      const c = JSON.parse(readFileSync(join(this.l.cache, 'checkpoint'), 'utf8')) as Partial<Record<keyof Checkpoint, unknown>>;
      const map = (v: unknown) => (v && typeof v === 'object' ? { ...(v as Record<string, string>) } : {});
      return { stamp: typeof c.stamp === 'string' ? c.stamp : null, seen: map(c.seen) };
    } catch {
      return { stamp: null, seen: {} };
    }
  }
}
