/**
 * The steps of opening a memory that deal with the logs as files, before anything is folded:
 * every log held against the ledger (a segment git left conflicted resolved by union first),
 * and the ignore rules written once all of it checked out.
 */
import { existsSync, lstatSync, readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { asGccError, gccError } from '../errors.js';
import { ensureExclude } from '../store/git-exclude.js';
import { takenByGit } from '../store/git-explain.js';
import type { LockOptions } from '../store/lock.js';
import { fileHasConflictMarkers } from '../store/conflicted.js';
import { midOperation, runGit } from '../store/git-probe.js';
import { writeTextAtomic } from '../store/text-file.js';
import { resolveConflict } from '../store/resolve-conflict.js';
import { EVENTS_DIR, GCC_DIR, GITIGNORE } from '../store/paths.js';
import { type Checked, LOCAL, type Store } from '../store/store.js';

export { GITIGNORE };

export interface Disk {
  store: Store;
  now: () => Date;
  lock: LockOptions;
  warn: (warning: string) => void;
}

/**
 * `.GCC/.gitignore` written when it is missing (one a person wrote is left alone), and the
 * same rules in this clone's git exclude file. Not at a commit from before the memory (git
 * holds the file elsewhere): an untracked file there would stop git from checking out one
 * that has it.
 */
export function ensureIgnore({ store, warn }: Disk): void {
  if (store.repo) {
    try {
      ensureExclude(store.repo, store.layout.root);
    } catch (err) {
      warn(`could not add the memory's ignore rules to git's info/exclude: ${asGccError(err).message}`);
    }
  }
  const ignore = `${store.layout.gcc}/.gitignore`;
  keepLocalIgnored(store, warn);
  let text: string | null = null;
  try {
    text = readFileSync(ignore, 'utf8');
  } catch {
    /* missing */
  }
  if (text !== null) {
    // Rules a commit brought stay as git has them (a rewrite would block the next pull touching the file) while
    // this clone's own state stays ignored (`.local/.gitignore`); restored only when they would let `git add -A`
    // take the ledger, the snapshot, the serve token. Not during a merge or rebase, which may be resolving it.
    if (text === GITIGNORE || lstatSync(ignore).isSymbolicLink() || (store.repo && midOperation(store.repo))) return;
    if (store.repo && localIgnored(store)) return;
    try {
      writeTextAtomic(ignore, GITIGNORE); // a rename: never through a link
      warn(
        ".GCC/.gitignore was changed (by hand or by a commit) so that git would take this clone's own state " +
          '(.GCC/.local/) and is restored; commit it: `git add .GCC/.gitignore`',
      );
    } catch (err) {
      warn(`could not restore ${ignore}: ${asGccError(err).message}`);
    }
    return;
  }
  if (store.repo && takenByGit(store.layout.root, `${GCC_DIR}/.gitignore`)) return;
  // A stash may hold it (`git stash -u`): one written here would make `git stash pop` fail.
  // The same rules are in info/exclude meanwhile.
  if (store.repo && stashed(store.layout.root)) return;
  try {
    writeFileSync(ignore, GITIGNORE, { flag: 'wx' }); // never through a link left at its name
  } catch (err) {
    warn(`could not write ${ignore}: ${asGccError(err).message}`);
  }
}

/**
 * `.GCC/.local/.gitignore` ignoring everything there: the nearest rules win, so whatever
 * `.GCC/.gitignore` says for a moment (a pull that changed it, before gctx restores it), git
 * never takes this clone's own state.
 */
function keepLocalIgnored(store: Store, warn: (warning: string) => void): void {
  const path = `${store.layout.local}/.gitignore`;
  try {
    if (readFileSync(path, 'utf8') === LOCAL_IGNORE) return;
  } catch {
    /* missing */
  }
  try {
    if (!existsSync(store.layout.local)) return;
    writeTextAtomic(path, LOCAL_IGNORE);
  } catch (err) {
    warn(`could not write ${path}: ${asGccError(err).message}`);
  }
}

const LOCAL_IGNORE = "# Written by gctx: this clone's own state never travels through git (docs/git.md).\n*\n";

/** Whether git ignores this clone's own state (its ledger) under the rules as they stand. */
function localIgnored(store: Store): boolean {
  try {
    runGit(store.layout.root, ['check-ignore', '-q', '--', relative(store.layout.root, store.layout.ledger)]);
    return true;
  } catch {
    return false;
  }
}

function stashed(root: string): boolean {
  try {
    runGit(root, ['rev-parse', '-q', '--verify', 'refs/stash']);
    return true;
  } catch {
    return false;
  }
}

/**
 * A folder with no log is initialised only when asked (`create`), or when it was there already
 * (a clone of a `.GCC/.gitignore` alone) — and, but by `gctx init`, not where git took the
 * memory away: at a commit from before it (the index holds no segment, some commit does), an
 * initialisation would travel back as a stray one, resetting the settings.
 */
export function assertMayInitialize(store: Store, existed: boolean, create: boolean | 'if-new' | undefined): void {
  const root = store.layout.root;
  if (create !== true && (existed || create) && store.repo && takenByGit(root, `${GCC_DIR}/${EVENTS_DIR}`)) {
    throw gccError(
      'E_NOT_INITIALIZED',
      `no memory in ${root} at this commit (other commits hold .GCC/events/)`,
      'check out a commit that holds the memory; `gctx init` starts a new one here',
    );
  }
  if (!create && !existed) throw gccError('E_NOT_INITIALIZED', `no memory in ${root}`, 'run `gctx init`');
}

/**
 * Logs without an initialisation, at a commit git took the memory's segments away from (one from
 * before the memory): what is here is this clone's segment not yet committed, which a checkout
 * leaves in the work tree. That is not the memory, and shown as one it would look near empty:
 * there is no memory at this commit, as where nothing was left, and the segment's events join
 * the memory again at a commit that holds it. `gctx init` (create) still starts one on purpose.
 */
export function assertHoldsMemory(store: Store, initialized: boolean, create: boolean | 'if-new' | undefined): void {
  if (initialized || create === true || !store.repo) return;
  if (!takenByGit(store.layout.root, `${GCC_DIR}/${EVENTS_DIR}`)) return;
  const left = [...store.logs.values()]
    .filter((f) => f.name !== LOCAL && (f.meta.size > 0 || f.unread))
    .map((f) => f.rel);
  throw gccError(
    'E_NOT_INITIALIZED',
    `no memory in ${store.layout.root} at this commit (other commits hold .GCC/events/); ` +
      `${left.join(', ')} only holds events not committed yet, kept for when you return`,
    'check out a commit that holds the memory (the branch you came from): those events join it there',
  );
}

function segmentOf(file: string): string | null {
  const m = /events\/(\d{4}-\d{2}\/[^/]+\.md)$/.exec(file.replaceAll('\\', '/'));
  return m ? m[1]! : null;
}

function conflicted(store: Store, name: string): boolean {
  try {
    return fileHasConflictMarkers(store.layout.segment(name));
  } catch {
    return false;
  }
}

/** Every log against the ledger; a segment git left conflicted is resolved by union first. */
export async function checkLogs({ store, now, lock, warn }: Disk): Promise<Checked> {
  if (store.journalDiffers()) {
    for (const w of await store.withLock(() => store.reconcileJournal(now()).said, lock)) warn(w);
  }
  for (let attempt = 0; ; attempt++) {
    try {
      return store.check(now().getTime());
    } catch (err) {
      const e = asGccError(err);
      const name = e.file ? segmentOf(e.file) : null;
      if (attempt > 20 || !name || !conflicted(store, name)) throw e;
      await store.withLock(() => {
        const n = resolveConflict(store, name);
        warn(`resolved the conflict markers in .GCC/events/${name} by union (${n} events)`);
      }, lock);
    }
  }
}

/** Whether any shared log holds an event (false for a folder with only a .gitignore). */
export function hasAnyLog(store: Store): boolean {
  for (const f of store.logs.values()) if (f.name !== LOCAL && (f.meta.size > 0 || f.unread)) return true;
  return false;
}
