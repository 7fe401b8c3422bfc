import { safeText } from '../log/safe-text.js';
import { operation } from './operation.js';

export default operation({
  name: 'git',
  summary: 'git hooks that refresh the views right after a checkout, merge or rebase (install); sync is what they run',
  args: {
    verb: { kind: 'enum', required: true, values: ['install', 'sync'], help: 'install, or sync (what the hooks run).' },
  },
  cli: [{ field: 'verb', as: 'positional' }],
  fronts: ['cli'],
  example: 'git install',
  answer: 'result',
  readOnly: false,
  needs: 'none',
  run: async (a, ctx) => {
    if (a.verb === 'install') {
      const [{ installGit }, { syncAfterGit }] = await Promise.all([
        import('../engine/git/install.js'),
        import('../engine/git/sync.js'),
      ]);
      const r = installGit(ctx.dir);
      const s = await syncAfterGit(ctx.dir);
      for (const w of s.warnings) process.stderr.write(safeText(`gctx: warning: ${w}\n`));
      const lines = [
        `git: ${r.repo}`,
        ...r.hooks.map((h) => `hook ${h.hook}: ${h.action}${h.why ? ` (${h.why})` : ''}`),
        'No merge driver is needed: memory merges on every path (docs/git.md). ' +
          'The hooks only refresh the views sooner.',
      ];
      return { text: lines.join('\n'), data: { ok: true, ...r } };
    }
    const { syncAfterGit } = await import('../engine/git/sync.js');
    const r = await syncAfterGit(ctx.dir);
    for (const w of r.warnings) process.stderr.write(safeText(`gctx: warning: ${w}\n`));
    return { text: r.skipped ? 'no memory here' : 'views match the logs', data: { ok: true, ...r } };
  },
});
