/**
 * Commands that start another front end from the command line: they are operations in shape
 * (generated usage, checked arguments) but live here, beside the front ends they launch, so
 * the catalogue never imports a front end. The CLI lists them after the catalogue's.
 */
import * as z from 'zod';
import { operation, type Operation } from '../../operations/operation.js';

const mcp = operation({
  name: 'mcp',
  summary: "serve this project's memory over MCP on stdio (creates .GCC/ on the first tool call)",
  args: z.object({}),
  cli: [],
  fronts: ['cli'],
  readOnly: false,
  needs: 'none',
  run: async (_a, ctx) => {
    const { serveMcp } = await import('../mcp/server.js');
    await serveMcp({ dir: ctx.dir, session: ctx.session, budget: ctx.budget });
    // stdout belongs to the protocol: nothing more is printed after the client leaves.
    return { text: '', data: {} };
  },
});

const hook = operation({
  name: 'hook',
  summary: 'read one hook event on stdin, print one decision (exits 0 whatever the input)',
  args: z.object({ agent: z.string().optional().describe('claude-code, codex, or none for the normalized envelope.') }),
  cli: [{ field: 'agent', as: 'flag' }],
  fronts: ['cli'],
  readOnly: false,
  needs: 'none',
  run: async (a, ctx) => {
    const { hookCommand } = await import('./hook-main.js');
    const stdout = await hookCommand({ agent: a.agent, dir: ctx.explicitDir, session: ctx.session });
    return { text: stdout ?? '', data: stdout === null ? {} : (JSON.parse(stdout) as Record<string, unknown>) };
  },
});

export const LAUNCHERS: readonly Operation[] = [mcp, hook];
