/**
 * Tests that need something beyond Node, npm and git skip without it, and say so once, naming
 * the Debian package that brings it (CI installs them all, so there they run).
 */
import { spawnSync } from 'node:child_process';

const said = new Set<string>();

/** Whether `program` is on PATH. */
export const has = (program: string): boolean =>
  spawnSync('sh', ['-c', 'command -v "$1"', 'sh', program], { stdio: 'ignore' }).status === 0;

/** One line, once per file and reason: what `file` skips and what to install to run it. */
export function skipping(file: string, why: string): void {
  const line = `${file}: skipped, ${why}`;
  if (said.has(line)) return;
  said.add(line);
  console.warn(line);
}
