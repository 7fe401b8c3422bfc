import { operation } from './operation.js';
import { write } from './answers.js';

export default operation({
  name: 'branch',
  summary: 'start an experiment branch from the current one and switch to it',
  describe: 'Start an experiment branch from the current one and switch to it.',
  args: (z) => z.object({
    name: z.string().min(1).describe('Branch name, e.g. try-sqlite.'),
    purpose: z.string().min(1).describe('What it explores.'),
    hypotheses: z.array(z.string()).optional().describe('Hypotheses to test.'),
  }),
  cli: [
    { field: 'name', as: 'positional' },
    { field: 'purpose', as: 'flag' },
    { field: 'hypotheses', as: 'flag', flag: 'hypothesis' },
  ],
  fronts: ['cli', 'mcp', 'pi', 'slash'],
  readOnly: false,
  needs: 'memory',
  run: (a, ctx) => write(ctx, { type: 'branch', name: a.name, purpose: a.purpose, ...(a.hypotheses?.length ? { hypotheses: a.hypotheses } : {}) }),
});
