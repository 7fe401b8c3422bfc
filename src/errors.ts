/**
 * Errors are data: a stable code, a message that says what went wrong and how to fix it,
 * and whether it is the user's input (exit 1) or damaged memory / an internal fault (exit 2).
 */
export const ERROR_CODES = {
  E_NOT_INITIALIZED: 'user',
  E_ALREADY_INITIALIZED: 'user',
  E_INVALID_ARGUMENT: 'user',
  E_BRANCH_NAME: 'user',
  E_BRANCH_EXISTS: 'user',
  E_BRANCH_NOT_FOUND: 'user',
  E_BRANCH_CLOSED: 'user',
  E_MERGE_SELF: 'user',
  E_MERGE_MAIN: 'user',
  E_ABANDON_MAIN: 'user',
  E_BUSY: 'user',
  E_COMMIT_NOT_FOUND: 'user',
  E_OBJECTIVE_NOT_FOUND: 'user',
  E_OBJECTIVE_EXISTS: 'user',
  E_CONFIG_KEY: 'user',
  E_CONFLICT: 'user',
  E_LOCKED: 'user',
  E_PATH_ESCAPE: 'user',
  E_READ_ONLY: 'user',
  /** `gctx serve` already runs for this memory. */
  E_ALREADY_RUNNING: 'user',
  /** `gctx serve status` with no daemon running. */
  E_NOT_RUNNING: 'user',
  E_CORRUPT: 'corrupt',
  E_IO: 'corrupt',
  E_INTERNAL: 'corrupt',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface ErrorData {
  code: ErrorCode;
  message: string;
  /** The corrected call or the remedy, quoted so it can be copied. */
  fix?: string;
  file?: string;
  line?: number;
}

export class GccError extends Error {
  readonly code: ErrorCode;
  readonly fix: string | undefined;
  readonly file: string | undefined;
  readonly line: number | undefined;

  /** The fix as written: its calls in the command line's words, which `fixIn` says otherwise. */
  private readonly written: string | undefined;

  constructor(data: ErrorData) {
    super(data.message);
    this.name = 'GccError';
    this.code = data.code;
    this.written = data.fix;
    this.fix = data.fix !== undefined && libraryCall ? callsIn(data.fix, libraryCall) : data.fix;
    this.file = data.file;
    this.line = data.line;
  }

  /** 1 for a user error, 2 for corruption or an internal fault. */
  get exitCode(): 1 | 2 {
    return ERROR_CODES[this.code] === 'user' ? 1 : 2;
  }

  toJSON(): ErrorData {
    const out: ErrorData = { code: this.code, message: this.message };
    if (this.fix !== undefined) out.fix = this.fix;
    if (this.file !== undefined) out.file = this.file;
    if (this.line !== undefined) out.line = this.line;
    return out;
  }

  /**
   * The fix with each `gctx …` call it quotes said by `call`, as the caller would make it (a
   * tool call, `/gcc …`, a library call); a fix that is one such call as a whole too.
   */
  fixIn(call: (words: string) => string): string | undefined {
    return this.written === undefined ? undefined : callsIn(this.written, call);
  }

  /** The same error with its fix said another way. */
  withFix(fix: string | undefined): GccError {
    const { fix: _, ...rest } = this.toJSON();
    const e = new GccError(rest);
    (e as { fix: string | undefined }).fix = fix;
    return e;
  }

  /** One line for people: code, message, fix. */
  oneLine(): string {
    const where = this.file ? ` (${this.file}${this.line ? `:${this.line}` : ''})` : '';
    return `${this.code}: ${this.message}${where}${this.fix ? ` Fix: ${this.fix}` : ''}`;
  }
}

/** How a `gctx …` call quoted in a fix is said to a library caller: set by the library's entry (index.ts). */
let libraryCall: ((words: string) => string) | undefined;

/** Errors made from now on carry fixes whose `gctx …` calls are said by `call` (the library's entry sets it). */
export function sayFixCallsAs(call: (words: string) => string): void {
  libraryCall = call;
}

function callsIn(fix: string, call: (words: string) => string): string {
  if (/^gctx [^`]*$/.test(fix)) return call(fix.slice(5));
  return fix.replace(/`gctx ([^`]+)`/g, (_, words: string) => `\`${call(words)}\``);
}

export function gccError(
  code: ErrorCode,
  message: string,
  fix?: string,
  where?: { file?: string; line?: number },
): GccError {
  const data: ErrorData = { code, message };
  if (fix !== undefined) data.fix = fix;
  if (where?.file !== undefined) data.file = where.file;
  if (where?.line !== undefined) data.line = where.line;
  return new GccError(data);
}

/**
 * What is wrong with one field of a call, said the same way wherever it is checked: the schemas
 * at every front (operations/schema.ts turns zod's issues into these) and the decider behind
 * them (decider/decide.ts), so that `commit ""` and `commit "   "` read alike.
 */
export const fieldSays = {
  missing: (field: string) => `missing ${field}`,
  empty: (field: string) => `${field} cannot be empty`,
  /** `kind`: text, a number, a whole number, true or false, a list, … */
  notA: (field: string, kind: string) => `${field} must be ${kind}`,
  oneOf: (field: string, values: readonly unknown[], got?: unknown) =>
    `${field} must be one ` +
    `of ${values.map(String).join(', ')}${typeof got === 'string' ? `, not ${JSON.stringify(got)}` : ''}`,
  atLeast: (field: string, min: number | bigint) => `${field} must be ${min} or more`,
  longer: (field: string, max: number | bigint) => `${field} is longer than ${max} characters`,
};

/** The message of anything thrown, Error or not. */
export const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** Wrap anything thrown into a GccError so front ends have one shape to print. */
export function asGccError(err: unknown): GccError {
  if (err instanceof GccError) return err;
  const e = err as NodeJS.ErrnoException;
  if (e && typeof e === 'object' && typeof e.code === 'string') {
    if (e.code === 'EROFS' || e.code === 'EACCES' || e.code === 'EPERM') {
      return gccError(
        'E_READ_ONLY',
        `cannot write memory: ${e.message}`,
        'make .GCC/ writable, or run from a writable checkout',
      );
    }
    if (e.code === 'ENOSPC' || e.code === 'EIO' || e.code === 'EDQUOT') {
      return gccError(
        'E_IO',
        `write failed: ${e.message}`,
        'free disk space, then retry; nothing unacknowledged was recorded',
      );
    }
  }
  return gccError('E_INTERNAL', messageOf(err), 'run `gctx doctor` and report the output');
}
