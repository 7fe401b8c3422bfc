import { operation } from './operation.js';
import { execute, write } from './answers.js';

export default operation({
  name: 'abandon',
  summary: 'close an experiment that did not work out, recording why on its parent',
  describe: 'Close a branch that did not work out; its parent lists it as a failed approach.',
  args: {
    branch: { kind: 'string', min: 1, help: 'Default: current branch.' },
    reason: { kind: 'string', required: true, min: 1, help: 'Why it was dropped (what was learned).' },
  },
  cli: [
    { field: 'branch', as: 'positional' },
    { field: 'reason', as: 'flag' },
  ],
  fronts: ['cli', 'mcp', 'pi', 'slash'],
  example: 'abandon try-mmap --reason "No gain below 10 MB"',
  answer: 'result',
  library: (a) => execute({ type: 'abandon', ...a }),
  readOnly: false,
  needs: 'memory',
  run: (a, ctx) =>
    write(ctx, { type: 'abandon', branch: a.branch ?? ctx.memory.currentBranch(ctx.session), reason: a.reason }),
});
