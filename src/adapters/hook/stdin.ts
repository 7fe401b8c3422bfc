/**
 * All of stdin as text, bounded: a hook host writes one JSON object and closes the pipe. A
 * host that never closes it (or a person running `gctx hook` by hand) gets what arrived when
 * the wait runs out, rather than a process that hangs the agent.
 *
 * On Linux, fd 0 is read without process.stdin, which would load Node's streams for one read:
 * a regular file is read to its end; a pipe or a terminal is opened afresh through
 * /proc/self/fd/0 without blocking (a file description of this process's own, so fd 0 is left
 * as the host gave it) and read until its end or the wait, sleeping between empty reads.
 * Anything else takes process.stdin, which waits without blocking: a socket (Node's
 * child_process gives its children socket pairs), which cannot be opened afresh, and whose
 * blocking read, once waiting, could not be abandoned (it would hold the process at exit);
 * and every other platform.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { sleepSync } from '../../runtime/sleep.js';

/** Largest input read; Claude Code's tool_response can hold a whole file. */
export const STDIN_LIMIT = 64 * 1024 * 1024;
export const STDIN_WAIT_MS = 10_000;

const PIECE = 64 * 1024;

export function readStdin(waitMs = STDIN_WAIT_MS): Promise<string> {
  if (process.platform === 'linux') {
    const kind = fdKind(0);
    if (kind === 'file') return Promise.resolve(readFileFd(0));
    if (kind === 'other') {
      const fd = reopenNonBlocking(0);
      if (fd !== undefined) {
        try {
          return Promise.resolve(readNonBlocking(fd, waitMs));
        } finally {
          closeSync(fd);
        }
      }
    }
  }
  return readStream(process.stdin, waitMs);
}

/**
 * Bytes read so far, with the limit: over it, nothing is kept, so the input is reported as malformed, not half-read.
 */
class Collected {
  private readonly chunks: Buffer[] = [];
  private size = 0;

  add(b: Buffer): boolean {
    if (this.size + b.length > STDIN_LIMIT) {
      this.chunks.length = 0;
      return false;
    }
    this.size += b.length;
    this.chunks.push(b);
    return true;
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

function fdKind(fd: number): 'file' | 'other' | undefined {
  try {
    const s = fstatSync(fd);
    return s.isFile() ? 'file' : s.isFIFO() || s.isCharacterDevice() ? 'other' : undefined;
  } catch {
    return undefined;
  }
}

function readFileFd(fd: number): string {
  const got = new Collected();
  for (;;) {
    const buf = Buffer.allocUnsafe(PIECE);
    let n: number;
    try {
      n = readSync(fd, buf, 0, PIECE, null);
    } catch {
      break;
    }
    if (n === 0 || !got.add(buf.subarray(0, n))) break;
  }
  return got.text();
}

function reopenNonBlocking(fd: number): number | undefined {
  try {
    return openSync(`/proc/self/fd/${fd}`, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch {
    return undefined;
  }
}

/** Longest sleep between empty reads: how late a write after a pause is seen. */
const MAX_SLEEP_MS = 16;

function readNonBlocking(fd: number, waitMs: number): string {
  const got = new Collected();
  const deadline = performance.now() + waitMs;
  let pause = 1;
  let buf = Buffer.allocUnsafe(PIECE);
  for (;;) {
    let n: number;
    try {
      n = readSync(fd, buf, 0, PIECE, null);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EAGAIN' && code !== 'EINTR') break;
      const left = deadline - performance.now();
      if (left <= 0) break;
      sleepSync(Math.min(pause, left));
      pause = Math.min(pause * 2, MAX_SLEEP_MS);
      continue;
    }
    if (n === 0 || !got.add(buf.subarray(0, n))) break;
    // A host that writes on and on without closing gets the same wait as one that stops.
    if (performance.now() >= deadline) break;
    buf = Buffer.allocUnsafe(PIECE);
    pause = 1;
  }
  return got.text();
}

/** Through process.stdin: the other platforms, and an fd 0 not read above. */
export function readStream(stream: NodeJS.ReadableStream, waitMs = STDIN_WAIT_MS): Promise<string> {
  return new Promise((resolve) => {
    const got = new Collected();
    const finish = () => {
      clearTimeout(timer);
      stream.removeListener('data', onData);
      stream.removeListener('end', finish);
      stream.removeListener('error', finish);
      stream.pause();
      resolve(got.text());
    };
    const onData = (chunk: Buffer | string) => {
      if (!got.add(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)) finish();
    };
    const timer = setTimeout(finish, waitMs);
    stream.on('data', onData);
    stream.once('end', finish);
    stream.once('error', finish);
  });
}
