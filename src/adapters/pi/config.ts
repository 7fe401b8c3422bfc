import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { MIN_BUDGET } from '../../context/budget.js';

/**
 * The extension's settings, layered: environment → project file → global file → defaults.
 * Resolved on every session start against the session's own directory (a resumed session runs
 * where it was created, not where Pi was launched), so one install serves every project.
 *
 * The project file lives in whatever repository the session runs in, so it is treated as
 * untrusted: it can never choose an executable (`bin`) or point outside the project.
 */

export type Channel = 'tools' | 'mcp';

export interface PiConfig {
  /** How the model reaches memory: in-process tools, or `gctx mcp` through Pi's MCP. */
  channel: Channel;
  /** `gctx` executable for the MCP channel. Environment or global file only. */
  bin: string | null;
  /** Log every tool call and guard `.GCC/` through the hook bridge. */
  hook: boolean;
  /** Inject the session briefing as a hidden message. */
  briefing: boolean;
  briefingBudget: number;
  /** Default token budget of a CONTEXT answer. */
  contextBudget: number;
  /** Cap on the first turn's wait for memory, in ms. */
  readyTimeoutMs: number;
  /** Cap on one hook decision, in ms. */
  hookTimeoutMs: number;
  /** Folder holding `.GCC/`, relative to the project root. */
  memoryDir: string;
  /** Create `.GCC/` on session start when it is missing. */
  autoInit: boolean;
}

export const DEFAULTS: PiConfig = {
  channel: 'tools',
  bin: null,
  hook: true,
  briefing: true,
  briefingBudget: 900,
  contextBudget: 2000,
  readyTimeoutMs: 10_000,
  hookTimeoutMs: 5_000,
  memoryDir: '.',
  autoInit: false,
};

/** Project file, relative to the project root: beside Pi's own `.pi/settings.json`. */
const PROJECT_FILE = join('.pi', 'gcc.json');
/** Global file name, in Pi's agent directory (`$PI_CODING_AGENT_DIR` or `~/.pi/agent`). */
const GLOBAL_FILE = 'gcc.json';

/** Environment variable of each key. */
export const ENV_VARS: Record<keyof PiConfig, string> = {
  channel: 'GCC_PI_CHANNEL',
  bin: 'GCC_BIN',
  hook: 'GCC_PI_HOOK',
  briefing: 'GCC_PI_BRIEFING',
  briefingBudget: 'GCC_PI_BRIEFING_BUDGET',
  contextBudget: 'GCC_PI_CONTEXT_BUDGET',
  readyTimeoutMs: 'GCC_PI_READY_TIMEOUT_MS',
  hookTimeoutMs: 'GCC_PI_HOOK_TIMEOUT_MS',
  memoryDir: 'GCC_PI_MEMORY_DIR',
  autoInit: 'GCC_PI_AUTO_INIT',
};

type Layer = 'env' | 'project' | 'global' | 'default';

export interface ResolvedConfig {
  config: PiConfig;
  /** Which layer each value came from, for `/gcc status`. */
  sources: Record<keyof PiConfig, Layer>;
  /** Project root: nearest folder holding `.GCC/`, else the git root, else the session cwd. */
  projectRoot: string;
  /** Absolute folder holding `.GCC/`. */
  memoryRoot: string;
  projectFile: string;
  globalFile: string;
  warnings: string[];
}

export function agentDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.PI_CODING_AGENT_DIR || join(homedir(), '.pi', 'agent');
}

export function resolveConfig(cwd: string, env: NodeJS.ProcessEnv = process.env): ResolvedConfig {
  const warnings: string[] = [];
  const projectRoot = findProjectRoot(cwd);
  const projectFile = join(projectRoot, PROJECT_FILE);
  const globalFile = join(agentDir(env), GLOBAL_FILE);

  const envLayer: Record<string, unknown> = {};
  for (const [key, name] of Object.entries(ENV_VARS))
    if (env[name] !== undefined && env[name] !== '') envLayer[key] = env[name];
  const project = readLayer(projectFile, warnings);
  if (project && 'bin' in project) {
    warnings.push(
      `${projectFile}: "bin" is ignored in a project file (a cloned repository must not choose the executable Pi runs); set GCC_BIN or the global file`,
    );
    delete project.bin;
  }
  const global = readLayer(globalFile, warnings);

  const config = { ...DEFAULTS };
  const sources = Object.fromEntries(Object.keys(DEFAULTS).map((k) => [k, 'default'])) as Record<keyof PiConfig, Layer>;
  const layers: [Layer, string, Record<string, unknown> | null][] = [
    ['global', globalFile, global],
    ['project', projectFile, project],
    ['env', 'environment', envLayer],
  ];
  // Lowest precedence first; a value that fails validation leaves the lower layer's value.
  for (const [layer, where, values] of layers) {
    if (!values) continue;
    for (const [key, raw] of Object.entries(values)) {
      if (!(key in DEFAULTS)) {
        warnings.push(`${where}: unknown key "${key}" ignored`);
        continue;
      }
      const k = key as keyof PiConfig;
      const parsed = parseValue(k, raw);
      if (parsed === undefined) {
        warnings.push(`${where}: invalid value for "${key}" (${JSON.stringify(raw)}); using the ${sources[k]} value`);
        continue;
      }
      if (k === 'memoryDir' && layer === 'project' && !insideProject(projectRoot, parsed as string)) {
        warnings.push(`${where}: "memoryDir" must stay inside the project; ignored`);
        continue;
      }
      (config as Record<string, unknown>)[k] = parsed;
      sources[k] = layer;
    }
  }
  const memoryRoot = resolve(projectRoot, config.memoryDir);
  return { config, sources, projectRoot, memoryRoot, projectFile, globalFile, warnings };
}

function parseValue(key: keyof PiConfig, raw: unknown): PiConfig[keyof PiConfig] | undefined {
  const d = DEFAULTS[key];
  switch (key) {
    case 'channel':
      return raw === 'tools' || raw === 'mcp' ? raw : undefined;
    case 'bin':
    case 'memoryDir':
      return typeof raw === 'string' && raw.trim() !== '' && !raw.includes('\0') ? raw : undefined;
    default:
      if (typeof d === 'boolean') {
        if (typeof raw === 'boolean') return raw;
        if (raw === 'true' || raw === '1') return true;
        if (raw === 'false' || raw === '0') return false;
        return undefined;
      }
      if (typeof d === 'number') {
        const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
        const least = key === 'contextBudget' || key === 'briefingBudget' ? MIN_BUDGET : 1;
        return Number.isFinite(n) && n >= least && n <= 3_600_000 ? Math.floor(n) : undefined;
      }
      return undefined;
  }
}

/** A malformed file is a warning, never an error: the next layer takes over. */
function readLayer(file: string, warnings: string[]): Record<string, unknown> | null {
  let text: string;
  try {
    if (!existsSync(file)) return null;
    text = readFileSync(file, 'utf8');
  } catch (err) {
    warnings.push(`${file}: unreadable (${(err as Error).message}); skipped`);
    return null;
  }
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('not a JSON object');
    return { ...(value as Record<string, unknown>) };
  } catch (err) {
    warnings.push(`${file}: malformed (${(err as Error).message}); skipped, using the next layer`);
    return null;
  }
}

function insideProject(root: string, dir: string): boolean {
  if (isAbsolute(dir)) return false;
  const within = (base: string, target: string) => {
    const rel = relative(base, target);
    return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
  };
  const target = resolve(root, dir);
  if (!within(root, target)) return false;
  // A symlinked folder may still lead out of the project.
  try {
    return within(realpathSync(root), realpathSync(target));
  } catch {
    return true; // does not exist yet: nothing to follow
  }
}

/** Nearest ancestor holding `.GCC/`; else the nearest holding `.git`; else `cwd` itself. */
function findProjectRoot(cwd: string): string {
  const start = resolve(cwd);
  let gitRoot: string | null = null;
  for (let dir = start, i = 0; i < 128; i++) {
    if (isDir(join(dir, '.GCC'))) return dir;
    if (gitRoot === null && existsSync(join(dir, '.git'))) gitRoot = dir;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return gitRoot ?? start;
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
