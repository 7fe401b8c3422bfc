/** Test helper: the real `gctx hook` process, fed one payload on stdin. Needs `npm run build`. */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GCTX_JS, MAIN_JS, NODE, REPO } from '../mcp/client.js';

export interface HookRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Through the package's bin (the bootstrap's fast path) unless `entry` says main.js. */
export function runHook(
  args: string[],
  stdin: string,
  cwd: string,
  env: Record<string, string> = {},
  entry = GCTX_JS,
): HookRun {
  const clean: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== 'GCC_SESSION') clean[k] = v;
  const r = spawnSync(NODE, [entry, 'hook', ...args], {
    input: stdin,
    cwd,
    env: { ...clean, ...env },
    encoding: 'utf8',
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

export { MAIN_JS };

/** A recorded Claude Code payload with its cwd pointed at `dir`. */
export function fixture(name: string, dir: string): string {
  const raw = readFileSync(join(REPO, 'test/fixtures/claude-code', `${name}.json`), 'utf8');
  return raw.replaceAll('__CWD__', JSON.stringify(dir).slice(1, -1));
}
