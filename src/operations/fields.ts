/**
 * What the front ends need of an operation's arguments besides checking them: each field's
 * kind (how the command line reads it, how MCP clients' lenient shapes are coerced), whether a
 * call must give it (usage lines, help, argument hints), and whether a call may give nothing.
 * It is read from a table generated from the schemas (fields.generated.ts), so listing and
 * parsing commands builds no zod schema; only checking a call's arguments does (schema.ts).
 */
import type { Arguments, Field, FieldKind } from './arguments.js';
import { ARGUMENTS } from './fields.generated.js';
import type { Operation } from './operation.js';

export type { Arguments, Field, FieldKind } from './arguments.js';

function argumentsOf(op: Operation): Arguments {
  const a = ARGUMENTS[op.name];
  if (!a) throw new Error(`no arguments known for operation ${op.name}: run \`npx tsx scripts/gen-docs.ts\``);
  return a;
}

/** The operation's fields, in its schema's order. */
export function fieldsOf(op: Operation): Readonly<Record<string, Field>> {
  return argumentsOf(op).fields;
}

/** True when these arguments are valid as they stand without checking them: none given, and none needed. */
export function validAsGiven(op: Operation, args: Readonly<Record<string, unknown>>): boolean {
  return Object.keys(args).length === 0 && argumentsOf(op).empty;
}

export function fieldKinds(op: Operation): Record<string, FieldKind> {
  return Object.fromEntries(Object.entries(fieldsOf(op)).map(([name, f]) => [name, f.kind]));
}

export function isRequired(op: Operation, field: string): boolean {
  return fieldsOf(op)[field]?.required ?? false;
}

/** One line naming what a call needs, for argument errors: `required: a, b; optional: c`. */
export function argumentsHint(op: Operation): string {
  const fields = Object.entries(fieldsOf(op));
  const req = fields.filter(([, f]) => f.required).map(([name]) => name);
  const opt = fields.filter(([, f]) => !f.required).map(([name]) => name);
  return `required: ${req.join(', ') || 'none'}; optional: ${opt.join(', ') || 'none'}`;
}
