import type { CanonicalInput, CanonicalTool } from '../../observer/envelope.js';

/**
 * Pi's tool vocabulary → the canonical one the hook logic switches on. Pi names its tools in
 * lowercase and shapes inputs its own way (`path`, `edits[].oldText`); the hook speaks Claude
 * Code's spelling (`Write`, `file_path`, `old_string`). The translation lives here, on the
 * adapter side, so the hook keeps a single vocabulary for every host.
 */

/** Prefix of the in-process memory tools. */
const MEMORY_TOOL_PREFIX = 'gcc_';
/** Prefix Pi gives the tools of the `gcc` MCP server. */
export const MCP_TOOL_PREFIX = 'mcp__gcc__';

export interface CanonicalCall {
  tool: CanonicalTool;
  hostTool: string;
  input: CanonicalInput;
}

function isMemoryTool(name: string): boolean {
  return name.startsWith(MEMORY_TOOL_PREFIX) || name.startsWith(MCP_TOOL_PREFIX);
}

export function toCanonical(toolName: string, raw: unknown): CanonicalCall {
  const input = isRecord(raw) ? raw : {};
  const str = (k: string) => (typeof input[k] === 'string' ? (input[k] as string) : undefined);
  // A memory tool is flagged and passed under its own name, untranslated: its `context` or
  // `search` must never pass for one of Pi's file tools.
  if (isMemoryTool(toolName)) return { tool: 'Memory', hostTool: toolName, input: { ...input } };
  switch (toolName) {
    case 'read':
      return {
        tool: 'Read',
        hostTool: toolName,
        input: defined({ file_path: str('path'), offset: input.offset, limit: input.limit }),
      };
    case 'write':
      return { tool: 'Write', hostTool: toolName, input: defined({ file_path: str('path'), content: str('content') }) };
    case 'edit':
      return { tool: 'Edit', hostTool: toolName, input: defined({ file_path: str('path'), edits: piEdits(input) }) };
    case 'bash':
      return { tool: 'Bash', hostTool: toolName, input: defined({ command: str('command'), timeout: input.timeout }) };
    case 'grep':
      return {
        tool: 'Grep',
        hostTool: toolName,
        input: defined({ pattern: str('pattern'), path: str('path'), glob: str('glob') }),
      };
    case 'find':
      return { tool: 'Glob', hostTool: toolName, input: defined({ pattern: str('pattern'), path: str('path') }) };
    case 'ls':
      return { tool: 'Glob', hostTool: toolName, input: defined({ pattern: '*', path: str('path') ?? '.' }) };
    default:
      return { tool: 'Other', hostTool: toolName, input: { ...input } };
  }
}

/**
 * Pi's edit input, normalised the way Pi's own edit tool does before running: `edits` may come
 * as a JSON string, as one object, or as legacy top-level `oldText`/`newText`.
 */
function piEdits(input: Record<string, unknown>): { old_string: string; new_string: string }[] {
  let edits: unknown = input.edits;
  if (typeof edits === 'string') {
    try {
      edits = JSON.parse(edits);
    } catch {
      edits = [];
    }
  }
  if (isRecord(edits)) edits = [edits];
  const list = Array.isArray(edits) ? [...edits] : [];
  if (typeof input.oldText === 'string' && typeof input.newText === 'string')
    list.push({ oldText: input.oldText, newText: input.newText });
  return list
    .filter(isRecord)
    .filter((e) => typeof e.oldText === 'string' && typeof e.newText === 'string')
    .map((e) => ({ old_string: e.oldText as string, new_string: e.newText as string }));
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function defined(o: Record<string, unknown>): CanonicalInput {
  const out: CanonicalInput = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out;
}
