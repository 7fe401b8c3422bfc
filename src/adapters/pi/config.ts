/**
 * The extension's settings, layered: environment → project file → global file → defaults.
 * Resolved on every session start against the session's own directory (a resumed session runs
 * where it was created, not where Pi was launched), so one install serves every project.
 *
 * The project file lives in whatever repository the session runs in, so it is treated as
 * untrusted: it can never choose an executable (`bin`) or point outside the project.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { MIN_BUDGET } from '../../context/budget.js';
import { findRepo } from '../../store/git-probe.js';
import { findMemoryRoot } from '../../store/paths.js';

/** Each setting's default and environment variable (docs/pi.md says what each does). */
const KEYS = {
  channel: ['tools' as 'tools' | 'mcp', 'GCC_PI_CHANNEL'],
  bin: [null as string | null, 'GCC_BIN'],
  hook: [true, 'GCC_PI_HOOK'],
  briefing: [true, 'GCC_PI_BRIEFING'],
  briefingBudget: [900, 'GCC_PI_BRIEFING_BUDGET'],
  contextBudget: [2000, 'GCC_PI_CONTEXT_BUDGET'],
  readyTimeoutMs: [10_000, 'GCC_PI_READY_TIMEOUT_MS'],
  hookTimeoutMs: [5_000, 'GCC_PI_HOOK_TIMEOUT_MS'],
  memoryDir: ['.', 'GCC_PI_MEMORY_DIR'],
  autoInit: [false, 'GCC_PI_AUTO_INIT'],
} as const;

type Widen<T> = T extends number ? number : T extends boolean ? boolean : T;
export type PiConfig = { -readonly [K in keyof typeof KEYS]: Widen<(typeof KEYS)[K][0]> };

export const DEFAULTS = Object.fromEntries(Object.entries(KEYS).map(([k, [d]]) => [k, d])) as PiConfig;

/** Environment variable of each key. */
export const ENV_VARS = Object.fromEntries(Object.entries(KEYS).map(([k, [, e]]) => [k, e])) as Record<
  keyof PiConfig,
  string
>;

type Layer = 'env' | 'project' | 'global' | 'default';

export interface ResolvedConfig {
  config: PiConfig;
  /** Which layer each value came from, for `/gcc status`. */
  sources: Record<keyof PiConfig, Layer>;
  /** Project root: nearest folder holding `.GCC/`, else the git root, else the session cwd. */
  projectRoot: string;
  /** Absolute folder holding `.GCC/`. */
  memoryRoot: string;
  /** `.pi/gcc.json` in the project root, beside Pi's own `.pi/settings.json`. */
  projectFile: string;
  /** `gcc.json` in Pi's agent directory. */
  globalFile: string;
  warnings: string[];
}

export function agentDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.PI_CODING_AGENT_DIR || join(homedir(), '.pi', 'agent');
}

export function resolveConfig(cwd: string, env: NodeJS.ProcessEnv = process.env): ResolvedConfig {
  const warnings: string[] = [];
  const projectRoot = findMemoryRoot(cwd) ?? findRepo(cwd)?.top ?? resolve(cwd);
  const projectFile = join(projectRoot, '.pi', 'gcc.json');
  const globalFile = join(agentDir(env), 'gcc.json');
  const envLayer: Record<string, unknown> = {};
  for (const [key, name] of Object.entries(ENV_VARS)) if (env[name]) envLayer[key] = env[name];
  const project = readLayer(projectFile, warnings);
  if (project && 'bin' in project) {
    warnings.push(
      `${projectFile}: "bin" is ignored in a project file (a cloned repository must not choose the executable Pi ` +
        'runs); set GCC_BIN or the global file',
    );
    delete project.bin;
  }
  const config = { ...DEFAULTS };
  const sources = Object.fromEntries(Object.keys(DEFAULTS).map((k) => [k, 'default'])) as Record<keyof PiConfig, Layer>;
  const layers: [Layer, string, Record<string, unknown> | null][] = [
    ['global', globalFile, readLayer(globalFile, warnings)],
    ['project', projectFile, project],
    ['env', 'environment', envLayer],
  ];
  // Lowest precedence first; a value that fails validation leaves the lower layer's value.
  for (const [layer, where, values] of layers) {
    for (const [key, raw] of Object.entries(values ?? {})) {
      if (!Object.hasOwn(DEFAULTS, key)) {
        warnings.push(`${where}: unknown key "${key}" ignored`);
        continue;
      }
      const k = key as keyof PiConfig;
      const parsed = parseValue(k, raw);
      if (parsed === undefined)
        warnings.push(`${where}: invalid value for "${key}" (${JSON.stringify(raw)}); using the ${sources[k]} value`);
      else if (k === 'memoryDir' && layer === 'project' && !insideProject(projectRoot, parsed as string))
        warnings.push(`${where}: "memoryDir" must stay inside the project; ignored`);
      else {
        (config as Record<string, unknown>)[k] = parsed;
        sources[k] = layer;
      }
    }
  }
  const memoryRoot = resolve(projectRoot, config.memoryDir);
  return { config, sources, projectRoot, memoryRoot, projectFile, globalFile, warnings };
}

function parseValue(key: keyof PiConfig, raw: unknown): PiConfig[keyof PiConfig] | undefined {
  const d = DEFAULTS[key];
  if (key === 'channel') return raw === 'tools' || raw === 'mcp' ? raw : undefined;
  if (key === 'bin' || key === 'memoryDir')
    return typeof raw === 'string' && raw.trim() !== '' && !raw.includes('\0') ? raw : undefined;
  if (typeof d === 'boolean')
    return typeof raw === 'boolean'
      ? raw
      : raw === 'true' || raw === '1'
        ? true
        : raw === 'false' || raw === '0'
          ? false
          : undefined;
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
  const least = key === 'contextBudget' || key === 'briefingBudget' ? MIN_BUDGET : 1;
  return Number.isFinite(n) && n >= least && n <= 3_600_000 ? Math.floor(n) : undefined;
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
