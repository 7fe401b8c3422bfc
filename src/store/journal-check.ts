/**
 * The work tree held against the journal (journal.ts) on open. The cheap look (sizes, and the
 * ledger's signatures) asks no git; only when an own log is missing, shorter or different is git
 * asked, in a few batched calls, who did it:
 *
 *   - HEAD's history removed the segment (a revert, a committed `git rm`): it stays removed;
 *   - a branch, tag or remote-tracking ref holds it (a checkout of a line without it): absent
 *     here, as the code is; the copy waits;
 *   - a stash holds it (`git stash -u`): read from the copy until the stash is popped or
 *     dropped, never written back (that would make the pop fail);
 *   - anything else (a work-tree command, an editor, an archive, a reset): restored from the copy.
 */
import { crypto } from '../runtime/lazy-deps.js';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse } from '../log/codec.js';
import { hasConflictMarkers } from '../log/conflict.js';
import { gitPath, midOperation, runGit } from './git-probe.js';
import { type Journal, writeDurably } from './journal.js';
import { signatureOf } from './log-meta.js';
import { assertNoSymlink, type Layout } from './paths.js';
import { recordSetAside, setAsideNames } from './set-aside.js';
import type { GitRepo } from './git-probe.js';
import type { Ledger } from './ledger.js';

const REFS = ['refs/heads', 'refs/remotes', 'refs/tags'];

/** What the check needs of the store. */
export interface JournalOwner {
  readonly layout: Layout;
  readonly repo: GitRepo | null;
  readonly journal: Journal | null;
  ledger: Ledger;
  /** Segments read from their copy while a stash holds them. */
  readonly fromJournal: Set<string>;
}

/** A journal copy holding more sealed segments than this is looked at for trimming on open. */
const TRIM_AFTER = 8;

const workPath = (s: JournalOwner, name: string) => (name === 'local' ? s.layout.localLog : s.layout.segment(name));

function readOrNull(path: string): Buffer | null {
  try {
    return readFileSync(path);
  } catch {
    return null;
  }
}

/** The own logs whose work-tree file is not its copy, found without reading a file when nothing changed. */
export function differences(s: JournalOwner): string[] {
  if (!s.journal) return [];
  const out: string[] = [];
  for (const name of s.journal.names()) {
    const path = workPath(s, name);
    let size: number | null = null;
    try {
      size = statSync(path).size;
    } catch {
      /* missing */
    }
    const copy = s.journal.size(name);
    if (size === null || size !== copy) {
      out.push(name);
      continue;
    }
    const entry = s.ledger.logs[name];
    if (entry && entry.size === size && entry.sig && signatureOf(path) === entry.sig) continue;
    if (!readOrNull(path)?.equals(s.journal.read(name) ?? Buffer.alloc(0))) out.push(name);
  }
  return out;
}

/** Whether the journal holds enough sealed copies to look for ones git now holds for good. */
export function wantsTrim(s: JournalOwner): boolean {
  if (!s.journal) return false;
  return s.journal.names().filter((n) => n !== 'local' && n !== s.ledger.open).length > TRIM_AFTER;
}

/** What git says of one path. */
interface Facts {
  head: string | null;
  index: string | null;
  /** The newest commit HEAD's history has that touched it. */
  touchedBy: string | null;
  otherRef: boolean;
  stash: boolean;
  /** Blob ids the remote-tracking refs (or, with no remote, the local branches) hold at their tips. */
  kept: Set<string>;
}

/** The id git gives a blob of these bytes (sha1, or sha256 when the repository uses it). */
function blobId(bytes: Buffer, long: boolean): string {
  return crypto()
    .createHash(long ? 'sha256' : 'sha1')
    .update(`blob ${bytes.length}\0`)
    .update(bytes)
    .digest('hex');
}

/** Git's answers for every path at once: four git processes whatever their number. Null when git cannot tell. */
function askGit(root: string, rels: readonly string[]): Map<string, Facts> | null {
  try {
    const refs = runGit(root, ['for-each-ref', '--format=%(objectname) %(refname)', ...REFS])
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split(' ') as [string, string]);
    const head = (() => {
      try {
        return runGit(root, ['rev-parse', '--verify', '-q', 'HEAD']).trim();
      } catch {
        return '';
      }
    })();
    let stashes: string[] = [];
    try {
      stashes = runGit(root, ['log', '-g', '--format=%H', 'refs/stash']).split('\n').filter(Boolean);
    } catch {
      /* no stash */
    }
    const remotes = refs.filter(([, r]) => r.startsWith('refs/remotes/') && !r.endsWith('/HEAD'));
    const branches = refs.filter(([, r]) => r.startsWith('refs/heads/'));
    const keepers = (remotes.length ? remotes : branches).map(([sha]) => sha);
    const others = refs.filter(([sha]) => sha !== head).map(([sha]) => sha);
    const lines: [string, keyof Facts | 'kept', string][] = [];
    for (const rel of rels) {
      if (head) lines.push([rel, 'head', `HEAD:./${rel}`]);
      lines.push([rel, 'index', `:./${rel}`]);
      for (const sha of new Set(others)) lines.push([rel, 'otherRef', `${sha}:./${rel}`]);
      for (const s of stashes) {
        for (const part of [`${s}^3`, s, `${s}^2`]) lines.push([rel, 'stash', `${part}:./${rel}`]);
      }
      for (const sha of new Set(keepers)) lines.push([rel, 'kept', `${sha}:./${rel}`]);
    }
    const none = (): Facts => ({
      head: null,
      index: null,
      touchedBy: null,
      otherRef: false,
      stash: false,
      kept: new Set<string>(),
    });
    const out = new Map<string, Facts>(rels.map((r) => [r, none()]));
    if (lines.length) {
      const input = lines.map(([, , q]) => `${q}\n`).join('');
      const answers = runGit(root, ['cat-file', '--batch-check'], input).split('\n');
      lines.forEach(([rel, what], i) => {
        const m = /^([0-9a-f]+) blob \d+$/.exec(answers[i] ?? '');
        if (!m) return;
        const f = out.get(rel)!;
        if (what === 'head') f.head = m[1]!;
        else if (what === 'index') f.index = m[1]!;
        else if (what === 'otherRef') f.otherRef = true;
        else if (what === 'stash') f.stash = true;
        else f.kept.add(m[1]!);
      });
    }
    if (head) {
      // --full-history: a merge whose first parent never had the file still shows the side that removed it.
      const args = ['log', '--full-history', '--relative', '--format=%x00%H', '--name-only', 'HEAD', '--', ...rels];
      const log = runGit(root, args);
      for (const block of log.split('\0').filter(Boolean)) {
        const [sha, ...names] = block.split('\n').filter(Boolean);
        for (const n of names) {
          const f = out.get(n);
          if (f && f.touchedBy === null) f.touchedBy = sha!;
        }
      }
    }
    return out;
  } catch {
    return null;
  }
}

/** Reflog entries that make a commit here (not a checkout, reset, pull or fetch that only moves to one). */
const MADE_HERE = /^(commit|cherry-pick|revert|am)\b|^rebase[^:]*\((pick|reword|edit|squash|fixup|continue)\)/;

/**
 * Who put `blob` at `rel` in HEAD's history: the abbreviated commit when it was made in another
 * clone (pulled, merged or fetched here), null when this clone made it. The newest commit in
 * HEAD's history that wrote this blob is held against every reflog's entries that made a commit
 * here; a repository keeping no reflog is judged by the committer's email instead.
 */
function broughtBy(root: string, rel: string, blob: string): string | null {
  try {
    const args = ['log', '--full-history', '--no-abbrev', '--raw', '--format=%x00%H %ce', 'HEAD', '--', rel];
    const found = runGit(root, args)
      .split('\0')
      .filter(Boolean)
      .map((block) => block.split('\n').filter(Boolean));
    const hit = found.find(([, ...raw]) => raw.some((l) => l.split(' ')[3] === blob)) ?? found[0];
    if (!hit) return null;
    const [commit, email] = hit[0]!.split(' ') as [string, string];
    const made = runGit(root, ['log', '-g', '--all', '--format=%H %gs'])
      .split('\n')
      .filter(Boolean)
      .map((l) => [l.slice(0, l.indexOf(' ')), l.slice(l.indexOf(' ') + 1)] as const);
    if (made.length === 0) {
      const mine = runGit(root, ['config', 'user.email']).trim();
      return email === mine ? null : commit.slice(0, 7);
    }
    return made.some(([sha, why]) => sha === commit && MADE_HERE.test(why)) ? null : commit.slice(0, 7);
  } catch {
    return null;
  }
}

const eventsIn = (bytes: Buffer): number => {
  try {
    return parse(bytes, 'journal', 0, false).events.length;
  } catch {
    return 0;
  }
};
const plural = (n: number) => `${n} event${n === 1 ? '' : 's'}`;

/**
 * Bring the work tree in line with the journal for `names` (from differences), and trim copies
 * git now holds for good. Under the lock; `write` false (a long-lived process reading without
 * it): only which own logs are read from their copy is decided, nothing written or said.
 * Returns what the user is told.
 */
export function reconcileJournal(
  s: JournalOwner,
  names: string[],
  trim: boolean,
  now: Date,
  write = true,
): { said: string[]; ledgerChanged: boolean } {
  const j = s.journal!;
  const said: string[] = [];
  let ledgerChanged = false;
  const root = s.layout.root;
  // Set aside earlier as a teammate's change to this clone's segment, and still that file: read from the copy.
  // Every own log is decided again: one that no longer differs from its copy is read where it is.
  s.fromJournal.clear();
  const aside = setAsideNames(s.layout);
  for (const name of names) if (aside.has(name) && j.size(name) != null) s.fromJournal.add(name);
  names = names.filter((n) => !s.fromJournal.has(n));
  trim &&= write;
  const segments = trim ? j.names().filter((n) => n !== 'local') : names.filter((n) => n !== 'local');
  const facts =
    s.repo && segments.length
      ? askGit(
          root,
          segments.map((n) => gitPath(root, workPath(s, n))),
        )
      : null;
  const long = [...(facts?.values() ?? [])].some((f) => (f.head ?? f.index ?? '').length === 64);
  // Read from its copy, not written back; what is recorded meanwhile goes to a new segment (git has seen this one).
  const readFromCopy = (name: string) => {
    s.fromJournal.add(name);
    if (s.ledger.open !== name || !write) return;
    s.ledger.open = null;
    ledgerChanged = true;
  };
  for (const name of names) {
    const path = workPath(s, name);
    const rel = gitPath(root, path);
    const copy = j.read(name);
    if (!copy) continue;
    const work = readOrNull(path);
    if (work?.equals(copy)) continue;
    // Grown past the copy: what was acknowledged is all there; what follows is the check's to judge.
    if (work && work.length > copy.length && work.subarray(0, copy.length).equals(copy)) continue;
    // Conflict markers (two copies of one clone merged): resolved by union, which keeps both sides.
    if (work && hasConflictMarkers(work.toString('utf8'))) continue;
    const f = name === 'local' ? null : (facts?.get(rel) ?? null);
    if (f && !work) {
      if (f.touchedBy && !f.head && !f.index) {
        if (!write) continue;
        j.drop(name);
        if (s.ledger.logs[name]) delete s.ledger.logs[name];
        if (s.ledger.open === name) s.ledger.open = null;
        ledgerChanged = true;
        const by = f.touchedBy.slice(0, 7);
        said.push(`${rel} was removed by commit ${by}: ${plural(eventsIn(copy))} no longer in memory`);
        continue;
      }
      // A merge, revert or cherry-pick stopped on a conflict took it: read, not written back, until git finishes.
      if (s.repo && midOperation(s.repo)) {
        readFromCopy(name);
        continue;
      }
      if (f.otherRef) continue; // committed on another line: memory follows the code
      // A stash's tree holds every tracked file: it took the segment only if HEAD does not hold it.
      if (f.stash && !f.head) {
        readFromCopy(name);
        continue;
      }
    }
    if (f && work && f.head === blobId(work, long)) {
      const by = broughtBy(root, rel, f.head);
      if (by) {
        // A commit made elsewhere (pulled) changed this clone's events:
        // ours are read from the copy, theirs left unread.
        readFromCopy(name);
        if (!write) continue;
        const why =
          `commit ${by} from another clone changed this clone's events in it; ` +
          `this clone's ${plural(eventsIn(copy))} in it are read from its journal`;
        const told = recordSetAside(s.layout, name, why, now);
        if (told) said.push(told);
        continue;
      }
      if (!copy.subarray(0, work.length).equals(work)) {
        // A checkout or reset of this clone's own history put other bytes there: git's truth.
        if (write) j.replace(name, work);
        continue;
      }
    }
    if (!write) {
      readFromCopy(name); // until an operation under the lock restores it
      continue;
    }
    // A file that is only short of the copy (cut, or torn by a crash) holds nothing to keep.
    if (work && !copy.subarray(0, work.length).equals(work)) {
      const stamp = now.toISOString().replace(/[:.]/g, '-');
      const kept = join(s.layout.quarantine, `${name.replaceAll('/', '__')}-${stamp}-${process.pid}.damaged`);
      assertNoSymlink(root, kept);
      mkdirSync(s.layout.quarantine, { recursive: true });
      writeFileSync(kept, work, { flag: 'wx' });
    }
    assertNoSymlink(root, path);
    mkdirSync(dirname(path), { recursive: true });
    writeDurably(path, copy);
    const cut = work !== null && copy.subarray(0, work.length).equals(work);
    const damaged = 'damaged (the damaged file is in .GCC/quarantine/)';
    const was = !work ? 'missing' : cut ? 'cut short' : damaged;
    const forget = '`gctx forget` removes memory on purpose';
    const from = "from this clone's journal in git's folder";
    said.push(`restored ${rel} (${plural(eventsIn(copy))}) ${from}: it was ${was} (${forget})`);
  }
  if (trim && facts) {
    for (const name of segments) {
      if (name === s.ledger.open || s.fromJournal.has(name)) continue;
      const copy = j.read(name);
      const f = facts.get(gitPath(root, workPath(s, name)));
      if (copy && f?.kept.has(blobId(copy, long))) j.drop(name);
    }
  }
  return { said, ledgerChanged };
}
