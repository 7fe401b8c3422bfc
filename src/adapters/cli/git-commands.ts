/**
 * `gctx git ...`: sharing a memory through git. `install` sets a clone up (attributes,
 * drivers, hooks); `merge-driver` and `sync` are what git itself runs.
 */
import { gccError } from '../../errors.js';
import { installGit, type InstallReport } from '../git/install.js';
import { mergeLogFiles } from '../git/merge-driver.js';
import { syncAfterGit } from '../git/sync.js';
import type { CommandSpec, Output } from './commands.js';

const USAGE = 'gctx git install | gctx git merge-driver <ancestor> <ours> <theirs> [<path>] | gctx git sync';

export function describeInstall(r: InstallReport): string {
  const lines = [`git: ${r.repo}`, `.GCC/.gitattributes ${r.attributesWritten ? 'written' : 'already up to date'} (commit it)`];
  for (const [name, driver] of Object.entries(r.drivers)) lines.push(`merge.${name}.driver = ${driver}`);
  for (const h of r.hooks) lines.push(`hook ${h.hook}: ${h.action}${h.why ? ` (${h.why})` : ''}`);
  lines.push('Every clone runs `gctx git install` once; re-run it if gctx or node moves.');
  return lines.join('\n');
}

export const GIT_COMMANDS: Record<string, CommandSpec> = {
  git: {
    usage: USAGE,
    summary: 'share .GCC/ through git: install drivers and hooks; merge-driver and sync are run by git',
    flags: {},
    memory: 'none',
    run: async (p, ctx): Promise<Output> => {
      const [verb, ...args] = p.positionals;
      if (verb === 'install') {
        const r = installGit(ctx.dir);
        // A fresh clone may check out a merge commit whose projections are one side's: bring
        // them in line now, while git can still vouch for them (see sync.ts).
        const s = await syncAfterGit(ctx.dir);
        for (const w of s.warnings) process.stderr.write(`gctx: warning: ${w}\n`);
        return { text: describeInstall(r), json: { ok: true, ...r } };
      }
      if (verb === 'merge-driver') {
        const [, ours, theirs, path] = args;
        if (!ours || !theirs) throw gccError('E_INVALID_ARGUMENT', 'the merge driver needs the ancestor, ours and theirs files', USAGE);
        // On error nothing was written to ours: the caller's non-zero exit makes git report
        // a plain conflict over an intact log.
        const r = mergeLogFiles(ours, theirs, path ?? ours);
        return { text: `gctx: merged ${path ?? 'log'}: ${r.events} events, ${r.added} from the other side`, json: { ok: true, ...r } };
      }
      if (verb === 'sync') {
        const r = await syncAfterGit(ctx.dir);
        for (const w of r.warnings) process.stderr.write(`gctx: warning: ${w}\n`);
        return { text: r.skipped ? 'no memory here' : 'projections match the logs', json: { ok: true, ...r } };
      }
      throw gccError('E_INVALID_ARGUMENT', `unknown git action ${JSON.stringify(verb ?? '')}`, USAGE);
    },
  },
};
