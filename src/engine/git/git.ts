/**
 * Running git for the install and sync commands. Always `git` from PATH outside the project, with an argument
 * vector (no shell) and safeGit's options, so nothing in a project file can choose what runs.
 * The configured hooks path stays visible: install asks where hooks go.
 */
import { childProcess } from '../../runtime/lazy-deps.js';
import { gccError } from '../../errors.js';
import { gitProgram, safeGit } from '../../store/git-probe.js';

export function git(cwd: string, args: readonly string[]): string {
  try {
    return childProcess().execFileSync(gitProgram(cwd), safeGit(args, true), {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (err) {
    const e = err as { code?: string; stderr?: string };
    if (e.code === 'ENOENT')
      throw gccError(
        'E_INVALID_ARGUMENT',
        'git is not installed (or not on PATH)',
        'install git, then run `gctx git install`',
      );
    throw gccError(
      'E_INVALID_ARGUMENT',
      `git ${args.join(' ')} failed: ${(e.stderr ?? String(err)).trim()}`,
      'run it by hand to see why',
    );
  }
}

/** The working tree's top folder, or an error saying the project is not in a git repository. */
export function repoTop(cwd: string): string {
  try {
    return childProcess()
      .execFileSync(gitProgram(cwd), safeGit(['rev-parse', '--show-toplevel']), {
        cwd,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      })
      .trim();
  } catch {
    throw gccError(
      'E_INVALID_ARGUMENT',
      `${cwd} is not inside a git repository`,
      'run `git init` first (or `gctx init` without --git)',
    );
  }
}

/** Quote one word for the POSIX shell git runs drivers and hooks with. */
export function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}
