import { describe, expect, it } from 'vitest';
import { runHook } from './run.js';
import { initialized as project } from '../../support/project.js';

/**
 * The write guard as hosts reach it: real Claude Code and Codex PreToolUse payloads through the
 * `gctx hook` process, for Codex patches in every form and for MCP tools that write files.
 */

const pre = (dir: string, tool_name: string, tool_input: Record<string, unknown>) =>
  JSON.stringify({
    session_id: 's-guard',
    transcript_path: null,
    cwd: dir,
    hook_event_name: 'PreToolUse',
    tool_name,
    tool_use_id: 't1',
    tool_input,
  });

function decision(
  dir: string,
  agent: 'codex' | 'claude-code',
  tool: string,
  input: Record<string, unknown>,
): { denied: boolean; reason: string } {
  const r = runHook(['--agent', agent], pre(dir, tool, input), dir);
  expect(r.status).toBe(0);
  if (!r.stdout) return { denied: false, reason: '' };
  const out = JSON.parse(r.stdout) as {
    hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string };
  };
  return {
    denied: out.hookSpecificOutput.permissionDecision === 'deny',
    reason: out.hookSpecificOutput.permissionDecisionReason,
  };
}

const BODY = (header: string) => `*** Begin Patch\n${header}\n@@\n-a\n+b\n*** End Patch`;

describe('Codex apply_patch, in every form', () => {
  it('refuses a patch naming .GCC/ as a tool call, as shell argv, in a heredoc, through bash -lc and exec_command', async () => {
    const dir = await project();
    const into = BODY('*** Update File: .GCC/log.md');
    const cases: [string, Record<string, unknown>][] = [
      ['apply_patch', { command: into }],
      ['apply_patch', { input: BODY('   *** Delete File: .GCC/log.md') }],
      ['apply_patch', { command: BODY('*** Update File: notes.md\n*** Move to: .GCC/notes.md') }],
      ['shell', { command: ['apply_patch', into] }],
      ['shell', { command: ['apply_patch', `<<'EOF'\n${into}\nEOF\n`] }],
      ['shell', { command: ['bash', '-lc', `apply_patch <<'EOF'\n${into}\nEOF`] }],
      ['shell', { command: ['bash', '-lc', `cd .GCC && apply_patch <<'EOF'\n${BODY('*** Add File: x.md')}\nEOF`] }],
      ['exec_command', { cmd: `applypatch <<'EOF'\n${into}\nEOF` }],
      // main.md may be edited by a file tool; through the shell it is refused like every other file.
      ['shell', { command: ['bash', '-lc', `apply_patch <<'EOF'\n${BODY('*** Update File: .GCC/main.md')}\nEOF`] }],
    ];
    for (const [tool, input] of cases)
      expect(decision(dir, 'codex', tool, input), `${tool} ${JSON.stringify(input)}`).toMatchObject({ denied: true });
  });

  it('lets a patch elsewhere through, in the same forms', async () => {
    const dir = await project();
    const ok = BODY('*** Update File: src/a.ts');
    for (const [tool, input] of [
      ['apply_patch', { command: ok }],
      ['shell', { command: ['apply_patch', ok] }],
      ['shell', { command: ['bash', '-lc', `apply_patch <<'EOF'\n${ok}\nEOF`] }],
    ] as [string, Record<string, unknown>][]) {
      expect(decision(dir, 'codex', tool, input).denied, `${tool} ${JSON.stringify(input)}`).toBe(false);
    }
  });
});

describe('MCP tools that write files', () => {
  it('refuses known write tools aimed at .GCC/, whatever the server is called', async () => {
    const dir = await project();
    const cases: [string, Record<string, unknown>][] = [
      ['mcp__filesystem__write_file', { path: '.GCC/main.md', content: 'x' }],
      ['mcp__filesystem__edit_file', { path: `${dir}/.GCC/main.md`, edits: [] }],
      ['mcp__filesystem__create_directory', { path: '.GCC/new' }],
      ['mcp__fs__move_file', { source: '.GCC/log.md', destination: 'log.md' }],
      ['mcp__desktop-commander__edit_block', { file_path: '.GCC/main.md', old_string: 'a', new_string: 'b' }],
      ['mcp__desktop-commander__start_process', { command: 'rm -rf .GCC', timeout_ms: 1000 }],
      ['mcp__serena__create_text_file', { relative_path: '.GCC/notes.md', content: 'x' }],
      ['mcp__serena__execute_shell_command', { command: 'rm log.md', cwd: '.GCC' }],
      ['mcp__jetbrains__create_new_file', { pathInProject: '.GCC/x.md', text: 'x' }],
      ['mcp__jetbrains__apply_patch', { patch: BODY('*** Update File: .GCC/main.md') }],
    ];
    for (const [tool, input] of cases) {
      for (const agent of ['claude-code', 'codex'] as const) {
        const d = decision(dir, agent, tool, input);
        expect(d.denied, `${agent} ${tool} ${JSON.stringify(input)}`).toBe(true);
        expect(d.reason).toContain('.GCC');
      }
    }
  });

  it('lets reads, writes elsewhere and the memory’s own tools through', async () => {
    const dir = await project();
    const cases: [string, Record<string, unknown>][] = [
      ['mcp__filesystem__read_text_file', { path: '.GCC/main.md' }],
      ['mcp__filesystem__write_file', { path: 'src/a.ts', content: 'x' }],
      ['mcp__desktop-commander__start_process', { command: 'cat .GCC/main.md', timeout_ms: 1000 }],
      ['mcp__github__create_issue', { title: '.GCC/main.md' }],
      ['mcp__gcc__commit', { contribution: 'x' }],
      ['mcp__gctx__commit', { contribution: 'x' }],
    ];
    for (const [tool, input] of cases) expect(decision(dir, 'claude-code', tool, input).denied, tool).toBe(false);
  });
});

describe('git work-tree commands', () => {
  it('are let through (the store restores what they remove), unless a pathspec names .GCC/', async () => {
    const dir = await project();
    for (const command of [
      'git stash -u',
      'git reset --hard',
      'git checkout .',
      'git clean -fdx',
      "git checkout -- . ':!.GCC'",
    ]) {
      expect(decision(dir, 'claude-code', 'Bash', { command }).denied, command).toBe(false);
    }
    for (const command of ['git rm -r .GCC', 'git checkout HEAD -- .GCC/main.md', 'git clean -fd .GCC']) {
      const d = decision(dir, 'claude-code', 'Bash', { command });
      expect(d.denied, command).toBe(true);
      expect(d.reason).toContain('Use the memory tools');
    }
  });
});
