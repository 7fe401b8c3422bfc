/**
 * All of stdin as text, bounded: a hook host writes one JSON object and closes the pipe. A
 * host that never closes it (or a person running `gctx hook` by hand) gets what arrived when
 * the wait runs out, rather than a process that hangs the agent. Over the limit nothing is
 * kept, so the input is reported as malformed, not half-read.
 */

/** Largest input read; Claude Code's tool_response can hold a whole file. */
export const STDIN_LIMIT = 64 * 1024 * 1024;
export const STDIN_WAIT_MS = 10_000;

export function readStdin(stream: NodeJS.ReadableStream = process.stdin, waitMs = STDIN_WAIT_MS): Promise<string> {
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
      if (size > STDIN_LIMIT) {
        chunks = [];
        return finish();
      }
      chunks.push(b);
    };
    const timer = setTimeout(finish, waitMs);
    stream.on('data', onData);
    stream.once('end', finish);
    stream.once('error', finish);
  });
}
