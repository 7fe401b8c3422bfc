/**
 * Secrets never reach the log, whichever front end the text came through: every free-text
 * field of a command, file paths and a new branch's name included, is redacted before it is
 * decided (the observer redacts tool input and
 * output earlier still, before it bounds them).
 */
import type { Command } from '../decider/commands.js';
import type { FileChange } from '../events/types.js';
import { redactSecrets, redactToolText } from '../observer/redact.js';

/** The same pass for a person's text the engine takes in other ways (hand edits of main.md, files set aside). */
export { redactSecrets };

const r = (t: string | undefined): string | undefined => (typeof t === 'string' ? redactSecrets(t) : t);
const rt = (t: string | undefined): string | undefined => (typeof t === 'string' ? redactToolText(t) : t);

/**
 * File paths are text a person or an agent chose too (`secrets/AKIA….txt`): each is redacted
 * like the rest. A list entry of another shape is left for the decider to refuse.
 */
export function redactFiles<T extends FileChange | string>(files: readonly T[]): T[] {
  return files.map(
    (f) =>
      (typeof f === 'string'
        ? redactSecrets(f)
        : f && typeof f === 'object' && typeof f.path === 'string'
          ? { ...f, path: redactSecrets(f.path) }
          : f) as T,
  );
}

/** `files` as a command may carry them (the decider checks the shape): redacted when a list. */
const rf = <T>(files: T): T => (Array.isArray(files) ? (redactFiles(files) as T) : files);

export function redactCommand(cmd: Command): Command {
  switch (cmd.type) {
    case 'commit':
      return {
        ...cmd,
        contribution: r(cmd.contribution)!,
        ...(cmd.title !== undefined ? { title: r(cmd.title)! } : {}),
        ...(cmd.next !== undefined ? { next: r(cmd.next)! } : {}),
        ...(cmd.files !== undefined ? { files: rf(cmd.files) } : {}),
      };
    case 'branch':
      // A new branch's name too (`fix/ghp_…`): redacted, the decider refuses it, and nothing is written.
      return {
        ...cmd,
        name: r(cmd.name)!,
        purpose: r(cmd.purpose)!,
        ...(cmd.hypotheses ? { hypotheses: cmd.hypotheses.map((h) => r(h)!) } : {}),
      };
    case 'merge':
      return {
        ...cmd,
        synthesis: r(cmd.synthesis)!,
        ...(cmd.learned !== undefined ? { learned: r(cmd.learned)! } : {}),
      };
    case 'abandon':
      return { ...cmd, reason: r(cmd.reason)! };
    case 'roadmap':
      return cmd.action === 'add' ? { ...cmd, target: r(cmd.target)! } : cmd;
    case 'log':
      return { ...cmd, observation: r(cmd.observation)!, thought: r(cmd.thought)!, action: r(cmd.action)! };
    case 'record-tool':
      // A tool's text from any front end: its terminal codes go before redaction, as the hook's do.
      return { ...cmd, input: rt(cmd.input)!, result: rt(cmd.result)!, files: rf(cmd.files) };
    case 'record-prompt':
      return { ...cmd, text: rt(cmd.text)! };
    default:
      return cmd;
  }
}
