import { operation } from './operation.js';
import { write } from './answers.js';

export default operation({
  name: 'abandon',
  summary: 'close an experiment that did not work out, recording why on its parent',
  describe: 'Close a branch that did not work out; its parent lists it as a failed approach.',
  args: (z) => z.object({
    branch: z.string().min(1).optional().describe('Default: current branch.'),
    reason: z.string().min(1).describe('Why it was dropped (what was learned).'),
  }),
  cli: [
    { field: 'branch', as: 'positional' },
    { field: 'reason', as: 'flag' },
  ],
  fronts: ['cli', 'mcp', 'pi', 'slash'],
  readOnly: false,
  needs: 'memory',
  run: (a, ctx) => write(ctx, { type: 'abandon', branch: a.branch ?? ctx.memory.currentBranch(ctx.session), reason: a.reason }),
});
