import { operation } from './operation.js';
import { write } from './answers.js';

export default operation({
  name: 'merge',
  summary: 'fold a finished branch back with a synthesis commit (shows the branch first)',
  describe: 'Fold a finished branch into its parent (or `into`) with a synthesis. Shows the branch first.',
  args: (z) => z.object({
    branch: z.string().min(1).optional().describe('Default: current branch.'),
    synthesis: z.string().min(1).describe('What is integrated, and why.'),
    learned: z.string().optional().describe('What was learned.'),
    next: z.string().optional().describe('Next step (the branch\'s is not kept).'),
    into: z.string().optional().describe('Target (default: parent).'),
  }),
  cli: [
    { field: 'branch', as: 'positional' },
    { field: 'synthesis', as: 'flag' },
    { field: 'learned', as: 'flag' },
    { field: 'next', as: 'flag' },
    { field: 'into', as: 'flag' },
  ],
  fronts: ['cli', 'mcp', 'pi', 'slash'],
  readOnly: false,
  needs: 'memory',
  run: async (a, ctx) => {
    const branch = a.branch ?? ctx.memory.currentBranch(ctx.session);
    // The paper's MERGE surfaces the source branch first: the synthesis is read beside what it sums up.
    const before = ctx.memory.context({ level: 'branch', name: branch, k: 5 }, { session: ctx.session, budget: 600, spell: ctx.spell });
    const out = await write(ctx, { type: 'merge', branch, synthesis: a.synthesis, ...(a.learned ? { learned: a.learned } : {}), ...(a.next ? { next: a.next } : {}), ...(a.into ? { into: a.into } : {}) });
    return { text: `${before.text}\n\n${out.text}`, data: { ...out.data, merged: before.data } };
  },
});
