/**
 * Secrets never reach the log, whichever front end the text came through: every free-text
 * field of a command is redacted before it is decided (the observer redacts tool input and
 * output earlier still, before it bounds them).
 */
import type { Command } from '../decider/commands.js';
import { redactSecrets } from '../observer/redact.js';

/** The same pass for a person's text the engine takes in other ways (hand edits of main.md, files set aside). */
export { redactSecrets };

const r = (t: string | undefined): string | undefined => (typeof t === 'string' ? redactSecrets(t) : t);

export function redactCommand(cmd: Command): Command {
  switch (cmd.type) {
    case 'commit':
      return { ...cmd, contribution: r(cmd.contribution)!, ...(cmd.title !== undefined ? { title: r(cmd.title)! } : {}), ...(cmd.next !== undefined ? { next: r(cmd.next)! } : {}) };
    case 'branch':
      return { ...cmd, purpose: r(cmd.purpose)!, ...(cmd.hypotheses ? { hypotheses: cmd.hypotheses.map((h) => r(h)!) } : {}) };
    case 'merge':
      return { ...cmd, synthesis: r(cmd.synthesis)!, ...(cmd.learned !== undefined ? { learned: r(cmd.learned)! } : {}) };
    case 'abandon':
      return { ...cmd, reason: r(cmd.reason)! };
    case 'roadmap':
      return cmd.action === 'add' ? { ...cmd, target: r(cmd.target)! } : cmd;
    case 'log':
      return { ...cmd, observation: r(cmd.observation)!, thought: r(cmd.thought)!, action: r(cmd.action)! };
    case 'record-tool':
      return { ...cmd, input: r(cmd.input)!, result: r(cmd.result)! };
    default:
      return cmd;
  }
}
