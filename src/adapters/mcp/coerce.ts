/**
 * Leniency for what MCP clients actually send. Some serialise array arguments as a JSON
 * string (`"[\"a\",\"b\"]"`), some send numbers as strings, some send one string where the
 * schema says array, or numbers inside a list of strings. The advertised schemas stay exact;
 * this pass runs before validation and only rewrites values whose declared type is an array or
 * a number, so nothing else changes.
 */
import type * as z from 'zod';

export type FieldKind = 'array' | 'strings' | 'number' | 'other';

/** What each top-level field of an object schema expects, looking through optional/default. */
export function fieldKinds(shape: Record<string, z.ZodType>): Record<string, FieldKind> {
  const out: Record<string, FieldKind> = {};
  for (const [key, schema] of Object.entries(shape)) out[key] = kindOf(schema);
  return out;
}

function kindOf(schema: z.ZodType): FieldKind {
  let s: z.ZodType = schema;
  // Unwrap optional / default / nullable wrappers (zod 4 keeps the inner schema in def.innerType).
  for (let i = 0; i < 5; i++) {
    const def = s.def as { type: string; innerType?: z.ZodType };
    if ((def.type === 'optional' || def.type === 'default' || def.type === 'nullable') && def.innerType) s = def.innerType;
    else break;
  }
  const def = s.def as { type: string; element?: z.ZodType };
  const type = def.type;
  if (type === 'array') return def.element && (def.element.def as { type: string }).type === 'string' ? 'strings' : 'array';
  if (type === 'number' || type === 'int') return 'number';
  return 'other';
}

/** A copy of `args` with array- and number-typed fields coerced from the shapes clients send. */
export function coerceArgs(args: unknown, kinds: Record<string, FieldKind>): unknown {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return args;
  const out: Record<string, unknown> = { ...(args as Record<string, unknown>) };
  for (const [key, value] of Object.entries(out)) {
    const kind = kinds[key];
    if (kind === 'array') out[key] = asArray(value);
    else if (kind === 'strings') out[key] = asStrings(asArray(value));
    else if (kind === 'number') out[key] = asNumber(value);
    // Some clients send null for an omitted optional argument.
    if (value === null && kind !== undefined) delete out[key];
  }
  return out;
}

function asArray(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const text = value.trim();
  if (text.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (Array.isArray(parsed)) return parsed;
    } catch {
      // Not JSON after all: a single item that happens to start with a bracket.
    }
  }
  return text === '' ? [] : [value];
}

/** Objective numbers arrive as numbers where the schema says strings: `check: [1, 2]`. */
function asStrings(value: unknown): unknown {
  return Array.isArray(value) ? value.map((v) => (typeof v === 'number' ? String(v) : v)) : value;
}

function asNumber(value: unknown): unknown {
  if (typeof value !== 'string' || value.trim() === '') return value;
  const n = Number(value);
  return Number.isFinite(n) ? n : value;
}
