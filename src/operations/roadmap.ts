import { operation } from './operation.js';
import { execute, write } from './answers.js';

export default operation({
  name: 'roadmap',
  summary: 'add an objective to main.md, or check, uncheck or remove one by number or text',
  describe: 'Add, check, uncheck or remove a roadmap objective.',
  args: {
    action: { kind: 'enum', required: true, values: ['add', 'check', 'uncheck', 'remove'] },
    target: { kind: 'string', required: true, min: 1, help: 'Objective text (add), or its number or text.' },
  },
  cli: [
    { field: 'action', as: 'positional' },
    { field: 'target', as: 'rest' },
  ],
  fronts: ['cli', 'mcp', 'pi', 'slash'],
  example: 'roadmap add "Cache parsed results"',
  answer: 'result',
  library: (a) => execute({ type: 'roadmap', ...a }),
  readOnly: false,
  needs: 'memory',
  run: (a, ctx) => write(ctx, { type: 'roadmap', action: a.action, target: a.target }),
});
