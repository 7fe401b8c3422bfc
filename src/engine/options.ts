/** What Memory.open and Memory.execute take, and what execute answers. */
import type { GccEvent } from '../events/types.js';

export interface OpenOptions {
  /**
   * Create `.GCC/` when missing: true as `gctx init` does; 'if-new' as an agent front does on
   * its own (MCP, Pi's autoInit), unless git holds the memory in other commits — a commit from
   * before it is checked out, and an initialisation there would travel back as a stray one.
   */
  create?: boolean | 'if-new';
  /** Clock, injectable for tests. */
  now?: () => Date;
  /** Give up waiting for another process's lock after this long. */
  lockTimeoutMs?: number;
  /** Session used when a call names none. */
  session?: string;
  /**
   * When ranked search's code is loaded: 'at-open' (the default), so that `context` answers a
   * search at once; or 'on-demand', for a short-lived process that seldom searches (a CLI
   * command, a hook), which then calls `loadSearch` before a search query.
   */
  search?: 'at-open' | 'on-demand';
  /**
   * Called as a pass over much of the history starts: a replay, a first read of logs, building
   * the search index. A command-line process sets V8's heap flags there; the library does nothing.
   */
  onLongPass?: () => void;
}

export interface ExecuteOptions {
  session?: string | undefined;
  /** Fail with E_CONFLICT unless the session's branch holds this many events. */
  expectedSeq?: number;
}

export interface ExecResult {
  events: GccEvent[];
  /** The session's branch after the operation. */
  branch: string;
  message: string;
}
