/**
 * The memory tools the model calls in-process (Pi's `tools` channel, and the fallback of its
 * MCP one): `gcc_<name>` for each operation offered to Pi, made as MCP's are (mcp/tools.ts).
 * Failures come back as tool errors carrying the engine's code and fix, never as a thrown
 * exception that would end the turn.
 */
import type { AgentToolResult, ExtensionAPI, ToolDefinition } from '@earendil-works/pi-coding-agent';
import { type ErrorCode, gccError } from '../../errors.js';
import { callTool, type ToolOutcome, toolSpeaker, toolsOf } from '../mcp/tools.js';
import type { MemorySlot } from './session.js';

export const TOOL_PREFIX = 'gcc_';

const PI = toolSpeaker('pi', TOOL_PREFIX);

type Details = { ok: boolean; code?: string } & ToolOutcome['facts'];

export function registerMemoryTools(
  pi: ExtensionAPI,
  slot: MemorySlot,
  defaults: () => { contextBudget: number },
): void {
  for (const t of toolsOf(PI)) {
    const tool: ToolDefinition = {
      name: t.name,
      label: `Memory ${t.op.name}`,
      description: t.description,
      parameters: t.inputSchema as ToolDefinition['parameters'],
      executionMode: 'sequential',
      async execute(_id, params): Promise<AgentToolResult<Details>> {
        const out = await callTool(t.op, params, PI, {
          session: slot.session,
          budget: defaults().contextBudget,
          memory: async () => {
            if (slot.memory) return slot.memory;
            const code = (slot.problem?.code ?? 'E_NOT_INITIALIZED') as ErrorCode;
            throw gccError(code, slot.describeProblem() || 'GCC memory is not open in this session.');
          },
        });
        const details: Details = out.code ? { ok: false, code: out.code } : { ok: true, ...out.facts };
        return { content: [{ type: 'text', text: out.text }], details, ...(out.code ? { isError: true } : {}) };
      },
    };
    pi.registerTool(tool);
  }
}
