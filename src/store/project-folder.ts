/**
 * The project folder a memory lives in, as the caller named it (`--dir`, a tool's `dir`): made
 * when asked, and every way the system refuses it said as the caller's mistake — which folder,
 * what is wrong with it, what to name instead — never as an internal fault.
 */
import { lstatSync, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { type GccError, gccError } from '../errors.js';

const codeOf = (err: unknown): string | undefined => (err as NodeJS.ErrnoException | null)?.code;

/**
 * What is wrong with a project folder, from the error the system gave for it or for a path
 * inside it; null for an error that says nothing about the folder (it is thrown as it is).
 * `named`: how the caller spelled it (`--dir x`), else the folder's path.
 */
export function folderProblem(root: string, err: unknown, named = root): GccError | null {
  const code = codeOf(err);
  const fix = 'name the project folder: `--dir <folder>`';
  switch (code) {
    case 'ENOTDIR': {
      let file = false;
      try {
        file = !statSync(root).isDirectory();
      } catch {
        /* a part of the path is the file */
      }
      return gccError(
        'E_INVALID_ARGUMENT',
        file ? `${named} is not a folder` : `${named}: a part of the path is a file, not a folder`,
        fix,
      );
    }
    case 'ELOOP':
      return gccError(
        'E_INVALID_ARGUMENT',
        `${named} leads round a loop of symbolic links`,
        'name the real folder: `--dir <folder>`',
      );
    case 'ENAMETOOLONG':
      return gccError(
        'E_INVALID_ARGUMENT',
        `${named} is a path too long for this system`,
        'name the project folder by a shorter path',
      );
    case 'EACCES':
    case 'EPERM':
      return gccError(
        'E_INVALID_ARGUMENT',
        `${named} may not be looked into by this user (${code})`,
        'run as a user who may read it, or name another folder: `--dir <folder>`',
      );
    default:
      return null;
  }
}

/** The error for a project folder that cannot be used, else `err` as it is. */
export function asFolderError(root: string, err: unknown, named = root): unknown {
  return folderProblem(root, err, named) ?? err;
}

/**
 * Look at a folder the caller named: nothing when it is a folder or is not there (the caller
 * says what a missing one means); otherwise what is wrong with it.
 */
export function assertFolder(root: string, named = root): void {
  let st;
  try {
    st = statSync(root);
  } catch (err) {
    if (codeOf(err) === 'ENOENT') return;
    throw asFolderError(root, err, named);
  }
  if (!st.isDirectory())
    throw gccError('E_INVALID_ARGUMENT', `${named} is not a folder`, 'name the project folder: `--dir <folder>`');
}

/**
 * `mkdir -p`, each missing folder made once, in turn. Node's own recursive mkdir retries for
 * ever where a folder is there but takes no new one (ENOENT for a child of `/proc/1`): it takes
 * that ENOENT for a missing parent, finds the parent, and tries again. Here the error is thrown.
 */
export function makeFolders(path: string): void {
  const missing: string[] = [];
  for (let p = path; ; ) {
    try {
      lstatSync(p);
      break;
    } catch (err) {
      if (codeOf(err) !== 'ENOENT') throw err;
    }
    missing.push(p);
    const up = dirname(p);
    if (up === p) break;
    p = up;
  }
  for (const p of missing.reverse()) {
    try {
      mkdirSync(p);
    } catch (err) {
      if (codeOf(err) !== 'EEXIST') throw err;
    }
  }
}

/**
 * The error for a folder that could not be made: a parent that takes no new folder is the
 * caller's to change (a system folder such as /proc), as is one this user may not write.
 */
export function makeProblem(root: string, err: unknown, named = root, made = '.GCC/'): unknown {
  const code = codeOf(err);
  if (code === 'ENOENT')
    return gccError(
      'E_INVALID_ARGUMENT',
      `no folder can be made in ${named} (${code})`,
      'name a project folder on an ordinary disk: `--dir <folder>`',
    );
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS')
    return gccError(
      'E_READ_ONLY',
      `cannot make ${made} in ${named} (${code})`,
      'make the folder writable, or name another: `--dir <folder>`',
    );
  return asFolderError(root, err, named);
}
