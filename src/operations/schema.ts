/**
 * Operations' zod schemas: built on first use, checked against, and handed as JSON Schema to
 * hosts that take tools that way (MCP, Pi). Also what fields.generated.ts is derived from:
 * each field's kind and whether it is required.
 */
import * as z from 'zod';
import { fieldSays } from '../errors.js';
import type { Arguments, Field, FieldKind } from './arguments.js';
import type { Operation, Zod } from './operation.js';

export type { FieldKind } from './arguments.js';

// Named one by one, so the bundle keeps only the parts of zod these use.
const builders: Zod = { object: z.object, string: z.string, number: z.number, boolean: z.boolean, enum: z.enum, array: z.array };
const built = new WeakMap<Operation, z.ZodObject>();

/** The operation's arguments schema, built once per process. */
export function argsOf(op: Operation): z.ZodObject {
  let schema = built.get(op);
  if (!schema) {
    schema = op.args(builders);
    built.set(op, schema);
  }
  return schema;
}

/** The schema inside optional, default and nullable wrappers. */
export function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (let i = 0; i < 5; i++) {
    const def = s.def as { type: string; innerType?: z.ZodType };
    if ((def.type === 'optional' || def.type === 'default' || def.type === 'nullable') && def.innerType) s = def.innerType;
    else break;
  }
  return s;
}

export function kindOf(schema: z.ZodType): FieldKind {
  const def = unwrap(schema).def as { type: string; element?: z.ZodType };
  switch (def.type) {
    case 'string':
      return 'string';
    case 'number':
    case 'int':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'enum':
      return 'enum';
    case 'array':
      return def.element && (def.element.def as { type: string }).type === 'string' ? 'strings' : 'other';
    default:
      return 'other';
  }
}

function isRequired(schema: z.ZodType): boolean {
  return !schema.safeParse(undefined).success;
}

/** Whether a call may give nothing, and each field's kind and whether a call must give it: what fields.generated.ts holds. */
export function argumentsFrom(schema: z.ZodObject): Arguments {
  const fields: Record<string, Field> = {};
  for (const [name, f] of Object.entries(schema.shape)) {
    const help = (f as z.ZodType).description;
    fields[name] = { kind: kindOf(f as z.ZodType), required: isRequired(f as z.ZodType), ...(help ? { help } : {}) };
  }
  const none = schema.safeParse({});
  return { empty: none.success && Object.keys(none.data).length === 0, fields };
}

/**
 * The schema as a host reads it: JSON Schema, without the `$schema` line every tool would repeat
 * and without the ±2^53 bounds zod gives every integer, which bound nothing: the list rides in
 * every request a host makes.
 */
export function jsonSchema(schema: z.ZodObject): Record<string, unknown> {
  const out = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete out.$schema;
  return withoutSafeBounds(out) as Record<string, unknown>;
}

function withoutSafeBounds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutSafeBounds);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if ((k === 'maximum' && v === Number.MAX_SAFE_INTEGER) || (k === 'minimum' && v === Number.MIN_SAFE_INTEGER)) continue;
    out[k] = withoutSafeBounds(v);
  }
  return out;
}

/** What each type zod expects is, in a reader's words. */
const KINDS: Record<string, string> = { string: 'text', number: 'a number', int: 'a whole number', boolean: 'true or false', array: 'a list', object: 'an object' };

/** The value a call gave at a path, to name it back (`action must be one of add, …, not "frob"`). */
function at(given: unknown, path: readonly PropertyKey[]): unknown {
  let v = given;
  for (const k of path) v = v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined;
  return v;
}

/**
 * What is wrong with a call's arguments, in a reader's words, the decider's (errors.ts
 * fieldSays): `missing contribution; action must be one of add, check, uncheck, remove, not
 * "frob"`. The one place zod's issues become messages, for every front end. `given`: the call's
 * arguments, to name a refused value back.
 */
export function issuesText(error: z.ZodError, given?: unknown): string {
  return error.issues
    .map((i) => {
      const field = i.path.length ? i.path.join('.') : 'arguments';
      const value = at(given, i.path);
      switch (i.code) {
        case 'invalid_type':
          if (given !== undefined ? value === undefined : /received undefined$/.test(i.message)) return fieldSays.missing(field);
          return fieldSays.notA(field, KINDS[i.expected] ?? i.expected);
        case 'invalid_value':
          return fieldSays.oneOf(field, i.values, value);
        case 'too_small':
          if (i.origin === 'string') return Number(i.minimum) <= 1 ? fieldSays.empty(field) : `${field} must be ${i.minimum} characters or more`;
          if (i.origin === 'array') return `${field} must hold ${i.minimum} or more`;
          return fieldSays.atLeast(field, i.minimum);
        case 'too_big':
          if (i.origin === 'string') return fieldSays.longer(field, i.maximum);
          return `${field} must be ${i.maximum} or less`;
        default:
          return `${field}: ${i.message.charAt(0).toLowerCase()}${i.message.slice(1)}`;
      }
    })
    .join('; ');
}
