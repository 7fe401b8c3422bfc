/**
 * `gctx hook install [--agent claude-code|codex] [--http]`: the hooks gctx needs, written into
 * Claude Code's settings (`.claude/settings.json` in the project, or `~/.claude/settings.json` with
 * --user) or Codex's hooks file (`.codex/hooks.json`, `~/.codex/hooks.json`), merged into what is there: other hooks
 * and settings are kept as they are, and
 * gctx's own earlier entries (command or http, on any port) are replaced, so installing
 * twice, or switching between the process hook and the daemon, leaves one entry per event.
 *
 * With --http the events go to `gctx serve` (POST /hooks/claude-code), the token taken from
 * the environment through `allowedEnvVars` so it never lands in a file that may be committed.
 * SessionStart stays a command hook: Claude Code runs only command (and MCP tool) hooks for it.
 */
import { existsSync, lstatSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { shellQuote } from '../../engine/git/git.js';
import { gccError } from '../../errors.js';
import { inside, onPathOutside, realOrSelf } from '../../runtime/on-path.js';
import { gctxBin } from '../../runtime/self.js';
import { makeFolders } from '../../store/project-folder.js';

export const HOOK_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'PreCompact',
  'SessionEnd',
] as const;
export type ClaudeHookEvent = (typeof HOOK_EVENTS)[number];
export type InstallAgent = 'claude-code' | 'codex';

/** What each host is given: its events, the calls its tool events are asked about, the command's arguments. */
interface AgentSpec {
  events: readonly ClaudeHookEvent[];
  matchers: Readonly<Record<string, string>>;
  args: string;
}

/**
 * Which tool calls each tool event is asked about: every call is logged after it ran, but
 * only the tools that can write need the guard before (docs/agents.md), which spares a
 * process per read when the hook is a command.
 */
const MATCHERS: Readonly<Record<string, string>> = {
  PreToolUse: 'Write|Edit|MultiEdit|NotebookEdit|Bash',
  PostToolUse: '*',
  PostToolUseFailure: '*',
};
/** Codex tells no MCP server its session: the hooks and the server agree on one name (docs/agents.md). */
const SPECS: Readonly<Record<InstallAgent, AgentSpec>> = {
  'claude-code': { events: HOOK_EVENTS, matchers: MATCHERS, args: 'hook --agent claude-code' },
  codex: {
    events: ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'PreCompact'],
    matchers: { PreToolUse: 'Bash|apply_patch', PostToolUse: 'Bash|apply_patch' },
    args: 'hook --agent codex --session codex',
  },
};
/** Events Claude Code does not run HTTP hooks for. */
const COMMAND_ONLY: ReadonlySet<string> = new Set(['SessionStart']);

export const TOKEN_ENV = 'GCC_SERVE_TOKEN';
export const HOOK_COMMAND = 'gctx hook --agent claude-code';
/**
 * Seconds Claude Code waits for one hook; past it, the host goes on without the answer (fail open). A first open after
 * a pull of much history can take that long (docs/agents.md).
 */
const TIMEOUT_S = 10;

export type HookEntry =
  | { type: 'command'; command: string; timeout: number }
  | { type: 'http'; url: string; headers: Record<string, string>; allowedEnvVars: string[]; timeout: number };

export interface InstallOptions {
  /** The settings file to write. */
  file: string;
  /** Send events to the daemon at this port; undefined: the process hook. */
  httpPort?: number | undefined;
  /** The command hooks run (resolveHookCommand); default `gctx hook --agent claude-code`. */
  command?: string | undefined;
  /** Whose file it is; default claude-code. */
  agent?: InstallAgent | undefined;
  /**
   * The project the file lies in, for a project's settings: the repository brings `.claude/`,
   * so a link there (to a file outside, or a folder elsewhere) is refused rather than read
   * into the settings or written through. Left out for the user's own `~/.claude`.
   */
  project?: string | undefined;
}

/** Refuse `file` when it, or a folder between `project` and it, is a symbolic link. */
function assertNoLinkUnder(project: string, file: string): void {
  const parts = relative(project, file).split(sep);
  let cur = project;
  for (const part of parts) {
    cur = join(cur, part);
    let link = false;
    try {
      link = lstatSync(cur).isSymbolicLink();
    } catch {
      return; // missing: nothing further down exists, and it is made as a real folder and file
    }
    if (link) {
      const rel = relative(project, cur);
      throw gccError(
        'E_PATH_ESCAPE',
        `${rel} is a symbolic link (the repository may have put it there); hook settings are written only to a ` +
          'real file in the project',
        `look at where it leads, then replace it with a real ${part === 'settings.json' ? 'file' : 'folder'}: ` +
          `rm ${rel}`,
      );
    }
  }
}

export interface HookCommand {
  command: string;
  /** Said when the command is not the portable `gctx hook …`, or may not resolve. */
  warning: string | null;
}

const GLOBAL_FIX = (agent: InstallAgent) =>
  `npm install -g git-context-controller, then run \`gctx hook install --agent ${agent}\` again`;

/**
 * The command the host runs for each hook event: the node running this install and this gctx,
 * both by absolute path, so a hook runs where it was installed whatever PATH the host gives it
 * (a GUI-started editor, a version manager's shims). A project file never chooses the
 * executable: when this gctx or this node lies inside the project, `gctx` by name is written
 * instead, and only a PATH entry outside the project counts (`npm run` puts the project's
 * node_modules/.bin there).
 */
export function resolveHookCommand(
  project: string,
  env: NodeJS.ProcessEnv = process.env,
  own = gctxBin(),
  node = process.execPath,
  agent: InstallAgent = 'claude-code',
): HookCommand {
  const root = realOrSelf(project);
  const args = SPECS[agent].args;
  const byName = `gctx ${args}`;
  if (existsSync(own) && !inside(root, realOrSelf(own)) && !inside(root, realOrSelf(node))) {
    const cached = /[\\/]_npx[\\/]/.test(own);
    return {
      command: `${shellQuote(node)} ${shellQuote(own)} ${args}`,
      warning: cached
        ? `the hooks run this gctx by its path in npx's cache (${own}), which holds only until npx clears it. ` +
          `Fix: ${GLOBAL_FIX(agent)}`
        : null,
    };
  }
  if (onPathOutside('gctx', env, root)) return { command: byName, warning: null };
  return {
    command: byName,
    warning:
      `gctx is not on PATH, so every hook's \`${byName}\` fails with "gctx: not found" until it is (this gctx, ` +
      `inside the project, is not written into the settings). Fix: ${GLOBAL_FIX(agent)}`,
  };
}

export interface InstallResult {
  file: string;
  entries: Array<{ event: ClaudeHookEvent; type: HookEntry['type'] }>;
  changed: boolean;
}

export function settingsFile(
  scope: 'project' | 'user',
  projectDir: string,
  home: string,
  agent: InstallAgent = 'claude-code',
): string {
  const [folder, name] = agent === 'codex' ? ['.codex', 'hooks.json'] : ['.claude', 'settings.json'];
  return join(scope === 'user' ? home : projectDir, folder, name);
}

export function entryFor(event: ClaudeHookEvent, httpPort: number | undefined, command = HOOK_COMMAND): HookEntry {
  if (httpPort === undefined || COMMAND_ONLY.has(event)) return { type: 'command', command, timeout: TIMEOUT_S };
  return {
    type: 'http',
    url: `http://127.0.0.1:${httpPort}/hooks/claude-code`,
    headers: { Authorization: `Bearer $${TOKEN_ENV}` },
    allowedEnvVars: [TOKEN_ENV],
    timeout: TIMEOUT_S,
  };
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An entry an earlier install wrote: the process hook, or the daemon's route on any loopback port. */
function isOurs(h: unknown, agent: InstallAgent = 'claude-code'): boolean {
  if (!isObj(h)) return false;
  if (h.type === 'command' && typeof h.command === 'string')
    return /(^|[\s/"'])gctx(\.js)?["']?\s+hook\b/.test(h.command) && h.command.includes(agent);
  if (h.type === 'http' && typeof h.url === 'string')
    return /^http:\/\/(127\.0\.0\.1|localhost|\[::1\]):\d+\/hooks\/claude-code$/.test(h.url);
  return false;
}

function readSettings(file: string): Obj {
  if (!existsSync(file)) return {};
  const text = readFileSync(file, 'utf8');
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw gccError(
      'E_INVALID_ARGUMENT',
      `${file} is not JSON (${(err as Error).message}); nothing was written`,
      'fix or remove the file, then install again',
    );
  }
  if (!isObj(parsed))
    throw gccError(
      'E_INVALID_ARGUMENT',
      `${file} does not hold a JSON object; nothing was written`,
      'fix or remove the file, then install again',
    );
  return parsed;
}

/** The settings with gctx's hooks in place; throws E_INVALID_ARGUMENT for a shape it must not guess at. */
export function withHooks(
  settings: Obj,
  httpPort: number | undefined,
  file = 'settings',
  command = HOOK_COMMAND,
  agent: InstallAgent = 'claude-code',
): Obj {
  const spec = SPECS[agent];
  const hooks = settings.hooks ?? {};
  if (!isObj(hooks))
    throw gccError(
      'E_INVALID_ARGUMENT',
      `${file}: "hooks" is not an object; nothing was written`,
      'fix the file, then install again',
    );
  const out: Obj = { ...hooks };
  for (const event of spec.events) {
    const groups = out[event] ?? [];
    if (!Array.isArray(groups))
      throw gccError(
        'E_INVALID_ARGUMENT',
        `${file}: hooks.${event} is not a list; nothing was written`,
        'fix the file, then install again',
      );
    const kept: unknown[] = [];
    for (const g of groups) {
      if (!isObj(g) || !Array.isArray(g.hooks)) {
        kept.push(g);
        continue;
      }
      const others = g.hooks.filter((h) => !isOurs(h, agent));
      if (others.length === g.hooks.length) kept.push(g);
      else if (others.length > 0) kept.push({ ...g, hooks: others });
    }
    const matcher = spec.matchers[event];
    kept.push({ ...(matcher ? { matcher } : {}), hooks: [entryFor(event, httpPort, command)] });
    out[event] = kept;
  }
  return { ...settings, hooks: out };
}

export function installClaudeHooks(opts: InstallOptions): InstallResult {
  if (opts.project !== undefined) assertNoLinkUnder(opts.project, opts.file);
  const before = existsSync(opts.file) ? readFileSync(opts.file, 'utf8') : null;
  const agent = opts.agent ?? 'claude-code';
  const settings = withHooks(readSettings(opts.file), opts.httpPort, opts.file, opts.command, agent);
  const next = `${JSON.stringify(settings, null, 2)}\n`;
  const changed = next !== before;
  if (changed) {
    makeFolders(dirname(opts.file));
    const tmp = `${opts.file}.gctx-${process.pid}`;
    // Created, never followed: a link already at the temporary name is refused, not written through.
    writeFileSync(tmp, next, { flag: 'wx' });
    renameSync(tmp, opts.file);
  }
  return {
    file: opts.file,
    entries: SPECS[agent].events.map((event) => ({ event, type: entryFor(event, opts.httpPort, opts.command).type })),
    changed,
  };
}
