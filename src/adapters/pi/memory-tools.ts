/**
 * The memory tools the model calls in-process (Pi's `tools` channel, and the fallback of its
 * MCP one), generated from the catalogue (operations/): `gcc_<name>` for each operation offered
 * to Pi, its description and JSON Schema from the declaration. Failures come back as tool
 * errors carrying the engine's code and fix, never as a thrown exception that would end the
 * turn.
 */
import type { AgentToolResult, ExtensionAPI, ToolDefinition } from '@earendil-works/pi-coding-agent';
import type { ContextQuery } from '../../context/query.js';
import { safeText } from '../../log/safe-text.js';
import { toolArgsOf } from '../../operations/context.js';
import { argumentsHint } from '../../operations/fields.js';
import { type Operation, operationsFor } from '../../operations/index.js';
import { check, failure, perform, type Speaker } from '../../operations/runner.js';
import { argsOf, jsonSchema } from '../../operations/schema.js';
import { callIn } from '../cli/args.js';
import type { MemorySlot } from './session.js';

export const TOOL_PREFIX = 'gcc_';

interface MemoryToolDetails {
  ok: boolean;
  code?: string;
  branch?: string;
  truncated?: boolean;
}

/** How the model calls CONTEXT in-process, for the "how to see more" notes. */
const spellPi = (q: ContextQuery): string => `${TOOL_PREFIX}context ${JSON.stringify(toolArgsOf(q))}`;

const PI: Speaker = {
  front: 'pi',
  spell: spellPi,
  usage: argumentsHint,
  tool: (op) => `${TOOL_PREFIX}${op.name}`,
  call: (words) => callIn(words, 'pi', TOOL_PREFIX),
};

export function registerMemoryTools(
  pi: ExtensionAPI,
  slot: MemorySlot,
  defaults: () => { contextBudget: number },
): void {
  for (const op of operationsFor('pi')) pi.registerTool(toolDefinition(op, slot, defaults));
}

function toolDefinition(op: Operation, slot: MemorySlot, defaults: () => { contextBudget: number }): ToolDefinition {
  return {
    name: `${TOOL_PREFIX}${op.name}`,
    label: `Memory ${op.name}`,
    description: op.describe ?? op.summary,
    parameters: jsonSchema(argsOf(op)) as ToolDefinition['parameters'],
    executionMode: 'sequential',
    async execute(_id, params): Promise<AgentToolResult<MemoryToolDetails>> {
      try {
        const memory = slot.memory;
        if (!memory)
          return errorResult(
            slot.problem?.code ?? 'E_NOT_INITIALIZED',
            slot.describeProblem() || 'GCC memory is not open in this session.',
          );
        const args = await check(op, params ?? {}, PI);
        const a = await perform(op, args, PI, {
          dir: memory.root,
          session: slot.session,
          budget: defaults().contextBudget,
          memory: async () => memory,
        });
        const d = a.data as { branch?: unknown; truncated?: unknown };
        const details: MemoryToolDetails = { ok: true };
        if (typeof d.branch === 'string') details.branch = d.branch;
        if (typeof d.truncated === 'boolean') details.truncated = d.truncated;
        return { content: [{ type: 'text', text: a.text }], details };
      } catch (err) {
        const e = failure(err, PI);
        return errorResult(e.code, e.oneLine());
      }
    },
  };
}

/** The code leads the text, once (a text that names it already is left as it is). */
function errorResult(code: string, text: string): AgentToolResult<MemoryToolDetails> {
  return {
    content: [{ type: 'text', text: safeText(text.includes(code) ? text : `${code}: ${text}`) }],
    details: { ok: false, code },
    isError: true,
  };
}
