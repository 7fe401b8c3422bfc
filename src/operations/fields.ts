/**
 * What the front ends read of an operation's arguments besides checking them, straight from
 * its declaration: each field's kind (how the command line reads it, how MCP clients' lenient
 * shapes are coerced), whether a call must give it, and whether a call may give nothing.
 */
import type { Field, FieldKind, Operation } from './operation.js';

/**
 * True when these arguments are valid as they stand, each declared and of its kind and every required one given: the
 * call needs no schema, so a command line that gives good arguments never loads zod (it says what is wrong otherwise).
 */
export function validAsGiven(op: Operation, args: Readonly<Record<string, unknown>>): boolean {
  for (const [name, v] of Object.entries(args)) {
    const f = Object.hasOwn(op.args, name) ? op.args[name] : undefined;
    if (!f || (v === undefined ? f.required : !fits(f, v))) return false;
  }
  return Object.entries(op.args).every(([name, f]) => !f.required || Object.hasOwn(args, name));
}

function fits(f: Field, v: unknown): boolean {
  switch (f.kind) {
    case 'string':
      return typeof v === 'string' && v.length >= (f.min ?? 0);
    case 'strings':
      return Array.isArray(v) && v.every((s) => typeof s === 'string');
    case 'number':
      return Number.isSafeInteger(v) && (v as number) >= (f.min ?? 1);
    case 'boolean':
      return typeof v === 'boolean';
    case 'enum':
      return typeof v === 'string' && (f.values ?? []).includes(v);
  }
}

export function fieldKinds(op: Operation): Record<string, FieldKind> {
  return Object.fromEntries(Object.entries(op.args).map(([name, f]) => [name, f.kind]));
}

export function isRequired(op: Operation, field: string): boolean {
  return op.args[field]?.required ?? false;
}

/** One line naming what a call needs, for argument errors: `required: a, b; optional: c`. */
export function argumentsHint(op: Operation): string {
  const fields = Object.entries(op.args);
  const req = fields.filter(([, f]) => f.required).map(([name]) => name);
  const opt = fields.filter(([, f]) => !f.required).map(([name]) => name);
  return `required: ${req.join(', ') || 'none'}; optional: ${opt.join(', ') || 'none'}`;
}
