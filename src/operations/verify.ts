import { operation } from './operation.js';

export default operation({
  name: 'verify',
  summary: 'read every byte: each log entry, the logs against what was acknowledged, every view against a rebuild',
  args: (z) => z.object({}),
  cli: [],
  fronts: ['cli', 'slash'],
  readOnly: true,
  wholePass: () => 'verify',
  needs: 'memory',
  run: async (_a, ctx) => {
    const problems = await ctx.memory.verifyConfirmed();
    const text = problems.length
      ? problems.map((p) => `${p.file}${p.line ? `:${p.line}` : ''}: ${p.message}`).join('\n')
      : `OK: ${ctx.memory.state.events} events; every log entry intact and as acknowledged; every view equals a rebuild`;
    return { text, data: { ok: problems.length === 0, problems }, ...(problems.length ? { exit: 2 } : {}) };
  },
});
