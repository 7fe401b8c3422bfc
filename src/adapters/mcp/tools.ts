/**
 * The MCP tools, generated from the catalogue (operations/): one tool per operation offered to
 * MCP, its description and input schema from the declaration. Tight on purpose: the list rides
 * in every request a host makes (docs/benchmarks.md holds its size). A result carries its text
 * once; structured content holds only what a client acts on (the branch, whether more is left
 * and the query that shows it), never the text again.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { type ContextQuery } from '../../context/query.js';
import type { Memory } from '../../engine/memory.js';
import { asGccError, type GccError, gccError } from '../../errors.js';
import { asProjectData } from '../../observer/framing.js';
import { safeText } from '../../log/safe-text.js';
import { toolArgsOf } from '../../operations/context.js';
import { type Operation, operationsFor } from '../../operations/index.js';
import { argumentsHint, fieldKinds, type FieldKind } from '../../operations/fields.js';
import { argsOf, issuesText, jsonSchema } from '../../operations/schema.js';
import { coerceArgs } from './coerce.js';

export interface McpTool {
  op: Operation;
  kinds: Record<string, FieldKind>;
}

export function mcpTools(): Map<string, McpTool> {
  return new Map(operationsFor('mcp').map((op) => [op.name, { op, kinds: fieldKinds(op) }]));
}

export function describeTools(tools: Map<string, McpTool>): Tool[] {
  return [...tools.values()].map(({ op }) => ({
    name: op.name,
    description: op.describe ?? op.summary,
    inputSchema: jsonSchema(argsOf(op)) as Tool['inputSchema'],
    ...(op.readOnly ? { annotations: { readOnlyHint: true } } : {}),
  }));
}

/** How a model calls CONTEXT over MCP, for the "how to see more" notes. */
export const spellMcp = (q: ContextQuery): string => `context ${JSON.stringify(toolArgsOf(q))}`;

export function errorResult(e: GccError, note = ''): CallToolResult {
  // The code leads, so a client can read it off the first line.
  return { content: [{ type: 'text', text: safeText(`${e.code}: ${e.message}${e.fix ? `\nFix: ${e.fix}` : ''}${note ? `\n${note.trimEnd()}` : ''}`) }], isError: true };
}

/** Arguments as the operation takes them; E_INVALID_ARGUMENT naming what it needs when they are not. */
export function argumentsFor(t: McpTool, raw: unknown): Record<string, unknown> {
  const args = raw === undefined ? {} : raw;
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    throw gccError('E_INVALID_ARGUMENT', `arguments of ${t.op.name} must be an object, not ${args === null ? 'null' : Array.isArray(args) ? 'a list' : typeof args}`, argumentsHint(t.op));
  }
  const coerced = coerceArgs(args, t.kinds);
  const parsed = argsOf(t.op).safeParse(coerced);
  if (!parsed.success) {
    const what = issuesText(parsed.error, coerced);
    throw gccError('E_INVALID_ARGUMENT', `invalid arguments for ${t.op.name}: ${what}`, argumentsHint(t.op));
  }
  return parsed.data as Record<string, unknown>;
}

/** Run one tool call against an open memory; failures come back as an error result, never a thrown one. */
export async function callTool(t: McpTool, args: Record<string, unknown>, memory: Memory, session: string, budget: number | undefined, note = ''): Promise<CallToolResult> {
  const op = t.op;
  if (op.needs === 'none') return errorResult(gccError('E_INVALID_ARGUMENT', `${op.name} is not offered over MCP`, 'use the gctx command line'));
  try {
    const a = await op.run(args as never, { memory, session, budget, spell: spellMcp, front: 'mcp' });
    // Memory is text other people and agents wrote: a read is handed over framed as data, once.
    // Any other answer may still quote memory (an objective checked off): no control character either way.
    const text = op.readOnly || op.name === 'merge' ? asProjectData(a.text) : safeText(a.text);
    const d = a.data as { branch?: unknown; truncated?: unknown; next?: unknown };
    const structured: Record<string, unknown> = {};
    if (typeof d.branch === 'string') structured.branch = d.branch;
    if (d.truncated === true) structured.truncated = true;
    // The next query as this tool's arguments, so a client can send it back as it stands.
    if (d.next) structured.next = toolArgsOf(d.next as ContextQuery);
    return { content: [{ type: 'text', text: note + text }], ...(Object.keys(structured).length ? { structuredContent: structured } : {}) };
  } catch (err) {
    return errorResult(asGccError(err), note);
  }
}
