/**
 * What a hook process reads of the folded state, kept beside the snapshot
 * (`.GCC/.local/cache/hook.json`, a few KB where the snapshot holds the whole state): the branches'
 * lifecycles, log lengths and pending work, the sessions, the config, the failed approaches, where
 * each log was folded to and how many events the snapshot is behind. The slim path
 * (adapters/hook/slim-record.ts) records a call from it and writes it again; the repeat guard
 * reads its failed approaches; the engine writes it whenever it writes the snapshot or closes
 * after appending.
 *
 * A cache like the snapshot, under the same rules: derived, never committed, used only beside
 * its own ledger file (device and inode), with the ledger's epoch and while its closing CRC
 * holds; anything off and the hook takes the engine's path, whose close writes it again.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type BranchInfo, dict, initialState, type MemoryState, newBranch } from '../decider/state.js';
import { branchNameProblem } from '../events/rules.js';
import { crc32 } from '../log/crc32.js';
import { assertNoSymlink, type Layout } from '../store/paths.js';
import { replaceText } from '../store/text-file.js';

const FORMAT = 1;
const CRC_MEMBER = ',"crc":';

export interface SummaryLog {
  size: number;
  seq: number;
}

export interface HookSummary {
  epoch: string;
  /** The ledger file it was written beside (`ledgerIdentity`). */
  ledger: string;
  /** How far each log was folded into `state`. */
  logs: Record<string, SummaryLog>;
  /** Events folded since the snapshot was written. */
  behind: number;
  /**
   * The state as far as a hook reads it: the fields above, every other one empty. Only decided on (a recorded call),
   * never folded further by the engine or written as a snapshot.
   */
  state: MemoryState;
}

const path = (l: Layout) => join(l.cache, 'hook.json');

/** The JSON of the state's fields a hook reads. */
function pruned(s: MemoryState) {
  const branches: Record<string, unknown> = {};
  for (const [name, b] of Object.entries(s.branches))
    branches[name] = {
      parent: b.parent,
      life: b.life,
      mergedInto: b.mergedInto,
      logged: b.logged,
      pending: { edits: b.pending.edits, turns: b.pending.turns, files: b.pending.files },
    };
  const sessions: Record<string, unknown> = {};
  for (const [id, x] of Object.entries(s.sessions)) sessions[id] = x.branch;
  return {
    config: s.config,
    defaultBranch: s.defaultBranch,
    lastMoved: s.lastMoved,
    lastId: s.lastId,
    events: s.events,
    sessions,
    branches,
    failed: s.failed.map((f) => ({
      branch: f.branch,
      purpose: f.purpose,
      reason: f.reason,
      merged: Boolean(f.merged),
    })),
    failedApproaches: s.failedApproaches.map((a) => ({ what: a.what, why: a.why, branch: a.branch })),
  };
}

/** Write the summary of `state` in place of the last (a cache: no fsync). */
export function writeSummary(l: Layout, s: HookSummary): void {
  if (!existsSync(l.local)) return;
  assertNoSymlink(l.root, path(l));
  const body = JSON.stringify({
    format: FORMAT,
    epoch: s.epoch,
    ledger: s.ledger,
    logs: s.logs,
    behind: s.behind,
    state: pruned(s.state),
  }).slice(0, -1);
  replaceText(path(l), `${body}${CRC_MEMBER}${crc32(body)}}`);
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isText = (v: unknown): v is string => typeof v === 'string';
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** The summary, or null when there is none this version can use (absent, another format, edited, damaged). */
export function readSummary(l: Layout): HookSummary | null {
  try {
    const text = readFileSync(path(l), 'utf8');
    const at = text.lastIndexOf(CRC_MEMBER);
    if (at < 0 || text.slice(at) !== `${CRC_MEMBER}${crc32(text.slice(0, at))}}`) return null;
    const s: unknown = JSON.parse(text);
    if (!isRecord(s) || s.format !== FORMAT || !isText(s.epoch) || !isText(s.ledger) || !isCount(s.behind)) return null;
    if (!isRecord(s.logs) || !isRecord(s.state)) return null;
    const logs = Object.create(null) as Record<string, SummaryLog>;
    for (const [name, v] of Object.entries(s.logs)) {
      if (!isRecord(v) || !isCount(v.size) || !isCount(v.seq)) return null;
      logs[name] = { size: v.size, seq: v.seq };
    }
    const state = revive(s.state);
    return state && { epoch: s.epoch, ledger: s.ledger, logs, behind: s.behind, state };
  } catch {
    return null;
  }
}

function revive(raw: Record<string, unknown>): MemoryState | null {
  const { config, defaultBranch, lastMoved, lastId, events, sessions, branches, failed, failedApproaches } = raw;
  if (!isRecord(config) || !isText(defaultBranch) || !isText(lastMoved) || !isText(lastId) || !isCount(events))
    return null;
  if (!isRecord(sessions) || !isRecord(branches) || !Array.isArray(failed) || !Array.isArray(failedApproaches))
    return null;
  const state = initialState();
  state.branches = dict<BranchInfo>();
  for (const [name, b] of Object.entries(branches)) {
    if (branchNameProblem(name) || !isRecord(b) || !isRecord(b.pending)) return null;
    const { parent, life, mergedInto, logged, pending } = b;
    if (!(parent === null || isText(parent)) || !(mergedInto === null || isText(mergedInto))) return null;
    if ((life !== 'active' && life !== 'merged' && life !== 'abandoned') || !isCount(logged)) return null;
    const { edits, turns, files } = pending as Record<string, unknown>;
    if (!isCount(edits) || !isCount(turns) || !isRecord(files)) return null;
    const info = newBranch(name, parent, '', '', []);
    Object.assign(info, { life, mergedInto, logged });
    Object.assign(info.pending, { edits, turns });
    for (const [p, f] of Object.entries(files)) {
      if (!isRecord(f) || !isText(f.path) || !isCount(f.added) || !isCount(f.removed) || !isText(f.at)) return null;
      info.pending.files[p] = { path: f.path, added: f.added, removed: f.removed, at: f.at };
    }
    state.branches[name] = info;
  }
  for (const [id, branch] of Object.entries(sessions)) {
    if (!(branch === null || isText(branch))) return null;
    state.sessions[id] = { host: '', branch, own: false, life: 'idle', started: false, reason: '', since: '' };
  }
  for (const f of failed) {
    if (!isRecord(f) || !isText(f.branch) || !isText(f.purpose) || !isText(f.reason)) return null;
    // The repeat guard reads only whether it was merged too.
    const merged = f.merged === true ? { merged: { into: '', title: '' } } : {};
    state.failed.push({ branch: f.branch, parent: '', purpose: f.purpose, reason: f.reason, at: '', ...merged });
  }
  for (const a of failedApproaches) {
    if (!isRecord(a) || !isText(a.what) || !isText(a.why) || !isText(a.branch)) return null;
    state.failedApproaches.push({ what: a.what, why: a.why, branch: a.branch, at: '' });
  }
  const c = config as Partial<MemoryState['config']>;
  if (typeof c.proactive_commits !== 'boolean' || !isCount(c.commit_after_edits) || !isCount(c.commit_after_turns))
    return null;
  Object.assign(state, { config: { ...c }, defaultBranch, lastMoved, lastId, events });
  return state;
}
