/**
 * Writing projection files. Rewrites go through a temporary file and a rename so a reader
 * never sees half a file; appends extend commit.md. Projections are caches of the logs, so
 * they are not fsynced: a crash leaves them behind, and the next open rebuilds them.
 * The `.cache/` copies of main.md and metadata.yaml are the base for spotting a person's
 * edits (anything on disk that differs from what gctx last wrote).
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { FileWrite } from '../projections/files.js';
import { assertNoSymlink, type Layout } from '../store/paths.js';
import { joined, sameText, type Text, writeTextAtomic } from '../store/text-file.js';

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

export class ProjectionWriter {
  private readonly madeDirs = new Set<string>();
  private seen: Record<string, string> | null = null;
  /** What this process last wrote to the checkpoint. */
  private lastCheckpoint: string | null = null;
  constructor(private readonly l: Layout) {}

  /**
   * Signatures (size, mtime, inode) of main.md and metadata.yaml as gctx last wrote or
   * checked them, kept in the checkpoint so a fresh process can skip reading and rendering
   * both when nobody touched them — the common case, and the one short-lived hooks hit.
   * A stale entry only costs a read: any rewrite changes the inode or the mtime.
   */
  private seenMap(): Record<string, string> {
    if (this.seen === null) this.seen = this.readCheckpointFile()?.seen ?? {};
    return this.seen;
  }

  isSeen(path: string): boolean {
    const sig = signature(path);
    return sig !== null && this.seenMap()[basename(path)] === sig;
  }

  /** Remember a file's signature; it is saved with the next checkpoint. */
  markSeen(path: string): void {
    const map = this.seenMap();
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
        writeTextAtomic(path, w.content);
        if (path === this.l.mainMd || path === this.l.metadata) this.saveBase(path, w.content);
      } else if (!existsSync(path)) {
        writeTextAtomic(path, w.create + w.content);
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
        writeTextAtomic(path, content);
        written.push(path);
      }
      if (path === this.l.mainMd || path === this.l.metadata) this.saveBase(path, joined(content));
    }
    return written;
  }

  basePath(path: string): string {
    return join(this.l.cache, basename(path));
  }

  /**
   * The base is written in place, without a temp file and rename: it is written before the
   * checkpoint, so a crash that tears it also leaves the checkpoint behind, and the next
   * open then rebuilds from the logs without reading any base.
   */
  saveBase(path: string, content: string): void {
    const base = this.basePath(path);
    this.ensureDir(this.l.cache);
    assertNoSymlink(this.l.root, base);
    writeFileSync(base, content);
  }

  readBase(path: string): string | null {
    assertNoSymlink(this.l.root, this.basePath(path));
    return readText(this.basePath(path));
  }

  /**
   * What the projections were last written for (the state's stamp), with the signatures of
   * main.md and metadata.yaml. One small write per operation, no rename: a torn checkpoint
   * reads as none, which only makes the next open rebuild the projections.
   */
  checkpoint(stamp: string): void {
    const text = JSON.stringify({ stamp, seen: this.seenMap() });
    if (text === this.lastCheckpoint) return; // unchanged since this process wrote it
    this.ensureDir(this.l.cache);
    writeFileSync(join(this.l.cache, 'checkpoint'), text);
    this.lastCheckpoint = text;
  }

  readCheckpoint(): string | null {
    return this.readCheckpointFile()?.stamp ?? null;
  }

  private readCheckpointFile(): { stamp: string; seen: Record<string, string> } | null {
    try {
      const c = JSON.parse(readFileSync(join(this.l.cache, 'checkpoint'), 'utf8')) as { stamp?: unknown; seen?: unknown };
      if (typeof c.stamp !== 'string') return null;
      return { stamp: c.stamp, seen: c.seen && typeof c.seen === 'object' ? (c.seen as Record<string, string>) : {} };
    } catch {
      return null;
    }
  }
}
