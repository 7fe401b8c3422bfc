/**
 * What every decision shares: the context it is made in, its result type, the session's
 * branch and the checks on free text.
 */
import { MAIN, type NewEvent } from '../events/types.js';
import { GccError, gccError } from '../errors.js';
import type { MemoryState } from '../projections/state.js';
import type { Command } from './commands.js';

export type BranchCommand = Extract<Command, { type: 'commit' | 'branch' | 'switch' | 'merge' | 'abandon' }>;
export type RecordCommand = Extract<Command, { type: 'roadmap' | 'log' | 'record-tool' | 'config' | 'session' }>;

const BRANCH_COMMANDS = new Set<string>(['commit', 'branch', 'switch', 'merge', 'abandon']);
const RECORD_COMMANDS = new Set<string>(['roadmap', 'log', 'record-tool', 'config', 'session']);

export function isBranchCommand(cmd: Command): cmd is BranchCommand {
  return BRANCH_COMMANDS.has(cmd.type);
}

export function isRecordCommand(cmd: Command): cmd is RecordCommand {
  return RECORD_COMMANDS.has(cmd.type);
}

export interface DecideContext {
  session?: string | undefined;
  /** Random hex from the caller; makes ids unique without making decide impure. */
  nonce: string;
}

export type Decision = { ok: true; log: string; events: NewEvent[]; message: string } | { ok: false; error: GccError };

export const MAX_TEXT = 1_048_576;

export function currentBranch(state: MemoryState, session?: string): string {
  const b = (session !== undefined && state.sessions[session]) || state.defaultBranch;
  return state.branches[b]?.status === 'active' ? b : MAIN;
}

export const ok = (log: string, events: NewEvent[], message: string): Decision => ({ ok: true, log, events, message });
export const fail = (error: GccError): Decision => ({ ok: false, error });

export function text(field: string, value: unknown, required = true): string | GccError {
  if (typeof value !== 'string') return gccError('E_INVALID_ARGUMENT', `${field} must be text`, `pass ${field} as a string`);
  if (required && value.trim() === '') return gccError('E_INVALID_ARGUMENT', `${field} cannot be empty`, `give a ${field}`);
  if (value.length > MAX_TEXT) return gccError('E_INVALID_ARGUMENT', `${field} is longer than ${MAX_TEXT} characters`, 'summarize it; keep large output in files');
  return value;
}

/**
 * Files are UTF-8, which cannot hold a lone surrogate; make every string of a command
 * well-formed up front so what is logged is exactly what every projection can show.
 */
export function wellFormed<T>(value: T): T {
  if (typeof value === 'string') return value.toWellFormed() as T;
  if (Array.isArray(value)) return value.map(wellFormed) as T;
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, wellFormed(v)])) as T;
  return value;
}


export function unknownCommand(cmd: { type?: unknown }): Decision {
  return fail(gccError('E_INVALID_ARGUMENT', `unknown command ${JSON.stringify(cmd.type)}`, 'use commit, branch, switch, merge, abandon, roadmap, log, record-tool, config or session'));
}
