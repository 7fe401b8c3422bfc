/**
 * All of stdin as text, bounded: a hook host writes one JSON object and closes the pipe. A
 * host that never closes it (or a person running `gctx hook` by hand) gets what arrived when
 * the wait runs out, rather than a process that hangs the agent. Over the limit nothing is
 * kept, so the input is reported as malformed, not half-read.
 *
 * On Linux, a file, pipe or terminal on fd 0 is opened afresh through /proc/self/fd/0 without
 * blocking (a file description of this process's own, so fd 0 is left as the host gave it) and
 * read until its end or the wait, sleeping between empty reads: process.stdin would load
 * Node's streams for one read (docs/benchmarks.md). Anything else takes process.stdin: a
 * socket (Node's child_process gives its children socket pairs), which cannot be opened
 * afresh, and every other platform.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { sleepSync } from '../../runtime/sleep.js';

/** Largest input read; Claude Code's tool_response can hold a whole file. */
export const STDIN_LIMIT = 64 * 1024 * 1024;
export const STDIN_WAIT_MS = 10_000;

/** Longest sleep between empty reads: how late a write after a pause is seen. */
const MAX_SLEEP_MS = 16;

export function readStdin(waitMs = STDIN_WAIT_MS): Promise<string> {
  const fd = process.platform === 'linux' ? reopen() : undefined;
  if (fd === undefined) return readStream(process.stdin, waitMs);
  const chunks: Buffer[] = [];
  const deadline = performance.now() + waitMs;
  let size = 0;
  let pause = 1;
  try {
    for (;;) {
      const buf = Buffer.allocUnsafe(64 * 1024);
      let n: number;
      try {
        n = readSync(fd, buf, 0, buf.length, null);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        const left = deadline - performance.now();
        if ((code !== 'EAGAIN' && code !== 'EINTR') || left <= 0) break;
        sleepSync(Math.min(pause, left));
        pause = Math.min(pause * 2, MAX_SLEEP_MS);
        continue;
      }
      size += n;
      if (size > STDIN_LIMIT) return Promise.resolve('');
      if (n === 0) break;
      chunks.push(buf.subarray(0, n));
      pause = 1;
      // A host that writes on and on without closing gets the same wait as one that stops.
      if (performance.now() >= deadline) break;
    }
  } finally {
    closeSync(fd);
  }
  return Promise.resolve(Buffer.concat(chunks).toString('utf8'));
}

/** fd 0 opened afresh without blocking, when it is a file, a pipe or a terminal. */
function reopen(): number | undefined {
  try {
    const s = fstatSync(0);
    if (!s.isFile() && !s.isFIFO() && !s.isCharacterDevice()) return undefined;
    return openSync('/proc/self/fd/0', constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch {
    return undefined;
  }
}

/** Through process.stdin: a socket, and the other platforms. */
function readStream(stream: NodeJS.ReadableStream, waitMs: number): Promise<string> {
  return new Promise((resolve) => {
    let chunks: Buffer[] = [];
    let size = 0;
    const finish = () => {
      clearTimeout(timer);
      stream.removeListener('data', onData);
      stream.removeListener('end', finish);
      stream.removeListener('error', finish);
      stream.pause();
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const onData = (chunk: Buffer | string) => {
      const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += b.length;
      if (size <= STDIN_LIMIT) return void chunks.push(b);
      chunks = [];
      finish();
    };
    const timer = setTimeout(finish, waitMs);
    stream.on('data', onData);
    stream.once('end', finish);
    stream.once('error', finish);
  });
}
