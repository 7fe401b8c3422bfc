/**
 * A command's answer, written to fd 1 with fs calls rather than through process.stdout, whose
 * stream classes are Node's streams: loaded for one write. Written whole: a partial write is
 * continued, and a descriptor the host left non-blocking is waited on while it is full.
 *
 * A reader that stopped early (`gctx graph | head`) closed the pipe: the rest of the answer is
 * not wanted, and that is not a failure of the command: the process exits quietly, with the
 * code the command had. Any other error is thrown as it was.
 *
 * The last guard of the terminal: whatever reaches fd 1 or fd 2 through here carries no control
 * character but newline and tab (log/safe-text.ts), so no text from memory that a renderer let
 * through can move the cursor, set the title, write the clipboard or open a hyperlink.
 */
import { writeSync } from 'node:fs';
import { safeText } from '../../log/safe-text.js';
import { sleepSync } from '../../runtime/sleep.js';

/** Longest sleep while fd 1 is full: how late a reader that drains it is written to again. */
const MAX_SLEEP_MS = 16;

/** @param exitCode the code to exit with if the reader is gone; by default process.exitCode, else 0. */
export function writeOut(text: string, exitCode?: number): void {
  const bytes = Buffer.from(safeText(text), 'utf8');
  let pause = 1;
  for (let at = 0; at < bytes.length; ) {
    try {
      at += writeSync(1, bytes, at, bytes.length - at);
      pause = 1;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EPIPE') process.exit(exitCode ?? (typeof process.exitCode === 'number' ? process.exitCode : 0));
      // No fd 1 at all (closed by whoever started gctx): nowhere to write, as with process.stdout.
      if (code === 'EBADF') return;
      if (code !== 'EAGAIN') throw err;
      sleepSync(pause);
      pause = Math.min(pause * 2, MAX_SLEEP_MS);
    }
  }
}

/** A message for stderr, guarded as writeOut guards fd 1. */
export function writeErr(text: string): void {
  process.stderr.write(safeText(text));
}

/**
 * JSON for a terminal or a pipe: JSON.stringify escapes C0 controls but writes DEL, C1 and the
 * bidirectional controls as they are; those are escaped too, so the data arrives whole and the
 * guard has nothing to replace.
 */
export function jsonText(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(
    /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
