/**
 * decide: state + command → the events to append (and which log takes them), or a typed
 * error. Pure: randomness comes in as `nonce`, the session as data. Every front end — the
 * library, the CLI, MCP, Pi's tools — goes through here, so they all behave alike.
 * Branch lifecycle commands are decided through the branch machine (decide-branches.ts);
 * the rest only record (decide-records.ts).
 */
import type { MemoryState } from '../projections/state.js';
import type { Command } from './commands.js';
import { decideBranchCommand } from './decide-branches.js';
import { decideRecord } from './decide-records.js';
import { type DecideContext, type Decision, isBranchCommand, isRecordCommand, unknownCommand } from './decision.js';

export { currentBranch, MAX_TEXT, type DecideContext, type Decision } from './decision.js';

export function decide(state: MemoryState, cmd: Command, ctx: DecideContext): Decision {
  if (isBranchCommand(cmd)) return decideBranchCommand(state, cmd, ctx);
  if (isRecordCommand(cmd)) return decideRecord(state, cmd, ctx);
  return unknownCommand(cmd);
}
