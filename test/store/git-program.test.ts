/**
 * The git gctx runs is never one the repository brings: a `git` committed under the project's
 * node_modules/.bin (which `npm run` puts first on PATH), or reached through a relative or
 * empty PATH entry, is passed over for the first git outside the project.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { gctx } from '../support/cli.js';
import { cleanup, tempProject } from '../support/tmp.js';

afterAll(cleanup);

const realGit = spawnSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).stdout.trim();

describe('the git program', () => {
  it.skipIf(process.platform === 'win32' || !realGit)(
    'a git the repository holds never runs, from node_modules/.bin, a relative or an empty PATH entry',
    () => {
      const dir = tempProject('gcc-gitexe-');
      const git = (...args: string[]) => spawnSync(realGit, args, { cwd: dir, encoding: 'utf8' });
      git('init', '-q', '-b', 'main');
      git('config', 'user.name', 'v');
      git('config', 'user.email', 'v@example.com');
      const marker = join(dir, 'PWNED');
      const fake = `#!/bin/sh\necho "$@" >> '${marker}'\nexec '${realGit}' "$@"\n`;
      for (const d of [join(dir, 'node_modules', '.bin'), dir]) {
        mkdirSync(d, { recursive: true });
        writeFileSync(join(d, 'git'), fake);
        chmodSync(join(d, 'git'), 0o755);
      }
      const PATH = [join(dir, 'node_modules', '.bin'), '', '.', process.env.PATH].join(delimiter);
      expect(gctx(dir, ['init'], undefined, { PATH }).code).toBe(0);
      expect(gctx(dir, ['commit', 'first'], undefined, { PATH }).code).toBe(0);
      writeFileSync(join(dir, 'a.txt'), 'a\n');
      const c = gctx(dir, ['commit', 'work'], undefined, { PATH });
      expect(c.stderr).toBe('');
      // git still answered: the files it saw change are recorded.
      expect(gctx(dir, ['context', '--commit', 'C002'], undefined, { PATH }).stdout).toMatch(/Files touched.*a\.txt/);
      const hook = gctx(
        dir,
        ['hook', '--agent', 'claude-code'],
        JSON.stringify({ hook_event_name: 'SessionStart', session_id: 's', cwd: dir, source: 'startup' }),
        { PATH },
      );
      expect(hook.code).toBe(0);
      expect(existsSync(marker)).toBe(false);
    },
  );
});
