import { count } from '../context/lines.js';
import { operation } from './operation.js';

export default operation({
  name: 'replay',
  summary: 'rebuild every view from .GCC/events/ (an edited main.md or metadata.yaml is kept aside first)',
  args: {},
  cli: [],
  fronts: ['cli', 'slash'],
  example: 'replay',
  answer: 'result',
  library: () => 'await memory.replay()',
  readOnly: false,
  wholePass: () => 'replay',
  needs: 'memory',
  run: async (_a, ctx) => {
    const r = await ctx.memory.replay();
    const kept = r.kept.length ? ` Kept the previous versions in ${r.kept.join(', ')}` : '';
    return {
      text: `Rebuilt the views from ${count(ctx.memory.state.events, 'event')}.${kept}`,
      data: { ok: true, ...r },
    };
  },
});
