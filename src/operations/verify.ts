import { count } from '../context/lines.js';
import { operation } from './operation.js';

export default operation({
  name: 'verify',
  summary: 'read every byte: each log entry, the logs against what was acknowledged, every view against a rebuild',
  args: {},
  cli: [],
  fronts: ['cli', 'slash'],
  example: 'verify',
  answer: 'report',
  library: () => 'await memory.verifyConfirmed()',
  readOnly: true,
  wholePass: () => 'verify',
  needs: 'memory',
  run: async (_a, ctx) => {
    const before = ctx.memory.warnings.length;
    const problems = await ctx.memory.verifyConfirmed();
    // What the pass found that is no damage (events contradicting earlier ones, a snapshot
    // holding another state) is part of its answer, not a warning of the open's.
    const warnings = ctx.memory.warnings.splice(before);
    const said = warnings.map((w) => `warning: ${w}`);
    const text = problems.length
      ? [...problems.map((p) => `${p.file}${p.line ? `:${p.line}` : ''}: ${p.message}`), ...said].join('\n')
      : [
          `OK: ${count(ctx.memory.state.events, 'event')}; ` +
            'every log entry intact and as acknowledged; every view equals a rebuild',
          ...said,
        ].join('\n');
    return {
      text,
      data: { ok: problems.length === 0, problems, ...(warnings.length ? { warnings } : {}) },
      ...(problems.length ? { exit: 2 } : {}),
    };
  },
});
