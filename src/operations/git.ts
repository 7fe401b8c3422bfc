import { gccError } from '../errors.js';
import { safeText } from '../log/safe-text.js';
import { count } from './answers.js';
import { operation } from './operation.js';

const USAGE = 'gctx git install | gctx git sync';

export default operation({
  name: 'git',
  summary: 'git hooks that refresh the views right after a checkout, merge or rebase (install); sync is what they run',
  args: {
    verb: { kind: 'enum', required: true, values: ['install', 'sync', 'merge-driver'], help: 'install, sync, or merge-driver (run by git in clones of the first layout).' },
    files: { kind: 'strings', help: 'merge-driver: ancestor, ours, theirs, path.' },
  },
  cli: [
    { field: 'verb', as: 'positional' },
    { field: 'files', as: 'rest' },
  ],
  fronts: ['cli'],
  example: 'git install',
  answer: 'result',
  readOnly: false,
  needs: 'none',
  run: async (a, ctx) => {
    if (a.verb === 'install') {
      const [{ installGit }, { syncAfterGit }] = await Promise.all([import('../engine/git/install.js'), import('../engine/git/sync.js')]);
      const r = installGit(ctx.dir);
      const s = await syncAfterGit(ctx.dir);
      for (const w of s.warnings) process.stderr.write(safeText(`gctx: warning: ${w}\n`));
      const lines = [`git: ${r.repo}`, ...r.hooks.map((h) => `hook ${h.hook}: ${h.action}${h.why ? ` (${h.why})` : ''}`), 'No merge driver is needed: memory merges on every path (docs/git.md). The hooks only refresh the views sooner.'];
      return { text: lines.join('\n'), data: { ok: true, ...r } };
    }
    if (a.verb === 'sync') {
      const { syncAfterGit } = await import('../engine/git/sync.js');
      const r = await syncAfterGit(ctx.dir);
      for (const w of r.warnings) process.stderr.write(safeText(`gctx: warning: ${w}\n`));
      return { text: r.skipped ? 'no memory here' : r.visiting ? 'a commit of the first layout: read as it is, nothing written' : 'views match the logs', data: { ok: true, ...r } };
    }
    // Clones set up by the first layout still name this driver for old log.md files.
    const [, ours, theirs, path] = a.files ?? [];
    if (!ours || !theirs) throw gccError('E_INVALID_ARGUMENT', 'the merge driver needs the ancestor, ours and theirs files', USAGE);
    const { mergeLogFiles } = await import('../engine/git/merge-driver.js');
    const r = mergeLogFiles(ours, theirs, path ?? ours);
    return { text: `gctx: merged ${path ?? 'log'}: ${count(r.events, 'event')}, ${r.added} from the other side`, data: { ok: true, ...r } };
  },
});
