/**
 * git-context-controller: the public library entry. Everything a front end needs and
 * nothing of the internals; internal modules may change between releases.
 */
import { callIn } from './adapters/cli/args.js';
import { sayFixCallsAs } from './errors.js';

export { Memory, type ExecResult, type ExecuteOptions, type OpenOptions } from './engine/memory.js';
export type { Command, RoadmapAction } from './decider/commands.js';
export { decide, type Decision } from './decider/decide.js';
export { currentBranch, initialState, type BranchInfo, type MemoryState } from './decider/state.js';
export { evolve, replay } from './decider/evolve.js';
export type { ContextAnswer, ContextQuery } from './context/query.js';
export { briefing } from './context/briefing.js';
export { estimateTokens } from './context/budget.js';
export { GccError, type ErrorCode, type ErrorData } from './errors.js';

export {
  DEFAULT_CONFIG,
  EVENT_TYPES,
  MAIN,
  type Config,
  type EventPayloads,
  type EventType,
  type FileChange,
  type GccEvent,
  type NewEvent,
} from './events/types.js';
export { branchNameProblem } from './events/rules.js';
export { parse as parseLog, serialize as serializeLog } from './log/codec.js';
export type { Problem } from './engine/integrity.js';
export { repairMemory, type RepairReport } from './engine/repair.js';
export { VERSION } from './runtime/version.js';

// Errors thrown to a library caller say their fixes as library calls, not command lines.
sayFixCallsAs((words) => callIn(words, 'library'));
