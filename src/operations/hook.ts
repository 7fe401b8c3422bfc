import * as z from 'zod';
import { operation } from './operation.js';

export default operation({
  name: 'hook',
  summary: 'read one hook event on stdin, print one decision (exits 0 whatever the input)',
  args: z.object({ agent: z.string().optional().describe('claude-code, codex, or none for the normalized envelope.') }),
  cli: [{ field: 'agent', as: 'flag' }],
  fronts: ['cli'],
  readOnly: false,
  needs: 'none',
  run: async (a, ctx) => {
    const { hookCommand } = await import('../adapters/cli/hook-main.js');
    const stdout = await hookCommand({ agent: a.agent, dir: ctx.explicitDir, session: ctx.session });
    return { text: stdout ?? '', data: stdout === null ? {} : (JSON.parse(stdout) as Record<string, unknown>) };
  },
});
