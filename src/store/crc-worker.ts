/**
 * Checking entries' CRCs on a second thread while the main thread parses. On a long
 * history the CRC is a fifth of reading a log (zlib's crc32 runs at ~1 GB/s here), and
 * these machines have two cores. The worker scans each file as the parser does and
 * reports the first entry whose CRC fails; the parser, told so, skips the check but keeps
 * every structural one, so torn tails and other damage are judged exactly as before.
 *
 * The worker runs from source text (no file to find after bundling), holds nothing open
 * (unref'd), and if it cannot start or answer, the caller checks on its own thread.
 */
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';

const SOURCE = `
const { workerData } = require('node:worker_threads');
const { openSync, readSync, closeSync } = require('node:fs');
const { crc32 } = require('node:zlib');
const { port, flag } = workerData;
const done = new Int32Array(flag);
const FIND = Buffer.from('\\n<!-- gcc:e ', 'latin1');
const AFTER = Buffer.from('\\n---\\n\\n', 'latin1');
const SUFFIX = Buffer.from(' -->', 'latin1');
let buf = Buffer.allocUnsafe(1 << 20);
const failed = [];
function matches(b, at, what) {
  if (at < 0 || at + what.length > b.length) return false;
  for (let i = 0; i < what.length; i++) if (b[at + i] !== what[i]) return false;
  return true;
}
function hex(b, at) {
  let n = 0;
  for (let i = at; i < at + 8; i++) {
    const c = b[i];
    const d = c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : -1;
    if (d < 0) return -1;
    n = n * 16 + d;
  }
  return n;
}
/** File offset of the first whole entry whose CRC fails, or -1. */
function check(path, end) {
  const fd = openSync(path, 'r');
  try {
    let base = 0, filled = 0, pos = 0;
    for (;;) {
      if (pos > 0) { buf.copy(buf, 0, pos, filled); base += pos; filled -= pos; pos = 0; }
      if (filled === buf.length) { const w = Buffer.allocUnsafe(buf.length * 2); buf.copy(w, 0, 0, filled); buf = w; }
      const want = Math.min(buf.length - filled, end - base - filled);
      let got = 0;
      while (got < want) { const n = readSync(fd, buf, filled + got, want - got, base + filled + got); if (n === 0) break; got += n; }
      filled += got;
      const eof = base + filled >= end || got < want;
      const view = buf.subarray(0, filled);
      for (;;) {
        const m = view.indexOf(FIND, pos);
        const lineEnd = m === -1 ? -1 : view.indexOf(10, m + 1);
        if (lineEnd === -1 || !matches(view, lineEnd + 1, AFTER)) {
          if (!eof && (m === -1 || lineEnd === -1 || lineEnd + 7 > view.length)) break;
          return -1; // a tear or a structural fault: the parser's to judge
        }
        const crcAt = lineEnd - 4 - 8;
        const jsonEnd = crcAt - 1;
        if (!(jsonEnd > m + FIND.length && view[jsonEnd] === 0x20 && matches(view, lineEnd - 4, SUFFIX))) return -1;
        if (hex(view, crcAt) !== crc32(view.subarray(pos, jsonEnd))) return base + m + 1;
        pos = lineEnd + 7;
      }
      if (eof) return -1;
    }
  } finally {
    closeSync(fd);
  }
}
port.on('message', (m) => {
  if (m === null) {
    port.postMessage(failed);
    Atomics.store(done, 0, 1);
    Atomics.notify(done, 0);
    return;
  }
  try {
    const at = check(m.path, m.end);
    if (at >= 0) failed.push({ path: m.path, at });
  } catch {
    failed.push({ path: m.path, at: -1 }); // unreadable here: checked on the main thread
  }
});
`;

export interface CrcFailure {
  path: string;
  /** File offset of the failing entry's machine line, or -1: not checked, check it again. */
  at: number;
}

export class CrcWorker {
  private constructor(
    private readonly worker: Worker,
    private readonly port: MessagePort,
    private readonly done: Int32Array,
  ) {}

  /** A started worker, or null where threads are unavailable. */
  static start(): CrcWorker | null {
    try {
      const flag = new SharedArrayBuffer(4);
      const { port1, port2 } = new MessageChannel();
      const worker = new Worker(SOURCE, { eval: true, workerData: { port: port2, flag }, transferList: [port2] });
      worker.unref();
      worker.on('error', () => {
        /* finish() times out and the caller checks on its own thread */
      });
      return new CrcWorker(worker, port1, new Int32Array(flag));
    } catch {
      return null;
    }
  }

  /** Check the file's whole entries up to `end` bytes. */
  check(path: string, end: number): void {
    this.port.postMessage({ path, end });
  }

  /** Wait for every file handed over; null if the worker did not answer. */
  finish(timeoutMs = 60_000): CrcFailure[] | null {
    const port = this.port;
    try {
      port.postMessage(null);
      Atomics.wait(this.done, 0, 0, timeoutMs);
      const reply = receiveMessageOnPort(port);
      return reply ? (reply.message as CrcFailure[]) : null;
    } finally {
      port.close();
      void this.worker.terminate();
    }
  }
}
