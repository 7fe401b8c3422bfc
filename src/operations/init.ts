import { operation } from './operation.js';

export default operation({
  name: 'init',
  summary: 'create .GCC/ in this folder (with --git: also install the git hooks that refresh views after a pull)',
  args: { git: { kind: 'boolean', help: 'Also run `gctx git install`.' } },
  cli: [{ field: 'git', as: 'flag' }],
  fronts: ['cli', 'slash'],
  example: 'init --git',
  answer: 'result',
  readOnly: false,
  needs: 'create',
  run: async (a, ctx) => {
    const ready = `Memory ready in ${ctx.memory.gccDir}. Commit .GCC/ with your code to share it: only .GCC/events/ travels.`;
    if (!a.git) return { text: ready, data: { ok: true, dir: ctx.memory.gccDir } };
    const { installGit } = await import('../engine/git/install.js');
    const r = installGit(ctx.memory.root);
    return { text: `${ready}\n${r.hooks.map((h) => `hook ${h.hook}: ${h.action}${h.why ? ` (${h.why})` : ''}`).join('\n')}`, data: { ok: true, dir: ctx.memory.gccDir, git: r } };
  },
});
