/**
 * gctx commands for agent hosts: `mcp` (a stdio MCP server) and `hook` (one hook event in,
 * one decision out). Both load their modules on demand, so the other commands never pay for
 * the MCP SDK and a hook loads only what its event needs.
 */
import * as nodeModule from 'node:module';
import { one } from './args.js';
import type { CommandSpec } from './commands.js';

/**
 * Both commands start a fresh process per host session or per hook event, and most of their
 * start-up is compiling the MCP SDK, zod and the engine. Node's on-disk compile cache (in the
 * OS temp folder; NODE_DISABLE_COMPILE_CACHE=1 turns it off) covers every module loaded after
 * this call, i.e. everything imported on demand below.
 */
function cacheCompiledCode(): void {
  try {
    nodeModule.enableCompileCache?.();
  } catch {
    // An unwritable cache folder only costs speed.
  }
}

export const AGENT_COMMANDS: Record<string, CommandSpec> = {
  mcp: {
    usage: 'gctx mcp [--dir <project>] [--session <id>] [--budget <tokens>]',
    summary: 'serve this project\'s memory over MCP on stdio (creates .GCC/ on the first tool call)',
    flags: {},
    memory: 'none',
    run: async (_p, ctx) => {
      cacheCompiledCode();
      const { serveMcp } = await import('../mcp/server.js');
      await serveMcp({ dir: ctx.dir, session: ctx.session, budget: ctx.budget });
      // stdout belongs to the protocol: nothing more is printed after the client leaves.
      return { text: '', json: null };
    },
  },
  hook: {
    usage: 'gctx hook [--agent claude-code|codex] [--dir <project>] [--session <id>]',
    summary: 'read one hook event on stdin, print one decision (exits 0 whatever the input)',
    flags: { agent: 'one' },
    memory: 'none',
    run: async (p, ctx) => {
      cacheCompiledCode();
      const { hookCommand } = await import('./hook-main.js');
      const stdout = await hookCommand({ agent: one(p, 'agent'), dir: p.flags.has('dir') ? ctx.dir : undefined, session: ctx.session });
      return { text: stdout ?? '', json: stdout === null ? null : JSON.parse(stdout) };
    },
  },
};
