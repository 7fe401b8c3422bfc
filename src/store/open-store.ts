/**
 * What the store's passes (append.ts, catch-up.ts, check.ts) work on: the logs this process
 * knows, the ledger and the lock. Store is the one implementation; the passes name this
 * interface so that they sit below it.
 */
import type { GitRepo } from './git-probe.js';
import type { LogPlace } from './git-explain.js';
import type { Ledger } from './ledger.js';
import type { FileLock } from './lock.js';
import type { LogFile } from './logfile.js';
import type { Layout } from './paths.js';

export interface OpenStore {
  readonly layout: Layout;
  readonly logs: Map<string, LogFile>;
  readonly lock: FileLock;
  readonly repo: GitRepo | null;
  ledger: Ledger;
  readonly ledgerLost: boolean;
  readonly warnings: string[];
  dirMtimes: Map<string, number>;
  checked: Set<string> | undefined;
  operation: number;
  head: string | null;
  /** The git index lock this process last started a segment for (append.ts). */
  gitBusy: string | null;
  longPass: (() => void) | undefined;
  /** Own segments read from their journal copy (journal-check.ts). */
  readonly fromJournal: Set<string>;
  journalPending: boolean;
  /** Whether the journal holds a copy of a log. */
  journaled(name: string): boolean;
  reconcileJournal(now: Date, write?: boolean): { said: string[]; moved: boolean };
  readonly local: LogFile;
  file(name: string): LogFile;
  listSegments(warnings?: string[]): string[];
  place(path: string, name: string): LogPlace;
  acknowledge(
    changed: readonly LogFile[] | 'all',
    replaced?: boolean,
    sealedChanged?: boolean,
    justAppended?: boolean,
  ): void;
}
