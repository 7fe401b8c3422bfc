/**
 * The MCP tools, generated from the catalogue (operations/): one tool per operation offered to
 * MCP, its description and input schema from the declaration, each call run by the one runner
 * (operations/runner.ts). Tight on purpose: the list rides in every request a host makes
 * (docs/benchmarks.md holds its size). A result carries its text once; structured content
 * holds only what a client acts on (the branch, whether more is left and the query that shows
 * it), never the text again.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ContextQuery } from '../../context/query.js';
import type { Memory } from '../../engine/memory.js';
import { safeText } from '../../log/safe-text.js';
import { toolArgsOf } from '../../operations/context.js';
import { argumentsHint } from '../../operations/fields.js';
import { type Operation, operationsFor } from '../../operations/index.js';
import { failure, perform, type Speaker } from '../../operations/runner.js';
import { argsOf, checkCall, jsonSchema } from '../../operations/schema.js';
import { callIn } from '../cli/args.js';

export interface McpTool {
  op: Operation;
}

export function mcpTools(): Map<string, McpTool> {
  return new Map(operationsFor('mcp').map((op) => [op.name, { op }]));
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
const spellMcp = (q: ContextQuery): string => `context ${JSON.stringify(toolArgsOf(q))}`;

export const MCP: Speaker = {
  front: 'mcp',
  spell: spellMcp,
  usage: argumentsHint,
  tool: (op) => op.name,
  call: (words) => callIn(words, 'mcp'),
};

export function errorResult(e: unknown, note = ''): CallToolResult {
  const r = failure(e, MCP);
  // The code leads, so a client can read it off the first line.
  return {
    content: [
      {
        type: 'text',
        text: safeText(`${r.code}: ${r.message}${r.fix ? `\nFix: ${r.fix}` : ''}${note ? `\n${note.trimEnd()}` : ''}`),
      },
    ],
    isError: true,
  };
}

/** Arguments as the operation takes them; E_INVALID_ARGUMENT naming what it needs when they are not. */
export function argumentsFor(t: McpTool, raw: unknown): Record<string, unknown> {
  return checkCall(t.op, raw, MCP);
}

/** Run one tool call against an open memory; failures come back as an error result, never a thrown one. */
export async function callTool(
  t: McpTool,
  args: Record<string, unknown>,
  memory: Memory,
  session: string,
  budget: number | undefined,
  note = '',
): Promise<CallToolResult> {
  try {
    const a = await perform(t.op, args, MCP, { dir: memory.root, session, budget, memory: async () => memory });
    const d = a.data as { branch?: unknown; truncated?: unknown; next?: unknown };
    const structured: Record<string, unknown> = {};
    if (typeof d.branch === 'string') structured.branch = d.branch;
    if (d.truncated === true) structured.truncated = true;
    // The next query as this tool's arguments, so a client can send it back as it stands.
    if (d.next) structured.next = toolArgsOf(d.next as ContextQuery);
    return {
      content: [{ type: 'text', text: note + a.text }],
      ...(Object.keys(structured).length ? { structuredContent: structured } : {}),
    };
  } catch (err) {
    return errorResult(err, note);
  }
}
