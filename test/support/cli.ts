/** Running the real built gctx binary in a child process. */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../../dist/adapters/cli/main.js', import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function gctx(cwd: string, args: string[], input?: string, env: NodeJS.ProcessEnv = {}): CliResult {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', input, env: { ...process.env, GCC_SESSION: '', ...env } });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}
