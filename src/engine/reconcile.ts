/**
 * Keeping projections honest: spotting a person's edits of main.md and metadata.yaml (to
 * adopt them as events, or keep them aside when they cannot be adopted), and rebuilding
 * projection files that fell behind their logs.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { GccEvent, NewEvent } from '../events/types.js';
import { adoptMain, adoptMetadata } from '../projections/adopt.js';
import { allFiles } from '../projections/files.js';
import { renderMain } from '../projections/render-main.js';
import { renderMetadata } from '../projections/render-metadata.js';
import type { MemoryState } from '../projections/state.js';
import { assertNoSymlink, type Layout } from '../store/paths.js';
import { readText, type ProjectionWriter } from './writer.js';

export interface Reconciled {
  events: NewEvent[];
  warnings: string[];
  /** Some file differs from what gctx wrote and must be regenerated. */
  dirty: boolean;
}


function keepAside(l: Layout, path: string, why: string[]): string {
  const target = join(l.aside, `${basename(path)}.${new Date().toISOString().replace(/[:.]/g, '-')}.${process.pid}`);
  assertNoSymlink(l.root, target);
  mkdirSync(l.aside, { recursive: true });
  copyFileSync(path, target);
  return `${basename(path)} was edited in ways that cannot be recorded (${why.join('; ')}); your version is kept at ${target} and the file was regenerated`;
}

/**
 * Compare main.md and metadata.yaml with what gctx last wrote. With dryRun, only report
 * whether there is anything to adopt (nothing is written).
 */
export function reconcileEdits(l: Layout, w: ProjectionWriter, state: MemoryState, nonce: () => string, dryRun: boolean): Reconciled {
  const events: NewEvent[] = [];
  const warnings: string[] = [];
  let dirty = false;
  const checks: [string, (s: MemoryState) => string, (base: string, disk: string) => { events: NewEvent[]; unadopted: string[] }][] = [
    [l.mainMd, renderMain, (base, disk) => adoptMain(state, base, disk, nonce)],
    [l.metadata, renderMetadata, (base, disk) => adoptMetadata(base, disk)],
  ];
  for (const [path, render, adopt] of checks) {
    if (w.isSeen(path)) continue;
    assertNoSymlink(l.root, path); // never take a file outside the tree in as a hand edit
    const disk = readText(path);
    if (disk === null) continue; // missing: rebuilt with the other projections
    if (disk === '') {
      // What a crash leaves of a file whose data never reached the disk (see replaceText);
      // a person clearing the file would not be asking to drop every objective.
      dirty = true;
      continue;
    }
    const rendered = render(state);
    if (disk === rendered) {
      if (!dryRun) w.markSeen(path);
      continue;
    }
    dirty = true;
    if (dryRun) continue;
    // With the checkpoint current, what gctx last wrote is the render of this state.
    const a = adopt(rendered, disk);
    events.push(...a.events);
    if (a.unadopted.length) warnings.push(keepAside(l, path, a.unadopted));
  }
  return { events, warnings, dirty };
}

/**
 * After the logs changed underneath gctx: keep aside main.md / metadata.yaml when they match
 * neither what gctx last wrote nor a render of the new state (nor what git checked out, when
 * the caller can tell), since only then may they hold an edit. Nothing is adopted.
 */
export function setAsideUnexplained(l: Layout, w: ProjectionWriter, state: MemoryState, checkedOut?: (path: string) => boolean): string[] {
  const warnings: string[] = [];
  for (const [path, render] of [[l.mainMd, renderMain], [l.metadata, renderMetadata]] as const) {
    assertNoSymlink(l.root, path);
    const disk = readText(path);
    if (disk === null || disk === '' || w.isSeen(path) || disk === render(state)) continue;
    if (checkedOut?.(path)) continue;
    warnings.push(keepAside(l, path, ['it differs from what gctx wrote, and git (or another tool) replaced the logs meanwhile']));
  }
  return warnings;
}

/** Rewrite every projection that differs from a fresh render of the state. */
export function rebuildProjections(l: Layout, w: ProjectionWriter, state: MemoryState, events: readonly GccEvent[]): string[] {
  const written = w.applyFull(allFiles(l, state, events));
  w.markSeen(l.mainMd);
  w.markSeen(l.metadata);
  return written;
}
