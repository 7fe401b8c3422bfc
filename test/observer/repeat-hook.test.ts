/**
 * The repeat guard on the hook path: `gctx hook` (Claude Code and Codex, a real process) answers a
 * PreToolUse that retries an abandoned approach with context naming it and its reason — never a
 * deny — from the snapshot the last writer left, reading no log; an ordinary call gets nothing. The
 * shared observer does the same for a host holding the memory open (the Pi extension, the daemon).
 */
import { describe, expect, it } from 'vitest';
import { Memory } from '../../src/engine/memory.js';
import { handleHook } from '../../src/observer/handle.js';
import type { HookMemory } from '../../src/observer/memory-port.js';
import { tempProject } from '../adapters/mcp/client.js';
import { runHook } from '../adapters/hook/run.js';

const REASON = "PgBouncer transaction pooling rejects pgroll's search_path option";

async function project(): Promise<string> {
  const dir = tempProject('gcc-repeat-');
  const m = await Memory.open(dir, { create: true });
  await m.execute({ type: 'branch', name: 'try-pgroll', purpose: 'Use pgroll for zero-downtime migrations' });
  await m.execute({ type: 'abandon', branch: 'try-pgroll', reason: REASON });
  m.close();
  return dir;
}

const pre = (dir: string, command: string) =>
  JSON.stringify({
    hook_event_name: 'PreToolUse',
    session_id: 's-1',
    cwd: dir,
    tool_name: 'Bash',
    tool_input: { command },
  });

describe('repeat guard on PreToolUse', () => {
  it('a failed approach recorded on a memory whose snapshot is large is seen by the next hook', async () => {
    const dir = tempProject('gcc-repeat-big-');
    const m = await Memory.open(dir, { create: true });
    // Closed branches grow the snapshot past what a closing process rewrites for a few events.
    for (let i = 0; i < 600; i++) {
      await m.execute({
        type: 'branch',
        name: `spike-${i}`,
        purpose: `Spike number ${i} on the parser's error recovery`,
      });
      await m.execute({ type: 'merge', branch: `spike-${i}`, synthesis: `spike ${i} kept` });
    }
    m.close();
    const cli = await Memory.open(dir);
    await cli.execute({ type: 'branch', name: 'try-pgroll', purpose: 'Use pgroll for zero-downtime migrations' });
    await cli.execute({ type: 'abandon', branch: 'try-pgroll', reason: REASON });
    cli.close();
    const r = runHook(['--agent', 'claude-code'], pre(dir, 'npm install pgroll && npx pgroll start'), dir);
    const out = JSON.parse(r.stdout) as { hookSpecificOutput: { additionalContext?: string } };
    expect(out.hookSpecificOutput.additionalContext).toContain(`try-pgroll was abandoned: ${REASON}`);
  });

  it(
    'gctx hook answers a retry with context naming the approach and its reason, and an ' + 'ordinary call with nothing',
    async () => {
      const dir = await project();
      for (const agent of ['claude-code', 'codex']) {
        const r = runHook(['--agent', agent], pre(dir, 'npm install pgroll && npx pgroll start'), dir);
        expect(r.status).toBe(0);
        const out = JSON.parse(r.stdout) as {
          hookSpecificOutput: { hookEventName: string; additionalContext?: string; permissionDecision?: string };
        };
        expect(out.hookSpecificOutput.permissionDecision).toBeUndefined();
        expect(out.hookSpecificOutput.additionalContext).toContain(`try-pgroll was abandoned: ${REASON}`);
        const plain = runHook(['--agent', agent], pre(dir, 'npm test'), dir);
        expect(plain.stdout).toBe('');
      }
    },
  );

  it('the shared observer uses the folded state a host holds open', async () => {
    const dir = await project();
    const m = await Memory.open(dir);
    const hook: HookMemory = Object.assign(Object.create(m) as Memory, { approaches: undefined });
    const d = await handleHook(hook, {
      host: 'pi',
      session: 's',
      event: 'pre-tool',
      tool: 'Bash',
      input: { command: 'pnpm add pgroll' },
    });
    expect(d.kind).toBe('context');
    expect(d.kind === 'context' && d.text).toContain(`try-pgroll was abandoned: ${REASON}`);
    expect(
      await handleHook(hook, {
        host: 'pi',
        session: 's',
        event: 'pre-tool',
        tool: 'Bash',
        input: { command: 'git status' },
      }),
    ).toEqual({ kind: 'none' });
    m.close();
  });
});
