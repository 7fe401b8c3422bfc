/**
 * Which projection files an event touches, and their new content. The incremental path
 * renders only what a batch touched (appending to commit.md, rewriting small files);
 * replay renders everything. Both call the same renderers on the same state.
 */
import { type GccEvent, MAIN } from '../events/types.js';
import type { Layout } from '../store/paths.js';
import type { Text } from '../store/text-file.js';
import { commitHeader, renderCommit } from './render-commit.js';
import { renderMain } from './render-main.js';
import { renderMetadata } from './render-metadata.js';
import { renderSummary } from './render-summary.js';
import type { MemoryState } from './state.js';

export type FileWrite = { kind: 'write'; content: string } | { kind: 'append'; content: string; create: string };

const MAIN_EVENTS = new Set<GccEvent['type']>([
  'memory.initialized',
  'objective.added',
  'objective.checked',
  'objective.unchecked',
  'objective.removed',
  'objective.edited',
  'notes.patched',
  'branch.created',
  'branch.merged',
  'branch.abandoned',
]);
const META_EVENTS = new Set<GccEvent['type']>(['memory.initialized', 'config.set', 'branch.created', 'branch.merged', 'branch.abandoned']);

/** A commit.md that exists keeps its entries; one that does not starts with its header. */
function ensureCommitFile(out: Map<string, FileWrite>, path: string, branch: string): void {
  if (!out.has(path)) out.set(path, { kind: 'append', content: '', create: commitHeader(branch) });
}

/** Files a batch changes, rendered from the state after the batch. */
export function incrementalWrites(l: Layout, state: MemoryState, events: readonly GccEvent[]): Map<string, FileWrite> {
  const out = new Map<string, FileWrite>();
  let main = false;
  let meta = false;
  const summaries = new Set<string>();
  for (const e of events) {
    if (MAIN_EVENTS.has(e.type)) main = true;
    if (META_EVENTS.has(e.type)) meta = true;
    switch (e.type) {
      case 'memory.initialized':
        ensureCommitFile(out, l.commitOf(MAIN), MAIN);
        break;
      case 'branch.created':
        summaries.add(e.data.name);
        ensureCommitFile(out, l.commitOf(e.data.name), e.data.name);
        break;
      case 'branch.switched':
        if (!e.data.session) meta = true;
        break;
      case 'commit.recorded': {
        if (e.branch === MAIN) main = true;
        if (e.data.files.length) meta = true;
        summaries.add(e.branch);
        const path = l.commitOf(e.branch);
        const prev = out.get(path);
        const entry = renderCommit(e);
        out.set(path, prev ? { ...prev, content: prev.content + entry } : { kind: 'append', content: entry, create: commitHeader(e.branch) });
        break;
      }
      case 'branch.merged':
      case 'branch.abandoned':
        summaries.add(e.data.branch);
        break;
      default:
        break;
    }
  }
  if (main) out.set(l.mainMd, { kind: 'write', content: renderMain(state) });
  if (meta) out.set(l.metadata, { kind: 'write', content: renderMetadata(state) });
  for (const name of summaries) {
    const b = state.branches[name];
    if (b && name !== MAIN) out.set(l.summaryOf(name), { kind: 'write', content: renderSummary(b) });
  }
  return out;
}

/**
 * Every projection file, from scratch: what replay writes and verify compares against.
 * Only the commits among `events` matter. A commit.md comes as its parts, unjoined.
 */
export function allFiles(l: Layout, state: MemoryState, events: readonly GccEvent[]): Map<string, Text> {
  const out = new Map<string, Text>();
  out.set(l.mainMd, renderMain(state));
  out.set(l.metadata, renderMetadata(state));
  const commits = new Map<string, string[]>();
  for (const name of Object.keys(state.branches)) commits.set(name, [commitHeader(name)]);
  for (const e of events) {
    if (e.type !== 'commit.recorded') continue;
    let parts = commits.get(e.branch);
    if (!parts) commits.set(e.branch, (parts = [commitHeader(e.branch)]));
    parts.push(renderCommit(e));
  }
  for (const [name, parts] of commits) out.set(l.commitOf(name), parts);
  for (const b of Object.values(state.branches)) if (b.name !== MAIN) out.set(l.summaryOf(b.name), renderSummary(b));
  return out;
}
