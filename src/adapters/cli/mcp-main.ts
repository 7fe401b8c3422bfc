/**
 * `gctx mcp` from the bootstrap (gctx.ts): the MCP server without the command table. The
 * bundle ships it as one file with the SDK and the engine.
 */
import { resolve } from 'node:path';
import { findMemoryRoot } from '../../store/paths.js';
import { serveMcp } from '../mcp/server.js';

/** Serves until the client leaves; false, serving nothing, for a --budget main.ts must refuse with its message. */
export async function mcpFromBootstrap(opts: Readonly<Record<string, string>>): Promise<boolean> {
  const budget = opts.budget === undefined ? undefined : Number(opts.budget);
  if (budget !== undefined && !(Number.isInteger(budget) && budget > 0)) return false;
  // As main.ts: --dir, else the nearest folder upward holding .GCC/, else here.
  const dir = opts.dir ? resolve(opts.dir) : (findMemoryRoot(process.cwd()) ?? process.cwd());
  await serveMcp({ dir, session: opts.session ?? process.env.GCC_SESSION, budget });
  return true;
}
