/**
 * The memory operations as a model's tools, MCP's and Pi's alike: one tool per operation the
 * front end offers, its description and input schema from the declaration (operations/), each
 * call run by the one runner (operations/runner.ts). Tight on purpose: the list rides in every
 * request a host makes (docs/benchmarks.md holds its size). A result carries its text once;
 * beside it only what a client acts on (the branch, whether more is left and the query that
 * shows it), never the text again.
 */
import type { ContextQuery } from '../../context/query.js';
import type { Memory } from '../../engine/memory.js';
import { safeText } from '../../log/safe-text.js';
import { toolArgsOf } from '../../operations/context.js';
import { argumentsHint } from '../../operations/fields.js';
import { type Operation, operationsFor } from '../../operations/index.js';
import { check, failure, perform, type Speaker } from '../../operations/runner.js';
import { argsOf, jsonSchema } from '../../operations/schema.js';
import { callIn } from '../cli/args.js';

/** How a model front end speaks: its tools are `<prefix><operation>`, and fixes name them. */
export function toolSpeaker(front: 'mcp' | 'pi', prefix: string): Speaker & { front: 'mcp' | 'pi' } {
  return {
    front,
    spell: (q: ContextQuery) => `${prefix}context ${JSON.stringify(toolArgsOf(q))}`,
    usage: argumentsHint,
    tool: (op) => `${prefix}${op.name}`,
    call: (words) => callIn(words, front, prefix),
  };
}

export const MCP = toolSpeaker('mcp', '');

/** The tools a speaker offers, as hosts list them. */
export function toolsOf(sp: Speaker & { front: 'mcp' | 'pi' }) {
  return operationsFor(sp.front).map((op) => ({
    op,
    name: sp.tool!(op),
    description: op.describe ?? op.summary,
    inputSchema: jsonSchema(argsOf(op)) as { type: 'object'; [key: string]: unknown },
  }));
}

export interface ToolOutcome {
  /** The answer, or `E_CODE: message` and `Fix: …` on the next line. */
  text: string;
  /** The error's code when the call failed. */
  code?: string;
  /** What a client acts on besides the text. */
  facts: { branch?: string; truncated?: true; next?: Record<string, unknown> };
}

/** One tool call, checked and run; a failure is an outcome with its code and fix, never a throw. */
export async function callTool(
  op: Operation,
  raw: unknown,
  sp: Speaker,
  at: { session: string; budget: number | undefined; memory: () => Promise<Memory> },
): Promise<ToolOutcome> {
  try {
    const args = await check(op, raw ?? {}, sp);
    const a = await perform(op, args, sp, { dir: '', ...at });
    const d = a.data as { branch?: unknown; truncated?: unknown; next?: unknown };
    const facts: ToolOutcome['facts'] = {};
    if (typeof d.branch === 'string') facts.branch = d.branch;
    if (d.truncated === true) facts.truncated = true;
    // The next query as this tool's arguments, so a client can send it back as it stands.
    if (d.next) facts.next = toolArgsOf(d.next as ContextQuery);
    return { text: a.text, facts };
  } catch (err) {
    return { ...errorText(err, sp), facts: {} };
  }
}

/** An error as a model reads it: the code leads, so a client can read it off the first line. */
export function errorText(err: unknown, sp: Speaker): { text: string; code: string } {
  const e = failure(err, sp);
  return { text: safeText(`${e.code}: ${e.message}${e.fix ? `\nFix: ${e.fix}` : ''}`), code: e.code };
}
