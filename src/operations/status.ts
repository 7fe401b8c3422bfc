import { operation } from './operation.js';
import { read } from './answers.js';

export default operation({
  name: 'status',
  summary: 'where memory stands: branch, objectives, last commit, work in flight, failed approaches',
  args: {},
  cli: [],
  fronts: ['cli', 'slash'],
  example: 'status',
  answer: 'memory',
  library: () => 'memory.context({ level: "status" })',
  overview: true,
  readOnly: true,
  needs: 'memory',
  run: (_a, ctx) => read(ctx, { level: 'status' }),
});
