/**
 * What only a write (or an open that may adopt a person's text) needs, loaded on first use and
 * kept: the decider and the redactors stay out of a read's start-up.
 */
import type { Redact } from './aside.js';

/**
 * The decider and the command redactor, loaded by the first write and kept (an import() of a loaded module still
 * resolves it again).
 */
let writing:
  | Promise<{
      decide: typeof import('../decider/decide.js').decide;
      redactCommand: typeof import('./redact-command.js').redactCommand;
      redactFiles: typeof import('./redact-command.js').redactFiles;
      redact: Redact;
    }>
  | undefined;
export function writeDeps() {
  writing ??= Promise.all([import('../decider/decide.js'), redactors()]).then(
    ([d, r]) => ({
      decide: d.decide,
      redactCommand: r.redactCommand,
      redactFiles: r.redactFiles,
      redact: r.redactSecrets,
    }),
    (err: unknown) => {
      writing = undefined;
      throw err;
    },
  );
  return writing;
}

/** The redactors alone: for what may adopt or set aside a person's text (an open that settles, a replay). */
let redacting: Promise<typeof import('./redact-command.js')> | undefined;
export function redactors() {
  redacting ??= import('./redact-command.js').catch((err: unknown) => {
    redacting = undefined;
    throw err;
  });
  return redacting;
}
