/**
 * What the front ends read of an operation's arguments besides checking them, straight from
 * its declaration: each field's kind (how the command line reads it, how MCP clients' lenient
 * shapes are coerced), whether a call must give it, and whether a call may give nothing.
 */
import type { FieldKind, Operation } from './operation.js';

/** True when these arguments are valid as they stand without checking them: none given, and none needed. */
export function validAsGiven(op: Operation, args: Readonly<Record<string, unknown>>): boolean {
  return Object.keys(args).length === 0 && !Object.values(op.args).some((f) => f.required);
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
