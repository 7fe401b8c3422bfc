import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Memory } from '../../../src/engine/memory.js';
import type { GccEvent } from '../../../src/events/types.js';
import { gctx } from '../../support/cli.js';
import { lifecycle, localEvents, readEvents } from '../../support/events.js';
import { tempProject } from '../mcp/client.js';
import { fixture, MAIN_JS, runHook } from './run.js';
import { initialized as project } from '../../support/project.js';

const SESSION = '3f1c9a52-7be0-4d3e-9b8a-1c2d3e4f5a6b';
const CC = ['--agent', 'claude-code'];

const events = (dir: string): Promise<readonly GccEvent[]> => readEvents(dir);

function send(name: string, dir: string, args = CC) {
  const r = runHook(args, fixture(name, dir), dir);
  expect(r.status).toBe(0);
  return r;
}

interface ClaudeAnswer {
  hookSpecificOutput: {
    hookEventName: string;
    permissionDecision?: string;
    permissionDecisionReason?: string;
    additionalContext?: string;
  };
}

describe('gctx hook --agent claude-code', () => {
  it('SessionStart: records the session and answers with the briefing as additionalContext', async () => {
    const dir = await project();
    const r = send('session-start', dir);
    const out = JSON.parse(r.stdout) as ClaudeAnswer;
    expect(out.hookSpecificOutput.hookEventName).toBe('SessionStart');
    expect(out.hookSpecificOutput.additionalContext).toContain('<gcc-memory');
    expect(out.hookSpecificOutput.additionalContext).toContain('Memory branch: main');
    const started = (await events(dir)).filter((e) => e.type === 'session.started');
    expect(started.map((e) => e.data)).toEqual([{ session: SESSION, host: 'claude-code', reason: 'startup' }]);
  });

  it('SessionStart: the briefing names approaches that were abandoned, and why', async () => {
    const dir = await project();
    const m = await Memory.open(dir);
    await m.execute({ type: 'branch', name: 'try-cache', purpose: 'cache parsed files' });
    await m.execute({ type: 'abandon', branch: 'try-cache', reason: 'stale reads after edits' });
    m.close();
    const out = JSON.parse(send('session-start', dir).stdout) as ClaudeAnswer;
    expect(out.hookSpecificOutput.additionalContext).toMatch(
      /Failed approaches[^\n]*\n {2}- try-cache \(\d{4}-\d\d-\d\d\): cache parsed files — dropped: stale reads after edits\n/,
    );
  });

  it('PreToolUse on an ordinary command: no decision, nothing logged', async () => {
    const dir = await project();
    const before = (await events(dir)).length;
    for (const name of ['pre-tool-use-bash', 'pre-tool-use-edit-src']) {
      const r = send(name, dir);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe('');
    }
    expect((await events(dir)).length).toBe(before);
  });

  it('PreToolUse writing into .GCC/ (Write or shell): denied with a reason, and the refusal is logged', async () => {
    const dir = await project();
    for (const name of ['pre-tool-use-write-gcc', 'pre-tool-use-bash-gcc']) {
      const out = JSON.parse(send(name, dir).stdout) as ClaudeAnswer;
      expect(out.hookSpecificOutput).toMatchObject({ hookEventName: 'PreToolUse', permissionDecision: 'deny' });
      expect(out.hookSpecificOutput.permissionDecisionReason).toContain('.GCC/');
    }
    // The refusal is written after the answer; the process waits for it before exiting.
    const blocked = (await events(dir)).filter((e) => e.type === 'tool.recorded');
    expect(blocked).toHaveLength(2);
    for (const e of blocked) expect((e.data as { result: string }).result).toMatch(/^blocked: /);
    expect(readFileSync(join(dir, '.GCC/log.md'), 'utf8')).not.toContain('forged entry');
    // What the refusal looks like in the log view.
    expect(readFileSync(join(dir, '.GCC/log.md'), 'utf8')).toMatch(/blocked: /);
  });

  // main.md's header invites ticking, adding or rewording objectives and writing notes, and gctx
  // adopts those edits as events: the guard refused them, saying they would corrupt the memory.
  it('PreToolUse Edit of .GCC/main.md: allowed, and the edit, once made, is adopted', async () => {
    const dir = await project();
    const r = send('pre-tool-use-edit-main', dir);
    expect(r.stdout).toBe('');
    expect((await events(dir)).filter((e) => e.type === 'tool.recorded')).toEqual([]);
    // The edit Claude Code then makes.
    const main = join(dir, '.GCC/main.md');
    writeFileSync(
      main,
      readFileSync(main, 'utf8').replace('## Objectives\n', '## Objectives\n- [ ] Ship the parser\n'),
    );
    expect(gctx(dir, ['status']).stdout).toMatch(/1\. Ship the parser/);
    expect((await events(dir)).some((e) => e.type === 'objective.added')).toBe(true);
    expect(gctx(dir, ['verify']).code).toBe(0);
  });

  it('PostToolUse Edit and Write: one log entry each, with line counts from the result', async () => {
    const dir = await project();
    expect(send('post-tool-use-edit', dir).stdout).toBe('');
    expect(send('post-tool-use-write-create', dir).stdout).toBe('');
    const tools = (await events(dir))
      .filter((e) => e.type === 'tool.recorded')
      .map((e) => e.data as { tool: string; files: unknown[]; host: string; input: string });
    expect(tools.map((t) => t.tool)).toEqual(['Edit', 'Write']);
    // The hunk rewrites the signature line unchanged: a real diff counts 2 added, 1 removed.
    expect(tools[0]!.files).toEqual([{ path: 'src/parser.ts', added: 2, removed: 1 }]);
    expect(tools[1]!.files).toEqual([{ path: 'src/build.ts', added: 3, removed: 0 }]);
    expect(tools.every((t) => t.host === 'claude-code')).toBe(true);
    // The whole original file is not copied into the log.
    expect(JSON.stringify(tools)).not.toContain("import { tokenize } from './tokenize'");
  });

  it('PostToolUse Bash: logs stdout with secrets redacted', async () => {
    const dir = await project();
    send('post-tool-use-bash-secret', dir);
    const e = (await events(dir)).find((x) => x.type === 'tool.recorded')!;
    const data = e.data as { tool: string; input: string; result: string };
    expect(data.tool).toBe('Bash');
    expect(data.input).toBe('env | grep KEY');
    expect(data.result).not.toContain('AKIAIOSFODNN7EXAMPLE');
    expect(data.result).not.toContain('ghp_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ');
  });

  it('PostToolUseFailure: logged as an error', async () => {
    const dir = await project();
    send('post-tool-use-failure', dir);
    const e = (await events(dir)).find((x) => x.type === 'tool.recorded')!;
    expect(e.data).toMatchObject({
      tool: 'Bash',
      isError: true,
      result: 'Command failed with exit code 1: 3 lint errors',
    });
  });

  it("the memory's own MCP tools are not logged twice", async () => {
    const dir = await project();
    const r = send('post-tool-use-mcp-gcc', dir);
    expect(r.stdout).toBe('');
    expect((await events(dir)).filter((e) => e.type === 'tool.recorded')).toEqual([]);
  });

  it('suggests a commit through additionalContext when the edit threshold is crossed', async () => {
    const dir = await project();
    const m = await Memory.open(dir);
    await m.execute({ type: 'config', key: 'commit_after_edits', value: 2 });
    m.close();
    expect(send('post-tool-use-edit', dir).stdout).toBe('');
    const out = JSON.parse(send('post-tool-use-write-create', dir).stdout) as ClaudeAnswer;
    expect(out.hookSpecificOutput.hookEventName).toBe('PostToolUse');
    expect(out.hookSpecificOutput.additionalContext).toMatch(/2 edits.*since the last memory commit/);
  });

  it('logs on the branch the MCP server chose for the same Claude session', async () => {
    const dir = await project();
    const m = await Memory.open(dir);
    // What `gctx mcp` does with CLAUDE_CODE_SESSION_ID set to this session.
    await m.execute({ type: 'branch', name: 'try-ast', purpose: 'build an AST' }, { session: SESSION });
    m.close();
    send('post-tool-use-edit', dir);
    const e = (await events(dir)).find((x) => x.type === 'tool.recorded')!;
    expect(e.branch).toBe('try-ast');
  });

  it('compaction: PreCompact is quiet; SessionStart(compact) records the compaction and hands the briefing back', async () => {
    const dir = await project();
    send('session-start', dir);
    // Claude Code takes no context from PreCompact; nothing is recorded until the compaction is done.
    expect(send('pre-compact', dir).stdout).toBe('');
    expect((await events(dir)).filter((e) => e.type === 'session.compacted')).toEqual([]);
    const out = JSON.parse(send('session-start-compact', dir).stdout) as ClaudeAnswer;
    expect(out.hookSpecificOutput.additionalContext).toContain('<gcc-memory');
    const session = (await events(dir)).filter((e) => e.type.startsWith('session.')).map((e) => e.type);
    // A compaction continues the session: it neither ends it nor starts another.
    expect(session).toEqual(['session.started', 'session.compacted']);
  });

  it('a whole session — start, PreCompact, start after compaction, end — is recorded once each, in the local log only', async () => {
    const dir = await project();
    for (const name of ['session-start', 'pre-compact', 'session-start-compact', 'session-end']) send(name, dir);
    const local = localEvents(dir);
    expect(lifecycle(local)).toEqual([
      'session.started:claude-code:startup',
      'session.compacted:claude-code:',
      'session.ended:claude-code:prompt_input_exit',
    ]);
    for (const e of local.filter((x) => x.type.startsWith('session.')))
      expect(e.data).toMatchObject({ session: SESSION });
    // Lifecycles are this clone's own: never in a segment that travels through git.
    const shared = readdirSync(join(dir, '.GCC/events'), { recursive: true, encoding: 'utf8' }).filter((f) =>
      f.endsWith('.md'),
    );
    for (const f of shared) expect(readFileSync(join(dir, '.GCC/events', f), 'utf8')).not.toContain('"type":"session.');
    // Nor in log.md, which is the same in every clone, nor in log reads (docs/agents.md).
    expect(readFileSync(join(dir, '.GCC/log.md'), 'utf8')).not.toMatch(/Session|compacted/);
    const log = JSON.parse(gctx(dir, ['context', '--log', '--json']).stdout) as {
      data: { entries: { text: string }[] };
    };
    expect(log.data.entries.map((e) => e.text)).not.toContainEqual(expect.stringMatching(/Session|compacted/));
  });

  it('UserPromptSubmit records the prompt (no answer); Stop: nothing; SessionEnd records the end', async () => {
    const dir = await project();
    const before = (await events(dir)).length;
    expect(send('user-prompt-submit', dir).stdout).toBe('');
    const prompt = (await events(dir)).at(-1)!;
    expect(prompt.type).toBe('prompt.recorded');
    expect(prompt.data).toEqual({
      session: SESSION,
      host: 'claude-code',
      text: 'Make the parser handle nested arrays',
    });
    expect(send('stop', dir).stdout).toBe('');
    expect((await events(dir)).length).toBe(before + 1);
    // Nothing was started, so there is nothing to end.
    expect(send('session-end', dir).stdout).toBe('');
    expect((await events(dir)).length).toBe(before + 1);
    send('session-start', dir);
    expect(send('session-end', dir).stdout).toBe('');
    const last = (await events(dir)).at(-1)!;
    expect(last.type).toBe('session.ended');
    expect(last.data).toEqual({ session: SESSION, host: 'claude-code', reason: 'prompt_input_exit' });
  });

  it('malformed input: exit 0, no decision, one line on stderr', async () => {
    const dir = await project();
    const bad = [
      '',
      'not json',
      '[1,2]',
      '{"session_id":"x"}',
      '{"hook_event_name":"PreToolUse","session_id":"x"}',
      '{"hook_event_name":"PostToolUse","session_id":"x","tool_name":"Bash","tool_input":"rm -rf /"}',
    ];
    for (const input of bad) {
      const r = runHook(CC, input, dir);
      expect(r.status, input).toBe(0);
      expect(r.stdout, input).toBe('');
      expect(r.stderr.trim().split('\n'), input).toHaveLength(1);
      expect(r.stderr).toContain('gctx hook: ignored malformed claude-code input');
    }
  });

  it('an unknown --agent is reported, never blocking', async () => {
    const dir = await project();
    const r = runHook(['--agent', 'emacs'], fixture('pre-tool-use-write-gcc', dir), dir);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('unknown --agent "emacs": it is one of claude-code, codex, generic');
    // The values docs/operations.md names: generic is the normalized envelope, as when left out.
    const generic = runHook(
      ['--agent', 'generic'],
      JSON.stringify({
        host: 'h',
        session: 's',
        event: 'pre-tool',
        cwd: dir,
        tool: 'Write',
        input: { file_path: '.GCC/log.md', content: 'x' },
      }),
      dir,
    );
    expect(generic.stderr).toBe('');
    expect(JSON.parse(generic.stdout)).toMatchObject({ kind: 'block' });
  });

  it('in a folder without memory: nothing is created, writes into .GCC/ are still refused', async () => {
    const dir = tempProject('gcc-hook-bare-');
    const post = send('post-tool-use-edit', dir);
    expect(post.stdout).toBe('');
    expect(post.stderr).toBe('');
    expect(send('session-start', dir).stdout).toBe('');
    expect(existsSync(join(dir, '.GCC'))).toBe(false);
    const out = JSON.parse(send('pre-tool-use-write-gcc', dir).stdout) as ClaudeAnswer;
    expect(out.hookSpecificOutput.permissionDecision).toBe('deny');
  });

  it('answers the same through main.js as through the bin', async () => {
    const dir = await project();
    const viaBin = runHook(CC, fixture('pre-tool-use-write-gcc', dir), dir);
    const viaMain = runHook(CC, fixture('pre-tool-use-write-gcc', dir), dir, {}, MAIN_JS);
    expect(viaMain.status).toBe(0);
    expect(viaMain.stdout).toBe(viaBin.stdout);
    expect(JSON.parse(viaMain.stdout)).toMatchObject({ hookSpecificOutput: { permissionDecision: 'deny' } });
    // Options the fast path does not take go through main.js too.
    const help = runHook([...CC, '--help'], '', dir);
    expect(help.stdout).toContain('gctx hook');
  });

  it('gives up on its log entry, not on the agent, when a live process holds the lock', async () => {
    const dir = await project();
    // This test process is alive, so the engine must not break its lock.
    writeFileSync(
      join(dir, '.GCC/.local/lock'),
      JSON.stringify({ pid: process.pid, host: hostname(), start: null, at: new Date().toISOString() }),
    );
    const r = send('post-tool-use-edit', dir);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^gctx hook: E_LOCKED: /);
    rmSync(join(dir, '.GCC/.local/lock'));
    expect((await events(dir)).filter((e) => e.type === 'tool.recorded')).toEqual([]);
  });
});
