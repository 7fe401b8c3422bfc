/**
 * How a real `gctx hook` process reads its stdin, by what the host hands it: a pipe, a socket
 * pair (Node's child_process), a regular file. Whatever it is, the hook reads the whole
 * payload however it arrives, and a host that never closes stdin gets an answer when the
 * wait runs out, from what arrived, rather than a hook that hangs. Needs `npm run build`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, constants, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STDIN_WAIT_MS } from '../../../src/adapters/hook/stdin.js';
import { GCTX_JS, NODE } from '../mcp/client.js';
import { fixture } from './run.js';
import { initialized as project } from '../../support/project.js';

const ARGS = [GCTX_JS, 'hook', '--agent', 'claude-code'];
const env = () => {
  const clean: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== 'GCC_SESSION') clean[k] = v;
  return clean;
};

/** A Write into .GCC/ (which the hook denies), its content padded to `size` bytes of payload. */
function denied(dir: string, size = 0): string {
  const base = fixture('pre-tool-use-write-gcc', dir);
  const pad = Math.max(0, size - base.length);
  return base.replace(
    'forged entry',
    `forged entry ${'é'.repeat(Math.floor(pad / 4))}${'x'.repeat(pad - 2 * Math.floor(pad / 4))}`,
  );
}

const decisionOf = (stdout: string) =>
  (JSON.parse(stdout) as { hookSpecificOutput: { permissionDecision?: string } }).hookSpecificOutput.permissionDecision;

interface Ended {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

function ended(child: ReturnType<typeof spawn>, started: number): Promise<Ended> {
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr, ms: Date.now() - started })),
  );
}

describe('gctx hook reading stdin', () => {
  it('reads a payload larger than a pipe buffer that arrives over a pipe in pieces, with pauses', async () => {
    const dir = await project();
    const payload = denied(dir, 200 * 1024);
    const file = join(dir, 'payload.json');
    writeFileSync(file, payload);
    const bytes = Buffer.byteLength(payload);
    expect(bytes).toBeGreaterThan(128 * 1024);
    // The shell's pipe is a pipe, not the socket pair Node would give the child.
    const script = `{ head -c 30000 "$1"; sleep 0.3; tail -c +30001 "$1" | head -c 70000; sleep 0.3; tail -c +100001 "$1"; } | exec "$2" "$3" hook --agent claude-code`;
    const r = spawnSync('sh', ['-c', script, 'sh', file, NODE, GCTX_JS], { cwd: dir, env: env(), encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    expect(decisionOf(r.stdout)).toBe('deny');
  });

  it('reads a payload given as a regular file', async () => {
    const dir = await project();
    const file = join(dir, 'payload.json');
    writeFileSync(file, denied(dir, 100 * 1024));
    const fd = openSync(file, 'r');
    try {
      const r = spawnSync(NODE, ARGS, { cwd: dir, env: env(), encoding: 'utf8', stdio: [fd, 'pipe', 'pipe'] });
      expect(r.status).toBe(0);
      expect(decisionOf(r.stdout)).toBe('deny');
    } finally {
      closeSync(fd);
    }
  });

  it('answers from what arrived when the host never closes stdin, within the wait: a pipe, a socket pair, or nothing written at all', async () => {
    const dir = await project();
    // A FIFO this process holds open for writing too, so the hook never sees its end.
    const fifo = join(dir, 'stdin.fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const held = openSync(fifo, constants.O_RDWR);
    const emptyFifo = join(dir, 'empty.fifo');
    expect(spawnSync('mkfifo', [emptyFifo]).status).toBe(0);
    const heldEmpty = openSync(emptyFifo, constants.O_RDWR);
    try {
      writeSync(held, denied(dir));
      const started = Date.now();
      const overPipe = ended(spawn(NODE, ARGS, { cwd: dir, env: env(), stdio: [held, 'pipe', 'pipe'] }), started);
      const socket = spawn(NODE, ARGS, { cwd: dir, env: env(), stdio: ['pipe', 'pipe', 'pipe'] });
      socket.stdin!.write(denied(dir));
      const overSocket = ended(socket, started);
      const nothing = ended(spawn(NODE, ARGS, { cwd: dir, env: env(), stdio: [heldEmpty, 'pipe', 'pipe'] }), started);
      const [p, s, n] = await Promise.all([overPipe, overSocket, nothing]);
      socket.stdin!.destroy();
      for (const r of [p, s, n]) {
        expect(r.code).toBe(0);
        // It waited; that it then ended at all (stdin still open) is the bound, the test's timeout its check.
        expect(r.ms).toBeGreaterThanOrEqual(STDIN_WAIT_MS - 100);
      }
      expect(decisionOf(p.stdout)).toBe('deny');
      expect(decisionOf(s.stdout)).toBe('deny');
      expect(n.stdout).toBe('');
      expect(n.stderr).toMatch(/nothing on stdin/);
    } finally {
      closeSync(held);
      closeSync(heldEmpty);
    }
  });
});
