/** Blocks this thread for `ms` milliseconds: for the few synchronous loops that wait on a file descriptor. */
const cell = new Int32Array(new SharedArrayBuffer(4));

export function sleepSync(ms: number): void {
  Atomics.wait(cell, 0, 0, ms);
}
