/**
 * Shared pieces of the reliability suite. Children are real node processes
 * (process.execPath) running small scripts against the built library in dist/ — the same
 * code a user runs. GCC_LONG=1 turns the bounded default run into a soak run.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from '../../src/log/codec.js';
import { LONG } from '../support/runs.js';

export { LONG };
export const SCRIPTS = fileURLToPath(new URL('./scripts/', import.meta.url));
export { CLI } from '../support/cli.js';

/** Pick the default-run or the long-run value. */
export const pick = <T>(short: T, long: T): T => (LONG ? long : short);

/** Test timeout, only to stop a hang: a loaded machine is slow, not wrong; long mode counts much more. */
export const TIMEOUT = LONG ? 3_600_000 : 600_000;

export interface Child {
  proc: ChildProcess;
  /** Every complete stdout line so far. */
  lines: string[];
  stderr: () => string;
  /** Resolves with the exit code (or the signal name) when the process ends. */
  exited: Promise<number | string>;
  /** Resolves when a line satisfying `pred` has been printed. */
  waitFor(pred: (line: string) => boolean): Promise<string>;
}

export function start(script: string, args: string[], opts: { stdin?: boolean; cmd?: string[] } = {}): Child {
  const argv = [...(opts.cmd ?? []), process.execPath, `${SCRIPTS}${script}`, ...args];
  const proc = spawn(argv[0]!, argv.slice(1), { stdio: [opts.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let partial = '';
  let err = '';
  const waiters: { pred: (l: string) => boolean; resolve: (l: string) => void }[] = [];
  proc.stdout!.setEncoding('utf8');
  proc.stdout!.on('data', (chunk: string) => {
    partial += chunk;
    let nl: number;
    while ((nl = partial.indexOf('\n')) !== -1) {
      const line = partial.slice(0, nl);
      partial = partial.slice(nl + 1);
      lines.push(line);
      for (const w of [...waiters]) {
        if (w.pred(line)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(line);
        }
      }
    }
  });
  proc.stderr!.setEncoding('utf8');
  proc.stderr!.on('data', (c: string) => (err += c));
  const exited = new Promise<number | string>((resolve) =>
    proc.on('close', (code, signal) => resolve(code ?? signal ?? -1)),
  );
  return {
    proc,
    lines,
    stderr: () => err,
    exited,
    waitFor(pred) {
      const hit = lines.find(pred);
      if (hit !== undefined) return Promise.resolve(hit);
      return new Promise((resolve, reject) => {
        waiters.push({ pred, resolve });
        void exited.then((code) =>
          reject(new Error(`child exited (${code}) before the expected line; stderr: ${err}`)),
        );
      });
    },
  };
}

/** Acknowledged event ids printed by a child (`ack <id> ...` lines). */
export function acks(lines: readonly string[]): string[] {
  return lines.filter((l) => l.startsWith('ack ')).map((l) => l.split(' ')[1]!);
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Deterministic PRNG (mulberry32), seeded per test so a failure can be replayed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seed from GCC_SEED, else a fresh one that the test prints so it can be replayed. */
export function seed(): number {
  const s = process.env.GCC_SEED ? Number(process.env.GCC_SEED) : Math.floor(Math.random() * 2 ** 31);
  return s;
}

/** Paths of a memory's segments (`.GCC/events/YYYY-MM/….md`), relative to the project, in name order. */
export function segmentsOf(dir: string): string[] {
  const root = join(dir, '.GCC', 'events');
  let names: string[];
  try {
    names = readdirSync(root, { recursive: true }).map(String);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.endsWith('.md'))
    .sort()
    .map((n) => relative(dir, join(root, n)));
}

/** The segment this clone appends to, as the ledger names it. */
export function openSegment(dir: string): string | null {
  const ledger = JSON.parse(readFileSync(join(dir, '.GCC', '.local', 'ledger.json'), 'utf8')) as {
    open: string | null;
  };
  return ledger.open ? join('.GCC', 'events', ledger.open) : null;
}

/** Files set aside in `.GCC/quarantine/`. */
export function quarantined(dir: string): string[] {
  try {
    return readdirSync(join(dir, '.GCC', 'quarantine'));
  } catch {
    return [];
  }
}

/**
 * Every log of a memory read on its own (segments and the local log): sequences run 1, 2, 3…
 * within each file, as the store writes them. Returns the number of events per file.
 */
export function gaplessPerLog(dir: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const rel of [...segmentsOf(dir), join('.GCC', '.local', 'local.md')]) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(join(dir, rel));
    } catch {
      continue;
    }
    const seqs = parse(bytes, rel).events.map((e) => e.seq);
    seqs.forEach((s, i) => {
      if (s !== i + 1) throw new Error(`${rel}: entry ${i + 1} has sequence ${s}`);
    });
    out[rel] = seqs.length;
  }
  return out;
}

/**
 * Everything under `root` as path → what it is (a folder, a link and its target, or a file's
 * size, mode and content hash), skipping the paths `skip` accepts: compare two of these to
 * prove nothing was written, removed or changed.
 */
export function treeState(root: string, skip: (rel: string) => boolean = () => false): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string): void => {
    for (const name of readdirSync(join(root, rel))) {
      const r = rel ? `${rel}/${name}` : name;
      if (skip(r)) continue;
      const p = join(root, r);
      const st = lstatSync(p);
      if (st.isSymbolicLink()) out.set(r, `link ${readlinkSync(p)}`);
      else if (st.isDirectory()) {
        out.set(r, `dir ${st.mode}`);
        walk(r);
      } else out.set(r, `file ${st.mode} ${st.size} ${createHash('sha256').update(readFileSync(p)).digest('hex')}`);
    }
  };
  walk('');
  return out;
}
