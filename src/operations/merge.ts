import { operation } from './operation.js';
import { execute, write } from './answers.js';

export default operation({
  name: 'merge',
  summary: 'fold a finished branch back with a synthesis commit (shows the branch first)',
  describe: 'Fold a finished branch into its parent (or `into`) with a synthesis. Shows the branch first.',
  args: {
    branch: { kind: 'string', min: 1, help: 'Default: current branch.' },
    synthesis: { kind: 'string', required: true, min: 1, help: 'What is integrated, and why.' },
    learned: { kind: 'string', help: 'What was learned.' },
    next: { kind: 'string', help: "Next step (the branch's is not kept)." },
    into: { kind: 'string', help: 'Target (default: parent).' },
  },
  cli: [
    { field: 'branch', as: 'positional' },
    { field: 'synthesis', as: 'flag' },
    { field: 'learned', as: 'flag' },
    { field: 'next', as: 'flag' },
    { field: 'into', as: 'flag' },
  ],
  fronts: ['cli', 'mcp', 'pi', 'slash'],
  example: 'merge try-sqlite --synthesis "SQLite kept: loads are 3x faster"',
  answer: 'result',
  library: (a) => execute({ type: 'merge', ...a }),
  readOnly: false,
  needs: 'memory',
  // The paper's MERGE surfaces the source branch first: the synthesis is read beside what it sums up.
  preview: (a, ctx) => {
    const c = ctx.memory.context(
      { level: 'branch', name: a.branch ?? ctx.memory.currentBranch(ctx.session), k: 5 },
      { session: ctx.session, budget: 600, spell: ctx.spell },
    );
    return { text: c.text, data: c.data as Record<string, unknown> };
  },
  run: (a, ctx) =>
    write(ctx, {
      type: 'merge',
      branch: a.branch ?? ctx.memory.currentBranch(ctx.session),
      synthesis: a.synthesis,
      ...(a.learned ? { learned: a.learned } : {}),
      ...(a.next ? { next: a.next } : {}),
      ...(a.into ? { into: a.into } : {}),
    }),
});
