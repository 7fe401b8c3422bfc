/**
 * How every call runs, whichever front end it came from: its arguments checked (a model's
 * lenient shapes coerced first), the memory opened once the call is known good (the
 * operation's guard first), the operation run (its preview first), its answer framed as its
 * kind says, and an error's fix said in the caller's words. A front end is a thin adapter:
 * how it reads a call (words or an object), how it speaks (a `Speaker`), where it prints.
 */
import type { ContextQuery } from '../context/query.js';
import type { Memory } from '../engine/memory.js';
import { asGccError, type GccError } from '../errors.js';
import { safeText } from '../log/safe-text.js';
import { countInjection } from '../observer/token-ledger.js';
import { validAsGiven } from './fields.js';
import type { Answer, Operation, Speaker } from './operation.js';

export type { Speaker };

/** Where a call runs. */
interface Place {
  /** The folder: what an operation that needs no memory works in, and where a guard looks. */
  dir: string;
  explicitDir?: string | undefined;
  session: string | undefined;
  budget: number | undefined;
  /** The memory, opened (created when asked) once the call is known good. */
  memory(create: boolean): Promise<Memory>;
  /** See RunContext.print. */
  print?: (chunk: string) => void;
}

/** The arguments as the operation takes them; E_INVALID_ARGUMENT, with the speaker's fix, when they do not fit. */
export async function check(op: Operation, given: unknown, sp: Speaker): Promise<Record<string, unknown>> {
  // No arguments given where none are needed: valid as they stand, and zod stays unloaded.
  if (!sp.tool && given !== null && typeof given === 'object' && validAsGiven(op, given as Record<string, unknown>))
    return given as Record<string, unknown>;
  const { checkCall } = await import('./schema.js');
  return checkCall(op, given, sp);
}

/** Run a checked call and frame its answer for the speaker. */
export async function perform(op: Operation, args: Record<string, unknown>, sp: Speaker, at: Place): Promise<Answer> {
  if (op.needs === 'none')
    return op.run(args, {
      dir: at.dir,
      explicitDir: at.explicitDir,
      session: at.session,
      budget: at.budget,
      front: sp.front,
    });
  op.guard?.(args, at.dir);
  const memory = await at.memory(op.needs === 'create');
  const ctx = {
    memory,
    session: at.session,
    budget: at.budget,
    spell: (q: ContextQuery) => sp.spell(q),
    front: sp.front,
    ...(at.print ? { print: at.print } : {}),
  };
  const preview = op.preview ? await op.preview(args, ctx) : null;
  const a = await op.run(args, ctx);
  const out = preview ? { ...a, text: `${preview.text}\n\n${a.text}`, data: { ...a.data, preview: preview.data } } : a;
  if (!sp.tool) return out;
  // Memory is text other people and agents wrote: what quotes it is handed to a model framed as
  // data, once; any other answer may still quote some (an objective checked off): no control character either way.
  const text =
    op.answer !== 'memory' && !preview
      ? safeText(out.text)
      : (await import('../observer/framing.js')).asProjectData(out.text);
  // The ledger counts what the model reads: the answer as framed, not the operation's text.
  countInjection(memory.gccDir, at.session ?? 'default', sp.front, 'tool-answer', text);
  return { ...out, text };
}

/** Anything thrown, as a GccError whose fix is said in the speaker's words. */
export function failure(err: unknown, sp: Speaker): GccError {
  const e = asGccError(err);
  return sp.call ? e.withFix(e.fixIn(sp.call)) : e;
}
