/** gctx commands that look at a memory from the outside: doctor. */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Memory } from '../../engine/memory.js';
import { asGccError } from '../../errors.js';
import { layout } from '../../store/paths.js';
import { LOG_DRIVER } from '../git/attributes.js';
import type { CommandSpec } from './commands.js';

/** Memory set up for git needs the union driver in each clone's own config. */
function gitDriverCheck(dir: string): { check: string; ok: boolean; detail: string } {
  try {
    const driver = execFileSync('git', ['config', '--get', `merge.${LOG_DRIVER}.driver`], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return { check: 'git', ok: true, detail: `log merge driver registered: ${driver}` };
  } catch {
    return { check: 'git', ok: false, detail: 'this clone has no log merge driver, so git would text-merge log.md: run `gctx git install`' };
  }
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

export const MORE_COMMANDS: Record<string, CommandSpec> = {
  doctor: {
    usage: 'gctx doctor',
    summary: 'diagnose a memory: versions, lock, integrity, quarantined and set-aside files',
    flags: {},
    memory: 'none',
    run: async (_p, ctx) => {
      const l = layout(ctx.dir);
      const checks: { check: string; ok: boolean; detail: string }[] = [];
      const major = Number(process.versions.node.split('.')[0]);
      checks.push({ check: 'node', ok: major >= 22, detail: `Node ${process.versions.node}${major >= 22 ? '' : ' (Pi 1.x needs >= 22.19)'}` });
      checks.push({ check: 'memory', ok: existsSync(l.gcc), detail: existsSync(l.gcc) ? l.gcc : `no .GCC/ in ${ctx.dir}: run \`gctx init\`` });
      if (existsSync(l.gcc)) {
        checks.push({ check: 'lock', ok: true, detail: existsSync(l.lock) ? `held (${l.lock}); stale locks of dead processes are taken over automatically` : 'free' });
        try {
          const m = await Memory.open(ctx.dir, { lockTimeoutMs: 5_000 });
          const problems = m.verify();
          checks.push({ check: 'integrity', ok: problems.length === 0, detail: problems.length ? problems.map((x) => `${x.file}${x.line ? `:${x.line}` : ''} ${x.message}`).join('; ') : `${m.state.events} events, projections equal replay` });
          for (const w of m.warnings) checks.push({ check: 'open', ok: true, detail: w });
          m.close();
        } catch (err) {
          checks.push({ check: 'integrity', ok: false, detail: asGccError(err).oneLine() });
        }
        const q = listDir(l.quarantine);
        checks.push({ check: 'quarantine', ok: true, detail: q.length ? `${q.length} torn fragment(s) in ${l.quarantine}` : 'empty' });
        const a = listDir(l.aside);
        checks.push({ check: 'aside', ok: true, detail: a.length ? `${a.length} hand-edited version(s) kept in ${l.aside}` : 'empty' });
        if (existsSync(join(l.gcc, '.gitattributes'))) checks.push(gitDriverCheck(ctx.dir));
      }
      const bad = checks.filter((c) => !c.ok);
      // Damaged memory is exit 2, like every corruption; a setup problem is the user's (exit 1).
      const exit = bad.some((c) => c.check === 'integrity') ? 2 : bad.length ? 1 : 0;
      return { text: checks.map((c) => `${c.ok ? 'ok  ' : 'FAIL'} ${c.check}: ${c.detail}`).join('\n'), json: { ok: bad.length === 0, checks }, exit };
    },
  },
};
