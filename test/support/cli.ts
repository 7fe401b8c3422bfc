/** Running the real built gctx executable (package.json `bin`, the bundle) in a child process. */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = new URL('../../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { bin: { gctx: string } };

/** What `npm install` links as `gctx`. */
export const CLI = fileURLToPath(new URL(pkg.bin.gctx, root));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function gctx(cwd: string, args: string[], input?: string, env: NodeJS.ProcessEnv = {}): CliResult {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd,
    encoding: 'utf8',
    input,
    env: { ...process.env, GCC_SESSION: '', ...env },
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}
