/**
 * gctx commands for agent hosts: `mcp` (a stdio MCP server) and `hook` (one hook event in,
 * one decision out). Both load their modules on demand, so the other commands never pay for
 * the MCP SDK and a hook loads only what its event needs.
 */
import * as nodeModule from 'node:module';
import { gccError } from '../../errors.js';
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
      const { HOOK_AGENTS, runHook } = await import('../hook/run-hook.js');
      const { readStdin } = await import('../hook/stdin.js');
      const agent = one(p, 'agent') ?? 'generic';
      if (!(HOOK_AGENTS as readonly string[]).includes(agent)) {
        // A misconfigured hook must not block the agent either: say so on stderr, exit 0.
        process.stderr.write(`gctx hook: ${gccError('E_INVALID_ARGUMENT', `unknown --agent ${JSON.stringify(agent)}`, 'use --agent claude-code, --agent codex, or no --agent for the normalized envelope').oneLine()}\n`);
        return { text: '', json: null };
      }
      const input = await readStdin();
      const out = await runHook({ agent: agent as (typeof HOOK_AGENTS)[number], input, dir: p.flags.has('dir') ? ctx.dir : undefined, session: ctx.session });
      for (const line of out.stderr) process.stderr.write(`${line}\n`);
      return { text: out.stdout ?? '', json: out.stdout === null ? null : JSON.parse(out.stdout) };
    },
  },
};
