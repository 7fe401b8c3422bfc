/** Commands: what a front end asks the engine to do. Every front end speaks these. */
import type { FileChange } from '../events/types.js';
import type { SessionSignal } from '../machines/session.js';

export type RoadmapAction = 'add' | 'check' | 'uncheck' | 'remove';

export type Command =
  | { type: 'commit'; contribution: string; title?: string; files?: FileChange[]; check?: string[]; next?: string }
  | { type: 'branch'; name: string; purpose: string; hypotheses?: string[] }
  | { type: 'switch'; name: string }
  | { type: 'merge'; branch: string; into?: string; synthesis: string; learned?: string; next?: string }
  | { type: 'abandon'; branch: string; reason: string }
  | { type: 'roadmap'; action: RoadmapAction; target: string }
  | { type: 'log'; observation: string; thought: string; action: string }
  | {
      type: 'record-tool';
      tool: string;
      input: string;
      result: string;
      isError: boolean;
      files: FileChange[];
      host?: string;
    }
  | { type: 'config'; key: string; value: string | number | boolean }
  /** What the user asked the agent, as the host passed it (the observer has redacted and bounded it). */
  | { type: 'record-prompt'; text: string; host: string }
  /** A host session's lifecycle signals; the session machine decides what is logged. */
  | { type: 'session'; signals: SessionSignal[]; host: string };
