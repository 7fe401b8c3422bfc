import { operation } from './operation.js';
import { execute, write } from './answers.js';

export default operation({
  name: 'branch',
  summary: 'start an experiment branch from the current one and switch to it',
  describe: 'Start an experiment branch from the current one and switch to it.',
  args: {
    name: { kind: 'string', required: true, min: 1, help: 'Branch name, e.g. try-sqlite.' },
    purpose: { kind: 'string', required: true, min: 1, help: 'What it explores.' },
    hypotheses: { kind: 'strings', help: 'Hypotheses to test.' },
  },
  cli: [
    { field: 'name', as: 'positional' },
    { field: 'purpose', as: 'flag' },
    { field: 'hypotheses', as: 'flag', flag: 'hypothesis' },
  ],
  fronts: ['cli', 'mcp', 'pi', 'slash'],
  example: 'branch try-sqlite --purpose "See whether SQLite beats JSON files"',
  answer: 'result',
  library: (a) => execute({ type: 'branch', ...a }),
  readOnly: false,
  needs: 'memory',
  run: (a, ctx) =>
    write(ctx, {
      type: 'branch',
      name: a.name,
      purpose: a.purpose,
      ...(a.hypotheses?.length ? { hypotheses: a.hypotheses } : {}),
    }),
});
