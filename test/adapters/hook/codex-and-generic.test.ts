import { describe, expect, it } from 'vitest';
import type { GccEvent } from '../../../src/events/types.js';
import { readEvents } from '../../support/events.js';
import { runHook } from './run.js';
import { initialized as project } from '../../support/project.js';

async function tools(dir: string): Promise<GccEvent[]> {
  return (await readEvents(dir)).filter((e) => e.type === 'tool.recorded');
}

const codex = (dir: string, rest: Record<string, unknown>) =>
  JSON.stringify({
    session_id: 'codex-thread-1',
    transcript_path: null,
    cwd: dir,
    model: 'gpt-5-codex',
    turn_id: 't1',
    ...rest,
  });

const PATCH = [
  '*** Begin Patch',
  '*** Add File: notes/todo.md',
  '+first',
  '+second',
  '*** Update File: src/a.ts',
  '@@ function a',
  ' const x = 1;',
  '-return x;',
  '+return x + 1;',
  '*** End Patch',
  '',
].join('\n');

describe('gctx hook --agent codex', () => {
  it('refuses an apply_patch that touches .GCC/ in any of its files', async () => {
    const dir = await project();
    const patch = PATCH.replace(
      '*** End Patch',
      '*** Update File: .GCC/log.md\n@@\n-# Log\n+# Mine now\n*** End Patch',
    );
    const r = runHook(
      ['--agent', 'codex'],
      codex(dir, {
        hook_event_name: 'PreToolUse',
        tool_name: 'apply_patch',
        tool_use_id: 'c1',
        tool_input: { command: patch },
      }),
      dir,
    );
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout) as {
      hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string };
    };
    expect(out.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(out.hookSpecificOutput.permissionDecisionReason).toContain('.GCC/log.md');
  });

  it('lets a patch update .GCC/main.md (adopted as an edit), never delete or move it', async () => {
    const dir = await project();
    const pre = (id: string, body: string) =>
      runHook(
        ['--agent', 'codex'],
        codex(dir, {
          hook_event_name: 'PreToolUse',
          tool_name: 'apply_patch',
          tool_use_id: id,
          tool_input: { command: `*** Begin Patch\n${body}\n*** End Patch\n` },
        }),
        dir,
      );
    expect(pre('m1', '*** Update File: .GCC/main.md\n@@\n ## Objectives\n+- [ ] Ship the parser').stdout).toBe('');
    for (const [id, body] of [
      ['m2', '*** Delete File: .GCC/main.md'],
      ['m3', '*** Update File: .GCC/main.md\n*** Move to: notes/roadmap.md\n@@\n-# Project Roadmap\n+# Roadmap'],
      ['m4', '*** Update File: .GCC/branches/x/.GCC/main.md\n@@\n-a\n+b'],
    ]) {
      const out = JSON.parse(pre(id!, body!).stdout) as { hookSpecificOutput: { permissionDecision: string } };
      expect(out.hookSpecificOutput.permissionDecision, body).toBe('deny');
    }
  });

  it('lets an ordinary patch through and logs it once with per-file line counts', async () => {
    const dir = await project();
    const pre = runHook(
      ['--agent', 'codex'],
      codex(dir, {
        hook_event_name: 'PreToolUse',
        tool_name: 'apply_patch',
        tool_use_id: 'c2',
        tool_input: { command: PATCH },
      }),
      dir,
    );
    expect(pre.stdout).toBe('');
    runHook(
      ['--agent', 'codex'],
      codex(dir, {
        hook_event_name: 'PostToolUse',
        tool_name: 'apply_patch',
        tool_use_id: 'c2',
        tool_input: { command: PATCH },
        tool_response: 'Success. Updated the following files:\nA notes/todo.md\nM src/a.ts\n',
      }),
      dir,
    );
    const logged = await tools(dir);
    expect(logged).toHaveLength(1);
    expect(logged[0]!.data).toMatchObject({
      tool: 'apply_patch',
      host: 'codex',
      files: [
        { path: 'notes/todo.md', added: 2, removed: 0 },
        { path: 'src/a.ts', added: 1, removed: 1 },
      ],
    });
  });

  it('reads the shell command whether it comes as a string or as argv', async () => {
    const dir = await project();
    const argv = runHook(
      ['--agent', 'codex'],
      codex(dir, {
        hook_event_name: 'PreToolUse',
        tool_name: 'Bash',
        tool_use_id: 'c3',
        tool_input: { command: ['bash', '-lc', 'echo hi > .GCC/log.md'] },
      }),
      dir,
    );
    expect(JSON.parse(argv.stdout)).toMatchObject({ hookSpecificOutput: { permissionDecision: 'deny' } });
    runHook(
      ['--agent', 'codex'],
      codex(dir, {
        hook_event_name: 'PostToolUse',
        tool_name: 'Bash',
        tool_use_id: 'c4',
        tool_input: { command: 'ls -la' },
        tool_response: 'total 0',
      }),
      dir,
    );
    expect((await tools(dir)).at(-1)!.data).toMatchObject({ input: 'ls -la', result: 'total 0' });
  });
});

describe('gctx hook (normalized envelope)', () => {
  it('answers a block as the decision itself', async () => {
    const dir = await project();
    const env = {
      host: 'my-agent',
      session: 's1',
      event: 'pre-tool',
      cwd: dir,
      tool: 'Write',
      input: { file_path: '.GCC/commit.md', content: 'x' },
    };
    const r = runHook([], JSON.stringify(env), dir);
    expect(r.status).toBe(0);
    const d = JSON.parse(r.stdout) as { kind: string; reason: string };
    expect(d.kind).toBe('block');
    expect(d.reason).toContain('.GCC/');
  });

  it('prints nothing for "no decision" and logs the call', async () => {
    const dir = await project();
    const env = {
      host: 'my-agent',
      session: 's1',
      event: 'post-tool',
      cwd: dir,
      tool: 'Bash',
      hostTool: 'shell',
      input: { command: 'make' },
      result: 'ok',
    };
    const r = runHook([], JSON.stringify(env), dir);
    expect(r.stdout).toBe('');
    expect((await tools(dir))[0]!.data).toMatchObject({ tool: 'shell', host: 'my-agent', input: 'make', result: 'ok' });
  });

  it('rejects a malformed envelope with one stderr line and exit 0', async () => {
    const dir = await project();
    for (const bad of [
      '{}',
      '{"host":"h","session":"s","event":"explode"}',
      '{"host":"h","session":"s","event":"pre-tool","tool":"Hammer"}',
      '{"host":"h","session":"s","event":"post-tool","fileStates":[{"path":1}]}',
    ]) {
      const r = runHook([], bad, dir);
      expect(r.status).toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});
