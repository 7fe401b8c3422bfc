/**
 * What the front ends need to know of an operation's zod schema: each field's kind (for the
 * command line's parsing and MCP clients' lenient shapes), and the schema as JSON Schema for
 * hosts that take tools as JSON Schema (MCP, Pi).
 */
import * as z from 'zod';

export type FieldKind = 'string' | 'strings' | 'number' | 'boolean' | 'enum' | 'other';

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

export function fieldKinds(schema: z.ZodObject): Record<string, FieldKind> {
  const out: Record<string, FieldKind> = {};
  for (const [k, v] of Object.entries(schema.shape)) out[k] = kindOf(v as z.ZodType);
  return out;
}

export function isRequired(schema: z.ZodObject, field: string): boolean {
  const f = schema.shape[field] as z.ZodType | undefined;
  return !!f && !f.safeParse(undefined).success;
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

/** One line naming what a call needs, for argument errors: `required: a, b; optional: c`. */
export function argumentsHint(schema: z.ZodObject): string {
  const fields = Object.keys(schema.shape);
  const req = fields.filter((f) => isRequired(schema, f));
  const opt = fields.filter((f) => !req.includes(f));
  return `required: ${req.join(', ') || 'none'}; optional: ${opt.join(', ') || 'none'}`;
}

/** What is wrong with a call's arguments, in a reader's words: `missing contribution; level: …`. */
export function issuesText(error: z.ZodError): string {
  return error.issues
    .map((i) => {
      const where = i.path.length ? i.path.join('.') : 'arguments';
      return i.code === 'invalid_type' && /received undefined$/.test(i.message) ? `missing ${where}` : `${where}: ${i.message}`;
    })
    .join('; ');
}
