import { operation } from './operation.js';
import { execute, write } from './answers.js';

export default operation({
  name: 'switch',
  summary: "make another open branch this session's current one",
  describe: 'Switch this session to another open memory branch.',
  args: { name: { kind: 'string', required: true, min: 1, help: 'Branch to switch to.' } },
  cli: [{ field: 'name', as: 'positional' }],
  fronts: ['cli', 'mcp', 'pi', 'slash'],
  example: 'switch main',
  answer: 'result',
  library: (a) => execute({ type: 'switch', ...a }),
  readOnly: false,
  needs: 'memory',
  run: (a, ctx) => write(ctx, { type: 'switch', name: a.name }),
});
