import type { ExtensionAPI, ToolCallEventResult, ToolResultEventResult } from '@earendil-works/pi-coding-agent';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Checkpoint, HookEnvelope } from '../../observer/envelope.js';
import { gccWriteReason } from '../../observer/gcc-write-guard.js';
import { handleHook, recordCheckpoint } from '../../observer/handle.js';
import { canonicalCalls, memoryServers } from '../hook/host-tools.js';
import { textOf } from '../hook/transcript.js';
import type { MemorySlot } from './session.js';

/**
 * Channel 2: every tool call Pi is about to run (codemode's nested calls included, since they
 * pass through the same events) is translated into the canonical envelope and handed to the
 * shared hook logic; its decision is applied here. Block → `{ block, reason }`; guidance →
 * appended to the result of the call it concerns, with `structuredContent` passed through
 * untouched (replacing content alone would drop it and break codemode scripts).
 */

export const HOST = 'pi';

export function installHookBridge(pi: ExtensionAPI, slot: MemorySlot): void {
  /** The memory the hook logs into: none when it is not open or the hook is switched off. */
  const hooked = () => (slot.resolved && !slot.resolved.config.hook ? null : slot.memory);
  // Pi's tool_call cannot add context: the repeat guard's rides on the call's result.
  const repeats = new Map<string, string>();

  pi.on('tool_call', async (event, ctx): Promise<ToolCallEventResult | undefined> => {
    try {
      const resolved = slot.resolved;
      if (resolved && !resolved.config.hook) return undefined;
      const env = envelope(slot, ctx.cwd, 'pre-tool', event.toolName, event.input);
      const memory = slot.memory;
      if (!memory) {
        // No memory to log into, but a `.GCC/` on disk is still not for generic writes.
        const gccDir = resolved ? join(resolved.memoryRoot, '.GCC') : undefined;
        if (!gccDir || !existsSync(gccDir)) return undefined;
        const reason = gccWriteReason({
          tool: env.tool!,
          input: env.input!,
          cwd: ctx.cwd,
          gccDir,
          hostTool: env.hostTool,
        });
        return reason ? { block: true, reason } : undefined;
      }
      const decision = await handleHook(memory, env, hookOptions(slot, ctx.signal));
      if (decision.kind === 'block') return { block: true, reason: decision.reason };
      if (decision.kind === 'context') repeats.set(event.toolCallId, decision.text);
      return undefined;
    } catch {
      return undefined; // fail open: the call goes ahead
    }
  });

  // The user's words are memory: what they typed (not what an extension sent), recorded redacted.
  pi.on('input', async (event, ctx) => {
    try {
      const memory = hooked();
      if (!memory || event.source === 'extension') return undefined;
      await handleHook(
        memory,
        { host: HOST, session: slot.session, event: 'prompt', cwd: ctx.cwd, prompt: event.text },
        hookOptions(slot, ctx.signal),
      );
    } catch {
      // fail open
    }
    return undefined;
  });

  // Before Pi cuts the history: the user's last request and the agent's last words, kept.
  pi.on('session_before_compact', async (event) => {
    try {
      const memory = hooked();
      if (!memory) return undefined;
      const messages = [...event.preparation.messagesToSummarize, ...event.preparation.turnPrefixMessages];
      await recordCheckpoint(memory, {
        host: HOST,
        session: slot.session,
        event: 'compaction',
        checkpoint: checkpointOf(messages),
      });
    } catch {
      // fail open: the compaction goes ahead as Pi would run it
    }
    return undefined;
  });

  pi.on('tool_result', async (event, ctx): Promise<ToolResultEventResult | undefined> => {
    try {
      const memory = hooked();
      const repeat = repeats.get(event.toolCallId);
      repeats.delete(event.toolCallId);
      if (!memory) return undefined;
      const result = event.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
      const env = {
        ...envelope(slot, ctx.cwd, 'post-tool', event.toolName, event.input),
        result,
        isError: event.isError,
      };
      const decision = await handleHook(memory, env, hookOptions(slot, ctx.signal));
      const add = [repeat, decision.kind === 'guidance' ? decision.text : undefined].filter((t): t is string =>
        Boolean(t),
      );
      if (!add.length) return undefined;
      const patch: ToolResultEventResult = {
        content: [...event.content, ...add.map((text) => ({ type: 'text' as const, text: `\n${text}` }))],
      };
      if (event.structuredContent !== undefined) patch.structuredContent = event.structuredContent;
      return patch;
    } catch {
      return undefined;
    }
  });
}

/** The newest user message and the newest assistant text of what a compaction summarises. */
function checkpointOf(messages: readonly unknown[]): Checkpoint {
  const out: Checkpoint = {};
  for (let i = messages.length - 1; i >= 0 && (out.prompt === undefined || out.said === undefined); i--) {
    const m = messages[i] as { role?: unknown; content?: unknown } | null;
    const text = m && typeof m === 'object' ? textOf(m.content) : '';
    if (!text) continue;
    if (m!.role === 'user' && out.prompt === undefined) out.prompt = text;
    if (m!.role === 'assistant' && out.said === undefined) out.said = text;
  }
  return out;
}

/** A Pi tool call in the hooks' vocabulary (host-tools.ts): Pi's calls each touch one file at most. */
function envelope(slot: MemorySlot, cwd: string, event: 'pre-tool' | 'post-tool', name: string, input: unknown) {
  const { tool, input: canonical } = canonicalCalls(name, input, memoryServers())[0]!;
  return { host: HOST, session: slot.session, event, cwd, tool, hostTool: name, input: canonical } as HookEnvelope;
}

function hookOptions(slot: MemorySlot, signal?: AbortSignal): Parameters<typeof handleHook>[2] {
  const opts: NonNullable<Parameters<typeof handleHook>[2]> = {};
  const cfg = slot.resolved?.config;
  if (cfg) {
    opts.timeoutMs = cfg.hookTimeoutMs;
    opts.briefingBudget = cfg.briefingBudget;
  }
  if (signal) opts.signal = signal;
  return opts;
}
