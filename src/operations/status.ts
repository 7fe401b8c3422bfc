import { operation } from './operation.js';
import { read } from './answers.js';

export default operation({
  name: 'status',
  summary: 'where memory stands: branch, objectives, last commit, work in flight, failed approaches',
  args: (z) => z.object({}),
  cli: [],
  fronts: ['cli', 'slash'],
  readOnly: true,
  needs: 'memory',
  run: (_a, ctx) => read(ctx, { level: 'status' }),
});
