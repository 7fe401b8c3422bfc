/** `npm start`'s tour, run as built: the command line's calls under their own headings, plain text in a pipe. */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const TOUR = fileURLToPath(new URL('../dist/tour.js', import.meta.url));

describe('the tour', () => {
  it('prints each answer under the gctx call that gives it, with CLI hints and no ANSI codes when piped', () => {
    const r = spawnSync(process.execPath, [TOUR], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('\u001b');
    expect(r.stdout).toMatch(/^\$ gctx status\nOn memory branch main/m);
    expect(r.stdout).toMatch(
      /^\$ gctx context --log 3\n[^$]*… \d+ older entries: gctx context --log 3 --on main --page 2$/m,
    );
    expect(r.stdout).not.toMatch(/context \{"level"/);
    expect(r.stdout).toMatch(/^Objective 1 done: Parse config files$/m);
  });
});
