/** The shared hook logic: the Pi adapter calls it in-process, `gctx hook` over stdin/stdout. */
export { handleHook, DEFAULT_HOOK_TIMEOUT_MS, type HookOptions } from './handle.js';
export type {
  CanonicalInput,
  CanonicalTool,
  FileState,
  HookDecision,
  HookEnvelope,
  HookEventKind,
} from './envelope.js';
export type { HookCommand, HookMemory } from './memory-port.js';
export { redactSecrets, REDACTED, REDACTION_RULES } from './redact.js';
export { gccWriteReason, GCC_WRITE_REASON, type GuardInput } from './gcc-write-guard.js';
export { MCP_WRITE_TOOLS, MEMORY_MCP_SERVERS, type McpWriteTool } from './mcp-writes.js';
export { boundText, INPUT_LIMIT, RESULT_LIMIT } from './bound.js';
export { asProjectData } from './framing.js';
export { countLines, fileChangesFor } from './file-changes.js';
export { commitNudge, type PendingWork } from './commit-nudge.js';
