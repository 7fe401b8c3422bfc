import type { ExtensionAPI } from '@earendil-works/pi-coding-agent';
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { onPathOutside } from '../../runtime/on-path.js';
import { gctxBin } from '../../runtime/self.js';
/** Prefix Pi gives the tools of the `gcc` MCP server. */
const MCP_TOOL_PREFIX = 'mcp__gcc__';

/**
 * Channel 1, optional: `gctx mcp` registered through Pi's built-in MCP with direct exposure, so
 * its tools are declared like built-ins. Pi reports neither a connection nor a failure to
 * extensions, so each step that can be checked is checked before registering: a connector
 * (the `/mcp` command) must be loaded, and the binary must resolve, since a missing one would
 * look like a server still connecting. Anything else falls back to the in-process tools. A `gcc`
 * server in the user's own mcp.json is what Pi connects instead of any registration of that name,
 * so then that server is the channel, and nothing is registered.
 */

const SERVER_NAME = 'gcc';
/** Seconds per MCP request: generous, a CONTEXT over a long history may take a while. */
const MCP_TIMEOUT_S = 600;

interface McpCommand {
  command: string;
  args: string[];
  /** Where the executable came from, for messages. */
  source: string;
}

/** A `gcc` server in Pi's own mcp.json. */
interface UserServer {
  /** The mcp.json that settles it: the defining file, or a project file overriding the global entry. */
  file: string;
  enabled: boolean;
}

/**
 * How memory is served: our `gctx mcp` (`cmd`, to register), or the user's own `gcc` server from
 * Pi's mcp.json (`user`, its file), which Pi connects instead of any registration of that name.
 */
type McpPlan = { ok: true; cmd: McpCommand } | { ok: true; user: string } | { ok: false; why: string };

/** Decide whether the MCP channel can be used, and with which command or whose server. */
export function planMcp(
  pi: ExtensionAPI,
  bin: string | null,
  user: UserServer | null = null,
  env: NodeJS.ProcessEnv = process.env,
  project: string | null = null,
): McpPlan {
  if (typeof pi.registerMcpServer !== 'function')
    return { ok: false, why: 'this Pi has no registerMcpServer (needs Pi ≥ 1.0)' };
  let connector = false;
  try {
    connector = pi.getCommands().some((c) => c.name === 'mcp');
  } catch {
    connector = false;
  }
  if (!connector)
    return {
      ok: false,
      why: 'no loaded extension connects MCP servers (Pi started with --no-mcp, or its MCP support is replaced)',
    };
  // Pi drops a registration whose name mcp.json defines, disabled or not: the user's entry
  // serves memory, so our executable neither needs to resolve nor gets registered.
  if (user)
    return user.enabled
      ? { ok: true, user: user.file }
      : {
          ok: false,
          why: `the "${SERVER_NAME}" server in ${user.file} is disabled, and it takes precedence over gctx mcp`,
        };
  const cmd = resolveGctx(bin, env, project);
  if (!cmd)
    return {
      ok: false,
      why: bin
        ? `the gctx executable "${bin}" does not resolve`
        : 'no gctx executable found (set GCC_BIN or install git-context-controller)',
    };
  return { ok: true, cmd };
}

/**
 * The command that starts `gctx mcp`: an explicit bin (environment or global file), else
 * `gctx` on PATH, else this package's own executable run with the current Node. A name looked
 * up on PATH is never found in a relative folder or inside `project` (the session's folder): a
 * repository does not choose what Pi runs.
 */
function resolveGctx(
  bin: string | null,
  env: NodeJS.ProcessEnv = process.env,
  project: string | null = null,
): McpCommand | null {
  if (bin) {
    const found =
      isAbsolute(bin) || bin.includes('/') ? (executable(bin) ? bin : null) : onPathOutside(bin, env, project);
    return found ? { command: found, args: ['mcp'], source: bin } : null;
  }
  const fromPath = onPathOutside('gctx', env, project);
  if (fromPath) return { command: fromPath, args: ['mcp'], source: 'PATH' };
  const own = gctxBin();
  if (existsSync(own)) return { command: process.execPath, args: [own, 'mcp'], source: 'this package' };
  return null;
}

/**
 * The `gcc` server in Pi's mcp.json files, read as Pi 1.6 reads them (dist/extensions/mcp/config.js):
 * the agent directory's, then the project's `.pi/mcp.json` (from the session cwd) when the project
 * is trusted. A project entry with a command or url replaces the global one; one without only
 * overrides its `enabled` (and exposure). An entry Pi would reject for another reason still counts
 * here: its tools then never appear, and the channel falls back as for a server that is down.
 */
export function userServer(agentDir: string, cwd: string, projectTrusted: boolean): UserServer | null {
  let found: UserServer | null = null;
  const files = [join(agentDir, 'mcp.json'), ...(projectTrusted ? [join(cwd, '.pi', 'mcp.json')] : [])];
  for (const file of files) {
    const entry = mcpJsonEntry(file, SERVER_NAME);
    if (!entry) continue;
    const defines = typeof entry.command === 'string' || typeof entry.url === 'string';
    if (defines) found = { file, enabled: entry.enabled !== false };
    else if (
      found &&
      file !== files[0] &&
      entry.command === undefined &&
      entry.url === undefined &&
      entry.type === undefined
    ) {
      found = { file, enabled: entry.enabled === undefined ? found.enabled : entry.enabled !== false };
    }
  }
  return found;
}

function mcpJsonEntry(file: string, name: string): Record<string, unknown> | null {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8').replace(/^\uFEFF/, '')) as {
      mcpServers?: Record<string, unknown>;
    };
    const entry = parsed?.mcpServers?.[name];
    return typeof entry === 'object' && entry !== null && !Array.isArray(entry)
      ? (entry as Record<string, unknown>)
      : null;
  } catch {
    return null; // missing or malformed: Pi reads no servers from it either
  }
}

export function registerMcp(pi: ExtensionAPI, cmd: McpCommand, cwd: string, session: string): string | null {
  try {
    pi.registerMcpServer(SERVER_NAME, {
      command: cmd.command,
      args: [...cmd.args, '--session', session],
      cwd,
      // The server acts for this Pi session, so its calls and the hook bridge share a branch.
      env: { GCC_SESSION: session },
      exposure: 'direct',
      timeout: MCP_TIMEOUT_S,
      description: 'GCC project memory: commit, branch, merge, roadmap and context over .GCC/',
    });
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

/** Whether a callable `mcp__gcc__` tool is registered (withdrawn tools linger as hidden). */
function mcpToolsVisible(pi: ExtensionAPI): boolean {
  try {
    return pi
      .getAllTools()
      .some((t) => t.name.startsWith(MCP_TOOL_PREFIX) && (t as { exposure?: string }).exposure !== 'hidden');
  } catch {
    return false;
  }
}

/** Poll for the server's tools: Pi has no event for them. Resolves true when seen, false at the cap. */
export async function waitForMcpTools(pi: ExtensionAPI, capMs: number, isStale: () => boolean): Promise<boolean> {
  const deadline = Date.now() + capMs;
  while (Date.now() < deadline && !isStale()) {
    if (mcpToolsVisible(pi)) return true;
    await new Promise((r) => setTimeout(r, 25).unref());
  }
  return mcpToolsVisible(pi);
}

function executable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
