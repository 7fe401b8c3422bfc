/**
 * The memory tools the model calls in-process (Pi's `tools` channel, and the fallback of its
 * MCP one), generated from the catalogue (operations/): `gcc_<name>` for each operation offered
 * to Pi, its description and JSON Schema from the declaration. Failures come back as tool
 * errors carrying the engine's code and fix, never as a thrown exception that would end the
 * turn.
 */
import type { AgentToolResult, ExtensionAPI, ToolDefinition } from '@earendil-works/pi-coding-agent';
import type { ContextQuery } from '../../context/query.js';
import { asGccError } from '../../errors.js';
import { asProjectData } from '../../observer/framing.js';
import { safeText } from '../../log/safe-text.js';
import { toolArgsOf } from '../../operations/context.js';
import { type Operation, operationsFor } from '../../operations/index.js';
import { argumentsHint, fieldKinds } from '../../operations/fields.js';
import { argsOf, issuesText, jsonSchema } from '../../operations/schema.js';
import { coerceArgs } from '../mcp/coerce.js';
import type { MemorySlot } from './memory-slot.js';

export const TOOL_PREFIX = 'gcc_';

export interface MemoryToolDetails {
  ok: boolean;
  code?: string;
  branch?: string;
  truncated?: boolean;
}

/** How the model calls CONTEXT in-process, for the "how to see more" notes. */
const spellPi = (q: ContextQuery): string => `${TOOL_PREFIX}context ${JSON.stringify(toolArgsOf(q))}`;

export function registerMemoryTools(pi: ExtensionAPI, slot: MemorySlot, defaults: () => { contextBudget: number }): void {
  for (const op of operationsFor('pi')) pi.registerTool(toolDefinition(op, slot, defaults));
}

function toolDefinition(op: Operation, slot: MemorySlot, defaults: () => { contextBudget: number }): ToolDefinition {
  const kinds = fieldKinds(op);
  return {
    name: `${TOOL_PREFIX}${op.name}`,
    label: `Memory ${op.name}`,
    description: op.describe ?? op.summary,
    parameters: jsonSchema(argsOf(op)) as ToolDefinition['parameters'],
    executionMode: 'sequential',
    async execute(_id, params): Promise<AgentToolResult<MemoryToolDetails>> {
      try {
        const memory = slot.memory;
        if (!memory) return errorResult(slot.problem?.code ?? 'E_NOT_INITIALIZED', slot.describeProblem() || 'GCC memory is not open in this session.');
        const given = coerceArgs(params ?? {}, kinds);
        const parsed = argsOf(op).safeParse(given);
        if (!parsed.success) {
          const what = issuesText(parsed.error, given);
          return errorResult('E_INVALID_ARGUMENT', `E_INVALID_ARGUMENT: invalid arguments for ${TOOL_PREFIX}${op.name}: ${what} Fix: ${argumentsHint(op)}`);
        }
        if (op.needs === 'none') return errorResult('E_INVALID_ARGUMENT', `${op.name} is not offered as a tool`);
        const a = await op.run(parsed.data as never, { memory, session: slot.session, budget: defaults().contextBudget, spell: spellPi, front: 'pi' });
        const d = a.data as { branch?: unknown; truncated?: unknown };
        const details: MemoryToolDetails = { ok: true };
        if (typeof d.branch === 'string') details.branch = d.branch;
        if (typeof d.truncated === 'boolean') details.truncated = d.truncated;
        return { content: [{ type: 'text', text: op.readOnly || op.name === 'merge' ? asProjectData(a.text) : safeText(a.text) }], details };
      } catch (err) {
        const e = asGccError(err);
        return errorResult(e.code, e.oneLine());
      }
    },
  };
}

function errorResult(code: string, text: string): AgentToolResult<MemoryToolDetails> {
  return { content: [{ type: 'text', text: safeText(text.startsWith(code) ? text : `${code}: ${text}`) }], details: { ok: false, code }, isError: true };
}
