/**
 * The zod schema of an operation, built from its declaration (operation.ts `Fields`) on first
 * use: it checks a call's arguments and is handed as JSON Schema to hosts that take tools that
 * way (MCP, Pi). Only a process that checks a call loads zod.
 */
import * as z from 'zod';
import { fieldSays, gccError } from '../errors.js';
import { coerceArgs } from './coerce.js';
import { fieldKinds } from './fields.js';
import type { Field, Operation, Speaker } from './operation.js';

function schemaOf(f: Field): z.ZodType {
  let s: z.ZodType;
  switch (f.kind) {
    case 'string':
      s = f.min ? z.string().min(f.min) : z.string();
      break;
    case 'strings':
      s = z.array(z.string());
      break;
    case 'number':
      s = z
        .number()
        .int()
        .min(f.min ?? 1);
      break;
    case 'boolean':
      s = z.boolean();
      break;
    case 'enum':
      s = z.enum(f.values as [string, ...string[]]);
      break;
  }
  if (!f.required) s = s.optional();
  return f.help ? s.describe(f.help) : s;
}

const built = new WeakMap<Operation, z.ZodObject>();

/** The operation's arguments schema, built once per process. */
export function argsOf(op: Operation): z.ZodObject {
  let schema = built.get(op);
  if (!schema) {
    schema = z.object(Object.fromEntries(Object.entries(op.args).map(([name, f]) => [name, schemaOf(f)])));
    built.set(op, schema);
  }
  return schema;
}

/**
 * A call's arguments as the operation takes them; E_INVALID_ARGUMENT with the speaker's fix when
 * they do not fit. A tool's arguments (a model's) must be an object, and the lenient shapes models
 * send are coerced first (coerce.ts).
 */
export function checkCall(op: Operation, given: unknown, sp: Speaker): Record<string, unknown> {
  const tool = sp.tool?.(op);
  let args = given;
  if (tool !== undefined) {
    const raw = given ?? {};
    if (typeof raw !== 'object' || Array.isArray(raw))
      throw gccError(
        'E_INVALID_ARGUMENT',
        `arguments of ${tool} must be an object, not ${Array.isArray(raw) ? 'a list' : typeof raw}`,
        sp.usage(op),
      );
    args = coerceArgs(raw, fieldKinds(op));
  }
  const r = argsOf(op).safeParse(args);
  if (!r.success)
    throw gccError(
      'E_INVALID_ARGUMENT',
      `${tool ? `invalid arguments for ${tool}: ` : ''}${issuesText(r.error, args)}`,
      sp.usage(op),
    );
  return r.data;
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
    if ((k === 'maximum' && v === Number.MAX_SAFE_INTEGER) || (k === 'minimum' && v === Number.MIN_SAFE_INTEGER))
      continue;
    out[k] = withoutSafeBounds(v);
  }
  return out;
}

/** What each type zod expects is, in a reader's words. */
const KINDS: Record<string, string> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
};

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
          if (given !== undefined ? value === undefined : /received undefined$/.test(i.message))
            return fieldSays.missing(field);
          return fieldSays.notA(field, KINDS[i.expected] ?? i.expected);
        case 'invalid_value':
          return fieldSays.oneOf(field, i.values, value);
        case 'too_small':
          if (i.origin === 'string')
            return Number(i.minimum) <= 1 ? fieldSays.empty(field) : `${field} must be ${i.minimum} characters or more`;
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
