/** The project folder as a caller names it: made without Node's endless retry, and its refusals said as the caller's mistake. */
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GccError } from '../../src/errors.js';
import { assertFolder, folderProblem, makeFolders, makeProblem } from '../../src/store/project-folder.js';
import { cleanup, tempProject } from '../support/tmp.js';

const refusal = (fn: () => void): NodeJS.ErrnoException => {
  try {
    fn();
  } catch (err) {
    return err as NodeJS.ErrnoException;
  }
  throw new Error('not refused');
};

describe('project folder', () => {
  afterAll(cleanup);

  it('makes every missing folder in turn, and leaves one that is there', () => {
    const root = tempProject();
    makeFolders(join(root, 'a', 'b', '.GCC'));
    expect(statSync(join(root, 'a', 'b', '.GCC')).isDirectory()).toBe(true);
    makeFolders(join(root, 'a', 'b', '.GCC'));
  });

  it('a file on the way: ENOTDIR, said as "is not a folder" or "a part of the path is a file"', () => {
    const file = join(tempProject(), 'f');
    writeFileSync(file, '');
    const err = refusal(() => makeFolders(join(file, '.GCC')));
    expect(err.code).toBe('ENOTDIR');
    expect(folderProblem(file, err, '--dir f')?.message).toBe('--dir f is not a folder');
    expect(folderProblem(join(file, 'x'), err)?.message).toMatch(/a part of the path is a file/);
    expect(() => assertFolder(file, '--dir f')).toThrow(/--dir f is not a folder/);
    expect(() => assertFolder(join(tempProject(), 'missing'))).not.toThrow();
  });

  // Node's recursive mkdir there never returns: mkdir says ENOENT and the parent exists.
  it.skipIf(!existsSync('/proc/1'))('a folder that takes no new one gives its error once', () => {
    const err = refusal(() => makeFolders('/proc/1/.GCC'));
    expect(err.code).toBe('ENOENT');
    const e = makeProblem('/proc/1', err) as GccError;
    expect(e).toBeInstanceOf(GccError);
    expect(e.exitCode).toBe(1);
    expect(e.oneLine()).toBe(
      'E_INVALID_ARGUMENT: no folder can be made in /proc/1 (ENOENT) Fix: name a project folder on an ordinary disk: `--dir <folder>`',
    );
  });

  it('an error that says nothing of the folder is left as it is', () => {
    expect(folderProblem('/x', Object.assign(new Error('disk'), { code: 'EIO' }))).toBeNull();
  });
});
