/**
 * The normalized hook envelope: one vocabulary for every host. Adapters (Pi, Claude Code,
 * Codex) translate their own tool names and input shapes into this before the engine's hook
 * logic sees a call, so the logic has a single switch.
 *
 * Canonical tool names follow Claude Code's spelling because its hooks are the most widely
 * copied; other hosts map onto them.
 */
export type CanonicalTool =
  | 'Read'
  | 'Write'
  | 'Edit'
  | 'Bash'
  | 'Grep'
  | 'Glob'
  | 'WebFetch'
  | 'WebSearch'
  | 'Task'
  | 'Memory'
  | 'Other';

/**
 * Canonical input keys: `file_path`, `content`, `edits` ({old_string,new_string}[]), `removes`, `command`, `pattern`,
 * `path`.
 */
export interface CanonicalInput {
  file_path?: string;
  content?: string;
  edits?: { old_string: string; new_string: string }[];
  /** An Edit that takes `file_path` away: a patch's Delete File, or the old path of its Move to. */
  removes?: boolean;
  command?: string;
  pattern?: string;
  path?: string;
  [key: string]: unknown;
}

/** `compaction`: about to compact; `compacted`: done (hosts that report only one send `compacted`). */
export type HookEventKind = 'pre-tool' | 'post-tool' | 'session-start' | 'prompt' | 'compaction' | 'compacted' | 'stop';

export interface HookEnvelope {
  host: string;
  session: string;
  event: HookEventKind;
  /** Project directory the call runs in. */
  cwd?: string;
  tool?: CanonicalTool;
  /** The host's own tool name, kept for the log. */
  hostTool?: string;
  input?: CanonicalInput;
  /** Tool result text (post-tool). */
  result?: string;
  isError?: boolean;
  /** session-start only: startup, resume, reload, new, fork, clear, compact. */
  reason?: string;
  /** prompt only. */
  prompt?: string;
  /** compaction only: what the host's transcript held that the cut will drop. */
  checkpoint?: Checkpoint;
  /**
   * post-tool only: file contents around the call, when the host reports them (Claude Code's
   * structured patch, a Codex patch). `null` means the file did not exist. Without it, line
   * counts are derived from the input alone.
   */
  fileStates?: FileState[];
}

/** Before a compaction: the user's last request and the agent's last words, as the transcript had them. */
export interface Checkpoint {
  prompt?: string;
  said?: string;
}

export interface FileState {
  path: string;
  before: string | null;
  after: string | null;
}

export type HookDecision =
  | { kind: 'block'; reason: string }
  | { kind: 'guidance'; text: string }
  | { kind: 'context'; text: string }
  | { kind: 'none' };
