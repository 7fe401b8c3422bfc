/**
 * Writing the views — main.md, metadata.yaml, and each branch's commit.md, log.md and
 * summary.md — generated here from the logs and never committed. Rewrites go through a
 * temporary file and a rename so a reader never sees half a file; commit.md and log.md grow
 * by appends. Views are caches, so they are not fsynced: the checkpoint records which state
 * they reflect, and an open that finds it behind rebuilds them. It is kept in the ledger and
 * written with an operation's acknowledgement, after the views (Store.oneLedgerWrite).
 *
 * Signatures of main.md and metadata.yaml as gctx last wrote them, kept in the checkpoint,
 * tell a person's edits (anything on disk that changed since) from gctx's own writes.
 */
import { closeSync, constants, mkdirSync, openSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { displayLabel, type MemoryState } from '../decider/state.js';
import { type EventOf, type GccEvent, isLocalType, MAIN } from '../events/types.js';
import type { FileWrite } from '../projections/files.js';
import { commitHeader, renderCommit } from '../projections/render-commit.js';
import { logEntry, logHeader, shownOf } from '../projections/render-log.js';
import { renderMain } from '../projections/render-main.js';
import { renderMetadata } from '../projections/render-metadata.js';
import { renderSummary } from '../projections/render-summary.js';
import { signatureOf } from '../store/log-meta.js';
import { assertNoSymlink, type Layout, openNoFollow } from '../store/paths.js';
import { freshText, replaceText, sameText, writePieces } from '../store/text-file.js';
import { removeGoneViews } from './branch-views.js';

/** What the checkpoint file holds. */
interface Checkpoint {
  stamp: string | null;
  /** Signatures of main.md and metadata.yaml as gctx last wrote or checked them. */
  seen: Record<string, string>;
}

/**
 * Where the checkpoint is kept: the ledger (Store.views, Store.saveViews), written with the operation's
 * acknowledgement.
 */
interface CheckpointStore {
  views(): Record<string, unknown> | null;
  saveViews(views: Record<string, unknown>): void;
}

export class ViewWriter {
  private cp: Checkpoint | null = null;
  /** What the store held when the checkpoint was last read or saved here: another object means another writer's. */
  private held: Record<string, unknown> | null | undefined;
  private lastCheckpoint: string | null = null;

  constructor(
    private readonly l: Layout,
    private readonly store: CheckpointStore,
  ) {}

  private current(): Checkpoint {
    const held = this.store.views();
    if (!this.cp || held !== this.held) {
      this.cp = parseCheckpoint(held);
      this.held = held;
      this.lastCheckpoint = null;
    }
    return this.cp;
  }

  /** Whether the file is as gctx last wrote or checked it. `sig`: its signature, when just taken. */
  isSeen(path: string, sig = signatureOf(path)): boolean {
    return sig !== null && this.current().seen[basename(path)] === sig;
  }

  hasSeen(path: string): boolean {
    return Object.hasOwn(this.current().seen, basename(path));
  }

  /** Remember a file's signature; it is saved with the next checkpoint. */
  markSeen(path: string): void {
    const map = this.current().seen;
    const sig = signatureOf(path);
    if (sig === null) delete map[basename(path)];
    else map[basename(path)] = sig;
  }

  /** `checked`: folders found real earlier in the same operation, under the lock. */
  ensureDir(dir: string, checked?: Set<string>): void {
    assertNoSymlink(this.l.root, dir, checked);
    mkdirSync(dir, { recursive: true });
  }

  /**
   * Write a batch's views. `checked`: folders found real earlier in the same operation, under
   * the lock. Returns the views that should have been there to append to and were not: the
   * caller rebuilds them from the logs.
   */
  apply(writes: ReadonlyMap<string, FileWrite>, checked = new Set<string>()): Extract<FileWrite, { kind: 'append' }>[] {
    const missing: Extract<FileWrite, { kind: 'append' }>[] = [];
    for (const [path, w] of writes) {
      this.ensureDir(dirname(path), checked);
      if (w.kind === 'write') {
        assertNoSymlink(this.l.root, path, checked);
        replaceText(path, w.content);
      } else {
        assertNoSymlink(this.l.root, path, checked, false);
        if (!this.appendOrCreate(path, w.create, w.content)) missing.push(w);
      }
    }
    return missing;
  }

  /**
   * Append to a view that exists (opened without following a link), or create it whole from
   * `create`. False when it is missing and has no `create`.
   */
  private appendOrCreate(path: string, create: string | null, content: string): boolean {
    let fd: number;
    try {
      fd = openNoFollow(this.l.root, path, constants.O_WRONLY | constants.O_APPEND);
    } catch (err) {
      if ((err as { code?: string }).code !== 'ENOENT') throw err;
      if (create === null) return false;
      replaceText(path, create + content);
      return true;
    }
    try {
      const buf = Buffer.from(content, 'utf8');
      for (let off = 0; off < buf.length; ) off += writeSync(fd, buf, off, buf.length - off);
    } finally {
      closeSync(fd);
    }
    return true;
  }

  /** Write a file unless it already holds exactly this; returns whether it wrote. */
  put(path: string, text: string): boolean {
    assertNoSymlink(this.l.root, path);
    if (sameText(path, text)) return false;
    this.ensureDir(dirname(path));
    // main.md and metadata.yaml are read back as a person's edits: replaced whole, never seen half.
    if (path === this.l.mainMd || path === this.l.metadata) replaceText(path, text);
    else freshText(path, text);
    return true;
  }

  /** main.md, metadata.yaml and every branch's summary.md, from the state. */
  writeSmall(state: MemoryState): string[] {
    const written: string[] = [];
    if (this.put(this.l.mainMd, renderMain(state))) written.push(this.l.mainMd);
    if (this.put(this.l.metadata, renderMetadata(state))) written.push(this.l.metadata);
    for (const b of Object.values(state.branches)) {
      if (b.name === MAIN || b.life === 'unborn') continue;
      const path = this.l.summaryOf(b.name);
      if (this.put(path, renderSummary(b))) written.push(path);
    }
    this.markSeen(this.l.mainMd);
    this.markSeen(this.l.metadata);
    return written;
  }

  /**
   * A branch's commit.md from its commits, labels as readers see them: `feed` hands each
   * commit, in id order, to `add`. Written in pieces through a temporary file, so a branch of
   * a hundred thousand commits is never held, and put in place as replaceText does.
   */
  writeCommits(state: MemoryState, branch: string, feed: (add: (e: EventOf<'commit.recorded'>) => void) => void): void {
    const b = state.branches[branch];
    const path = this.l.commitOf(branch);
    assertNoSymlink(this.l.root, path);
    this.ensureDir(dirname(path));
    writePieces(
      path,
      (put) => {
        put(commitHeader(branch));
        feed((e) => put(renderCommit(e, displayLabel(b, e.data.label, e.data.id))));
      },
      undefined,
      true,
    );
  }

  /** A branch's log.md from its latest events (id order). */
  writeLog(state: MemoryState, branch: string, latest: readonly GccEvent[]): void {
    const shown = shownOf(state.branches[branch]?.logged ?? latest.length);
    this.put(this.l.logOf(branch), logHeader(branch) + latest.slice(-shown).map(logEntry).join(''));
  }

  /**
   * Record what the views were last written for (the state's stamp), with the signatures: in
   * the ledger, with the operation's acknowledgement when it appends.
   */
  checkpoint(stamp: string): void {
    const cp = this.current();
    cp.stamp = stamp;
    const text = JSON.stringify(cp);
    if (text === this.lastCheckpoint) return;
    const saved = { stamp: cp.stamp, seen: { ...cp.seen } };
    this.store.saveViews(saved);
    this.held = saved;
    this.lastCheckpoint = text;
  }

  /** The stamp of the views as the checkpoint on disk says (another process may have written it since). */
  readCheckpoint(): string | null {
    return this.current().stamp;
  }
}

function parseCheckpoint(c: Record<string, unknown> | null): Checkpoint {
  const seen = Object.create(null) as Record<string, string>;
  if (c && c.seen && typeof c.seen === 'object')
    for (const [k, v] of Object.entries(c.seen)) if (typeof v === 'string') seen[k] = v;
  return { stamp: c && typeof c.stamp === 'string' ? c.stamp : null, seen };
}

/**
 * Every view of a memory rebuilt from its events, fed in id order as a replay streams them:
 * each open branch keeps a ring of its latest log entries and its commit.md as it grows, in
 * memory until it passes 64 KiB and in a temporary file after (the history is never held),
 * both settled when the branch closes (its merge or abandon is its last event), so memory holds
 * what the branches still open have pending, not the history, nor anything per closed branch
 * but its name. A view that comes out as the file already holds is not written at all (a
 * `gctx replay` over current views writes next to nothing); a commit arriving after its
 * branch's close has that commit.md rebuilt on its own. `finish` moves everything into place.
 */
export class FullRebuild {
  private readonly dir: string;
  /**
   * Per branch with commits: its commit.md not yet written, and once spilled its temporary file (open while fd ≥ 0);
   * `same` once it closed as the file on disk already was.
   */
  private readonly commitFiles = new Map<string, { text: string; tmp: string | null; fd: number; same: boolean }>();
  private readonly rings = new Map<string, GccEvent[]>();
  private readonly counts = new Map<string, number>();
  /** Branches whose log view was settled when they closed: its temporary file, '' when the file on disk was current. */
  private readonly written = new Map<string, string>();
  /** Branches with events after their log view was written (a union can do that): rebuilt on their own. */
  private readonly late = new Set<string>();
  /** Branches with commits after their commit.md was found current: rebuilt on their own. */
  private readonly lateCommits = new Set<string>();
  private spills = 0;

  constructor(
    private readonly l: Layout,
    private readonly ring: number,
  ) {
    this.dir = join(l.cache, `rebuild-${process.pid}`);
    rmSync(this.dir, { recursive: true, force: true });
    mkdirSync(this.dir, { recursive: true });
  }

  add(e: GccEvent): void {
    if (isLocalType(e.type)) return; // a clone's own moves are in no view
    const n = (this.counts.get(e.branch) ?? 0) + 1;
    this.counts.set(e.branch, n);
    if (this.written.has(e.branch)) this.late.add(e.branch);
    else {
      let r = this.rings.get(e.branch);
      if (!r) this.rings.set(e.branch, (r = []));
      r.push(e);
      if (r.length > this.ring) r.shift();
      if ((e.type === 'branch.merged' || e.type === 'branch.abandoned') && e.data.branch === e.branch) {
        this.closeLog(e.branch, n, r);
        this.closeCommits(e.branch);
      }
    }
    if (e.type !== 'commit.recorded') return;
    let f = this.commitFiles.get(e.branch);
    if (!f) this.commitFiles.set(e.branch, (f = { text: commitHeader(e.branch), tmp: null, fd: -1, same: false }));
    if (f.same) {
      this.lateCommits.add(e.branch);
      return;
    }
    if (f.tmp && f.fd < 0) f.fd = openSync(f.tmp, 'a');
    // Written in pieces of about 64 KiB: one system call per commit was a tenth of a replay.
    f.text += renderCommit(e);
    if (f.text.length >= 65_536) this.spill(f);
  }

  private spill(f: { text: string; tmp: string | null; fd: number }): void {
    if (!f.tmp) {
      f.tmp = join(this.dir, `c${this.spills++}.md`);
      f.fd = openSync(f.tmp, 'w');
    }
    if (f.text) writeSync(f.fd, f.text);
    f.text = '';
  }

  /** A closed branch's commit.md settled: left alone when the file holds it already, else written out so far. */
  private closeCommits(branch: string): void {
    const f = this.commitFiles.get(branch);
    if (!f || f.same || (f.tmp && f.fd < 0)) return;
    if (!f.tmp && sameText(this.l.commitOf(branch), f.text)) {
      f.same = true;
      f.text = '';
      return;
    }
    this.spill(f);
    closeSync(f.fd);
    f.fd = -1;
  }

  private closeLog(branch: string, n: number, ring: GccEvent[]): void {
    const text = logHeader(branch) + ring.slice(-shownOf(n)).map(logEntry).join('');
    let path = '';
    if (!sameText(this.l.logOf(branch), text)) {
      path = join(this.dir, `l${this.written.size}.md`);
      writeFileSync(path, text);
    }
    this.written.set(branch, path);
    this.rings.delete(branch);
  }

  /**
   * Move the views into place. Returns branches whose commit.md needs relabelling (duplicate
   * labels, or commits after it was found current) and whose log.md must be rebuilt on its own
   * (events after its close).
   */
  finish(views: ViewWriter, state: MemoryState): { relabel: string[]; relog: string[] } {
    const relabel = new Set(this.lateCommits);
    try {
      this.place(views, state, relabel);
    } finally {
      for (const f of this.commitFiles.values()) if (f.fd >= 0) closeSync(f.fd);
      rmSync(this.dir, { recursive: true, force: true });
    }
    return { relabel: [...relabel], relog: [...this.late] };
  }

  private place(views: ViewWriter, state: MemoryState, relabel: Set<string>): void {
    removeGoneViews(this.l, state);
    views.writeSmall(state);
    for (const b of Object.values(state.branches)) {
      const f = this.commitFiles.get(b.name);
      const target = this.l.commitOf(b.name);
      assertNoSymlink(this.l.root, target);
      views.ensureDir(dirname(target));
      if (!f) views.put(target, commitHeader(b.name));
      else if (f.tmp) {
        if (f.fd >= 0) this.spill(f);
        if (f.fd >= 0) closeSync(f.fd);
        f.fd = -1;
        renameSync(f.tmp, target);
      } else if (!f.same) views.put(target, f.text);
      if (f && b.dupLabels.length) relabel.add(b.name);
      const closed = this.written.get(b.name);
      if (closed && !this.late.has(b.name)) renameSync(closed, this.l.logOf(b.name));
      else if (closed === undefined)
        views.put(
          this.l.logOf(b.name),
          logHeader(b.name) + (this.rings.get(b.name) ?? []).slice(-shownOf(b.logged)).map(logEntry).join(''),
        );
    }
  }
}
