/**
 * verify and replay. verify reads every log from scratch, checks each entry's integrity
 * and that every projection file equals a fresh replay; it names the first problem of each
 * file by path and line. replay rewrites every projection from the logs, keeping any
 * differing file aside first so a hand edit is never lost.
 */
import { copyFileSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { GccError } from '../errors.js';
import { replay } from '../projections/evolve.js';
import { allFiles } from '../projections/files.js';
import { assertNoSymlink, type Layout } from '../store/paths.js';
import { lineInFile, readLog } from '../store/read-log.js';
import { byId, type Store } from '../store/store.js';
import { joined, replaceText, sameText } from '../store/text-file.js';
import { readText } from './writer.js';
import type { GccEvent } from '../events/types.js';
import type { MemoryState } from '../projections/state.js';

export interface Problem {
  file: string;
  line?: number;
  message: string;
}

function firstDifferentLine(a: string, b: string): number {
  const x = a.split('\n');
  const y = b.split('\n');
  for (let i = 0; i < Math.max(x.length, y.length); i++) if (x[i] !== y[i]) return i + 1;
  return 1;
}

export function verifyMemory(l: Layout, store: Store): Problem[] {
  const problems: Problem[] = [];
  const events: GccEvent[] = [];
  for (const log of store.logs.values()) {
    if (!existsSync(log.path)) continue; // a branch with no events of its own yet
    try {
      const parsed = readLog(log.path, 0, statSync(log.path).size, log.rel, 0);
      if (parsed.tail) problems.push({ file: log.rel, line: lineInFile(log.path, parsed.validLength), message: 'torn entry at the end (a crash mid-write); open the memory to quarantine it' });
      for (const e of parsed.events) {
        if (e.branch !== log.branch) problems.push({ file: log.rel, message: `entry ${e.seq} claims branch ${e.branch}` });
        events.push(e);
      }
    } catch (err) {
      if (err instanceof GccError) problems.push({ file: err.file ?? log.rel, ...(err.line ? { line: err.line } : {}), message: err.message });
      else throw err;
    }
  }
  if (problems.length) return problems;
  events.sort(byId);
  const state = replay(events);
  for (const [path, want] of allFiles(l, state, events)) {
    if (sameText(path, want)) continue;
    const have = readText(path);
    const file = relative(l.root, path);
    if (have === null) problems.push({ file, message: 'projection file is missing; run `gctx replay`' });
    else if (have !== want) problems.push({ file, line: firstDifferentLine(have, joined(want)), message: 'differs from a replay of the logs; run `gctx replay` (a differing file is kept aside first)' });
  }
  return problems;
}

/** Rewrite every projection of `state`; `events` need only hold the commits. */
export function replayMemory(l: Layout, state: MemoryState, events: readonly GccEvent[]): { written: string[]; kept: string[] } {
  const written: string[] = [];
  const kept: string[] = [];
  const checked = new Set<string>();
  for (const [path, want] of allFiles(l, state, events)) {
    assertNoSymlink(l.root, path, checked);
    if (sameText(path, want)) continue;
    if (existsSync(path)) {
      const target = join(l.aside, `${relative(l.gcc, path).replaceAll('/', '__')}.${new Date().toISOString().replace(/[:.]/g, '-')}`);
      assertNoSymlink(l.root, target);
      mkdirSync(l.aside, { recursive: true });
      copyFileSync(path, target);
      kept.push(target);
    }
    mkdirSync(join(path, '..'), { recursive: true });
    replaceText(path, want);
    written.push(relative(l.root, path));
  }
  void basename;
  return { written, kept };
}
