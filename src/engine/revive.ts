/**
 * The folded state as a snapshot file gives it back. The file is this clone's own cache, but
 * it is read off disk like anything else: the shape is checked, maps keyed by names people
 * choose become prototype-free again, and branch names must be names (they become paths of
 * views). Anything off, and the snapshot is ignored (the logs are replayed instead).
 */
import { branchNameProblem } from '../events/rules.js';
import { type BranchInfo, dict, type MemoryState } from '../decider/state.js';

/** Bump whenever MemoryState's shape or meaning changes. */
export const SNAPSHOT_FORMAT = 12;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function reviveState(raw: unknown): MemoryState | null {
  if (
    !isRecord(raw) ||
    !isRecord(raw.branches) ||
    !isRecord(raw.files) ||
    !isRecord(raw.sessions) ||
    !Array.isArray(raw.objectives) ||
    !Array.isArray(raw.failedApproaches) ||
    !Array.isArray(raw.constraints)
  )
    return null;
  if (
    typeof raw.lastId !== 'string' ||
    typeof raw.events !== 'number' ||
    typeof raw.defaultBranch !== 'string' ||
    typeof raw.lastMoved !== 'string'
  )
    return null;
  const branches = dict<BranchInfo>();
  for (const [name, b] of Object.entries(raw.branches)) {
    if (
      branchNameProblem(name) ||
      !isRecord(b) ||
      !isRecord(b.pending) ||
      !isRecord(b.pending.files) ||
      !Array.isArray(b.pending.failures) ||
      !Array.isArray(b.labels)
    )
      return null;
    branches[name] = {
      ...(b as unknown as BranchInfo),
      pending: {
        ...(b.pending as unknown as BranchInfo['pending']),
        files: dict(Object.entries(b.pending.files) as never),
      },
    };
  }
  return {
    ...(raw as unknown as MemoryState),
    branches,
    files: dict(Object.entries(raw.files) as never),
    sessions: dict(Object.entries(raw.sessions) as never),
  };
}
