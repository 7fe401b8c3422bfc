/**
 * Whether the files a milestone cites changed since it was recorded. COMMIT keeps each cited
 * file's git blob (engine/git-files.ts); a read hashes the file as it is now the way git
 * would (`blob <size>\0` + bytes, SHA-1 or SHA-256 by the blob's length) and compares, so an
 * unchanged file costs a `stat` and no git at all. Only for the files that changed does git
 * run, once per read (`git cat-file --batch` with every old blob the read needs), to count
 * the lines changed. Both what a file hashed to (keyed by its stat signature) and the counts
 * between two blobs (which never change) are kept in `.GCC/.local/cache/stale.json`.
 *
 * A cited path is untrusted (it comes from a log): only a plain relative path under the
 * project is looked at, a link is hashed as git hashes one (its target), and nothing is
 * followed out of the project. Limits (docs/stale.md): a rename reads as a deletion, a file
 * with git's clean filters (LFS, `eol` conversion beyond CRLF) may read as changed, and a
 * file outside git has no blob and is never checked.
 */
import { lstatSync, mkdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { FileChange } from '../events/types.js';
import { readBlobs } from '../store/git-blobs.js';
import { assertNoSymlink } from '../store/paths.js';
import { writeTextAtomic } from '../store/text-file.js';
import { crypto, diffLib } from '../runtime/lazy-deps.js';

interface StaleFile {
  path: string;
  deleted: boolean;
  /** Lines added and removed since the milestone; null when git could not tell. */
  added: number | null;
  removed: number | null;
}

/** For each list of cited files, those that changed since: one git call at most for them all. */
export type StaleCheck = (lists: readonly (readonly FileChange[])[]) => StaleFile[][];

const BLOB = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
/** Files larger than this are hashed but their lines not counted. */
const COUNT_MAX = 2 * 1024 * 1024;
const HASH_MAX = 64 * 1024 * 1024;
const EDITS_MAX = 1_000;
const CACHE_ENTRIES = 2000;
const READ_TIMEOUT_MS = 3_000;

interface Cache {
  v: 1;
  /** path\0algorithm → [stat signature, hash]. */
  files: Record<string, [string, string]>;
  /** old blob:new hash → [added, removed]. */
  counts: Record<string, [number, number]>;
}

/** A path from a log that may be read: relative, inside the project, not under .GCC/. */
export function safePath(p: string): boolean {
  if (!p || p.startsWith('/') || /^[A-Za-z]:/.test(p) || p.includes('\\') || p.includes('\0')) return false;
  const parts = p.split('/');
  return parts[0] !== '.GCC' && parts.every((x) => x !== '..' && x !== '.' && x !== '');
}

export const gitHash = (algo: string, body: Buffer): string =>
  crypto().createHash(algo).update(`blob ${body.length}\0`).update(body).digest('hex');

/**
 * The file's stat signature, and its bytes as git would store them (a link's target, a file's
 * content) read only when asked; null when absent, 'unread' when it cannot be hashed.
 */
export function statOf(root: string, path: string): { sig: string; read: () => Buffer | null } | null | 'unread' {
  let st;
  try {
    st = lstatSync(join(root, path), { bigint: true });
  } catch {
    return null;
  }
  if (!st.isSymbolicLink() && (!st.isFile() || st.size > HASH_MAX)) return 'unread';
  const read = () => {
    try {
      return st.isSymbolicLink() ? Buffer.from(readlinkSync(join(root, path))) : readFileSync(join(root, path));
    } catch {
      return null;
    }
  };
  return { sig: `${st.size}:${st.mtimeNs}:${st.ctimeNs}:${st.ino}:${st.mode}`, read };
}

function loadCache(file: string | null): Cache {
  if (file) {
    try {
      const c = JSON.parse(readFileSync(file, 'utf8')) as Cache;
      if (c && c.v === 1 && typeof c.files === 'object' && typeof c.counts === 'object') return c;
    } catch {
      /* none yet, or damaged: a cache, rebuilt */
    }
  }
  return { v: 1, files: Object.create(null), counts: Object.create(null) };
}

const trim = <T>(r: Record<string, T>): Record<string, T> => {
  const keys = Object.keys(r);
  if (keys.length <= CACHE_ENTRIES) return r;
  return Object.fromEntries(keys.slice(keys.length - CACHE_ENTRIES).map((k) => [k, r[k]!]));
};

/** Old blobs' text, from one `git cat-file --batch`; none when git fails. */
function oldTexts(root: string, blobs: readonly string[]): Map<string, Buffer> {
  try {
    return readBlobs(root, blobs, READ_TIMEOUT_MS);
  } catch {
    return new Map();
  }
}

/** Lines added and removed between two texts; null for binary files and those over COUNT_MAX. */
export function countLines(old: Buffer, now: Buffer): [number, number] | null {
  if (old.length > COUNT_MAX || now.length > COUNT_MAX || old.includes(0) || now.includes(0)) return null;
  const [x, y] = [old.toString('utf8'), now.toString('utf8')];
  // A diff past this many lines' edits costs seconds: both whole files count instead.
  const parts = diffLib().diffLines(x, y, { maxEditLength: EDITS_MAX });
  const whole = (t: string) => t.split('\n').length - (t.endsWith('\n') ? 1 : 0);
  if (!parts) return [whole(y), whole(x)];
  let added = 0;
  let removed = 0;
  for (const part of parts) {
    if (part.added) added += part.count ?? 0;
    else if (part.removed) removed += part.count ?? 0;
  }
  return [added, removed];
}

/** A checker for the project at `root`, caching under `cacheDir` (null: no cache). */
export function staleChecker(root: string, cacheDir: string | null): StaleCheck {
  const file = cacheDir ? join(cacheDir, 'stale.json') : null;
  return (lists) => {
    const cache = loadCache(file);
    let dirty = false;
    const now = new Map<string, { hash: string; body: () => Buffer | null } | null | 'unread'>();
    const verdict = new Map<string, StaleFile | null>();
    const pending: { key: string; path: string; blob: string; hash: string; body: () => Buffer | null }[] = [];
    for (const list of lists) {
      for (const f of list) {
        const key = `${f.path}\0${f.blob}`;
        if (!f.blob || !BLOB.test(f.blob) || !safePath(f.path) || verdict.has(key)) continue;
        const algo = f.blob.length === 64 ? 'sha256' : 'sha1';
        const ck = `${f.path}\0${algo}`;
        let cur = now.get(ck);
        if (cur === undefined) {
          const got = statOf(root, f.path);
          const kept = got && got !== 'unread' ? cache.files[ck] : undefined;
          if (got === null || got === 'unread') cur = got;
          else if (kept && kept[0] === got.sig) cur = { hash: kept[1], body: got.read };
          else {
            const body = got.read();
            if (!body) cur = 'unread';
            else {
              // A checkout with CRLF conversion holds what git stored with LF: either form is unchanged.
              const text = body.includes('\r\n') ? body.toString('latin1') : null;
              const lf = text === null ? null : Buffer.from(text.replaceAll('\r\n', '\n'), 'latin1');
              const crlf = lf ? gitHash(algo, lf) : null;
              const hash = crlf === f.blob ? crlf : gitHash(algo, body);
              cache.files[ck] = [got.sig, hash];
              dirty = true;
              cur = { hash, body: () => body };
            }
          }
          now.set(ck, cur);
        }
        if (cur === 'unread') verdict.set(key, null);
        else if (cur === null) verdict.set(key, { path: f.path, deleted: true, added: null, removed: null });
        else if (cur.hash === f.blob) verdict.set(key, null);
        else {
          const counted = cache.counts[`${f.blob}:${cur.hash}`];
          if (counted) verdict.set(key, { path: f.path, deleted: false, added: counted[0], removed: counted[1] });
          else pending.push({ key, path: f.path, blob: f.blob, hash: cur.hash, body: cur.body });
        }
      }
    }
    if (pending.length) {
      const old = oldTexts(root, [...new Set(pending.map((p) => p.blob))]);
      for (const p of pending) {
        const was = old.get(p.blob);
        const body = was ? p.body() : null;
        const counted = was && body ? countLines(was, body) : null;
        if (counted) {
          cache.counts[`${p.blob}:${p.hash}`] = counted;
          dirty = true;
        }
        const [added, removed] = counted ?? [null, null];
        verdict.set(p.key, { path: p.path, deleted: false, added, removed });
      }
    }
    if (dirty && file) {
      try {
        // As every path under .GCC/: a link committed in the cache's place is refused, not followed.
        assertNoSymlink(root, cacheDir!);
        mkdirSync(cacheDir!, { recursive: true });
        writeTextAtomic(file, JSON.stringify({ v: 1, files: trim(cache.files), counts: trim(cache.counts) }));
      } catch {
        /* a cache that cannot be written is computed again next time */
      }
    }
    const changed = (f: FileChange) => verdict.get(`${f.path}\0${f.blob}`);
    return lists.map((list) => list.map(changed).filter((v): v is StaleFile => Boolean(v)));
  };
}

const STALE_SHOWN = 3;

/** `stale: src/cache.ts changed since (+2 −1), src/x.ts deleted`; '' when nothing changed. */
export function staleText(files: readonly StaleFile[]): string {
  if (!files.length) return '';
  const counts = (f: StaleFile) => (f.added === null ? '' : ` (+${f.added} −${f.removed})`);
  const one = (f: StaleFile) => (f.deleted ? `${f.path} deleted` : `${f.path} changed since${counts(f)}`);
  const more = files.length > STALE_SHOWN ? `, and ${files.length - STALE_SHOWN} more` : '';
  return `stale: ${files.slice(0, STALE_SHOWN).map(one).join(', ')}${more}`;
}

/** The note for one milestone's files, with `check` where the reader has one. */
export const staleNote = (check: StaleCheck | undefined, files: readonly FileChange[]): string =>
  check ? staleText(check([files])[0] ?? []) : '';
