import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gccError } from '../errors.js';
import { findMemoryRoot } from '../store/paths.js';
import { operation } from './operation.js';

export default operation({
  name: 'init',
  summary: 'create .GCC/ in this folder (with --git: also install the git hooks that refresh views after a pull)',
  args: {
    git: { kind: 'boolean', help: 'Also run `gctx git install`.' },
    nested: { kind: 'boolean', help: 'Create it even inside a folder that another memory holds.' },
  },
  cli: [
    { field: 'git', as: 'flag' },
    { field: 'nested', as: 'flag' },
  ],
  fronts: ['cli', 'slash'],
  example: 'init --git',
  answer: 'result',
  library: () => 'Memory.open(dir, { create: true })',
  readOnly: false,
  needs: 'create',
  // A memory inside another one splits the project's history in two, unseen: only when asked.
  guard: (a, dir) => {
    const outer = a.nested || existsSync(join(dir, '.GCC')) ? null : findMemoryRoot(dirname(dir));
    if (outer !== null)
      throw gccError(
        'E_ALREADY_INITIALIZED',
        `${dir} is inside the memory of ${outer} (${join(outer, '.GCC')})`,
        `use that memory (gctx finds it from here), or create one here as well: \`gctx init --nested\``,
      );
  },
  run: async (a, ctx) => {
    const share = 'Commit .GCC/ with your code to share it: only .GCC/events/ travels.';
    const ready = `Memory ready in ${ctx.memory.gccDir}. ${share}`;
    if (!a.git) return { text: ready, data: { ok: true, dir: ctx.memory.gccDir } };
    const { installGit } = await import('../engine/git/install.js');
    const r = installGit(ctx.memory.root);
    return {
      text: `${ready}\n${r.hooks.map((h) => `hook ${h.hook}: ${h.action}${h.why ? ` (${h.why})` : ''}`).join('\n')}`,
      data: { ok: true, dir: ctx.memory.gccDir, git: r },
    };
  },
});
