/**
 * Leniency for what MCP clients actually send. Some serialise array arguments as a JSON
 * string (`"[\"a\",\"b\"]"`), some send numbers as strings, some send one string where the
 * schema says array, or numbers inside a list of strings, or null for an omitted optional.
 * The advertised schemas stay exact; this pass runs before validation and only rewrites
 * values whose declared type is a list or a number, so nothing else changes.
 */
import type { FieldKind } from './operation.js';

export function coerceArgs(args: unknown, kinds: Record<string, FieldKind>): unknown {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return args;
  const out: Record<string, unknown> = { ...(args as Record<string, unknown>) };
  for (const [key, value] of Object.entries(out)) {
    const kind = kinds[key];
    if (value === null && kind !== undefined) {
      delete out[key];
      continue;
    }
    if (kind === 'strings') out[key] = asStrings(asArray(value));
    else if (kind === 'number') out[key] = asNumber(value);
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
