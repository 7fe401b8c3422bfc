/**
 * POST /hooks/<agent> answers exactly what `gctx hook --agent <agent>` prints for the same
 * payload: a session of Claude Code events (and a few of Codex's) is sent through the process
 * hook into one project and through the daemon into another, and the answers are compared
 * byte for byte, then the two memories' logs event by event (each project's folder written
 * as <dir>, since the payloads name it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Memory } from '../../../src/engine/memory.js';
import { gctx } from '../../support/cli.js';
import { cleanup, tempProject } from '../../support/tmp.js';
import { fixture, runHook } from '../hook/run.js';
import { postHook, type Served, startServe } from './served.js';

/** A Claude Code session: every event gctx installs a hook for, blocks and a commit suggestion included. */
const SESSION = [
  'session-start',
  'pre-tool-use-bash',
  'pre-tool-use-edit-src',
  'pre-tool-use-write-gcc',
  'pre-tool-use-bash-gcc',
  'post-tool-use-edit',
  'post-tool-use-write-create',
  'post-tool-use-bash-secret',
  'post-tool-use-failure',
  'post-tool-use-mcp-gcc',
  'user-prompt-submit',
  'stop',
  'pre-compact',
  'session-start-compact',
  'session-end',
];

const PATCH = [
  '*** Begin Patch',
  '*** Update File: .GCC/main.md',
  '@@',
  '-# Project Roadmap',
  '+# Mine now',
  '*** End Patch',
  '',
].join('\n');
const codex = (dir: string, rest: Record<string, unknown>) =>
  JSON.stringify({
    session_id: 'codex-thread-1',
    transcript_path: null,
    cwd: dir,
    model: 'gpt-5-codex',
    turn_id: 't1',
    ...rest,
  });
const CODEX = [
  (dir: string) =>
    codex(dir, {
      hook_event_name: 'PreToolUse',
      tool_name: 'apply_patch',
      tool_use_id: 'c1',
      tool_input: { command: PATCH },
    }),
  (dir: string) =>
    codex(dir, {
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_use_id: 'c2',
      tool_input: { command: ['npm', 'test'] },
      tool_response: 'ok: 12 tests',
    }),
];

async function project(prefix: string): Promise<string> {
  const dir = tempProject(prefix);
  (await Memory.open(dir, { create: true })).close();
  // Suggest a commit early, so the session's answers include one.
  expect(gctx(dir, ['config', 'set', 'commit_after_edits', '2']).code).toBe(0);
  return dir;
}

/** The log as data: every event's type, branch and payload, in order, the project folder written as <dir>. */
async function log(dir: string): Promise<string[]> {
  const m = await Memory.open(dir);
  try {
    const out: string[] = [];
    m.events().forEach((e) =>
      out.push(JSON.stringify({ type: e.type, branch: e.branch, data: e.data }).replaceAll(dir, '<dir>')),
    );
    return out;
  } finally {
    m.close();
  }
}

describe('POST /hooks/<agent> and gctx hook: one handler', () => {
  let viaProcess: string;
  let viaDaemon: string;
  let d: Served;

  beforeAll(async () => {
    viaProcess = await project('gcc-hook-proc-');
    viaDaemon = await project('gcc-hook-http-');
    d = await startServe(viaDaemon);
  });
  afterAll(async () => {
    await d?.stop();
    cleanup();
  });

  it('answers a Claude Code session byte for byte as the process hook does, and logs the same events', async () => {
    const answers: Array<{ event: string; process: string; http: string }> = [];
    for (const name of SESSION) {
      const p = runHook(['--agent', 'claude-code'], fixture(name, viaProcess), viaProcess);
      expect(p.status, name).toBe(0);
      const h = await postHook(d.state, 'claude-code', fixture(name, viaDaemon));
      expect(h.status, name).toBe(200);
      answers.push({
        event: name,
        process: p.stdout.replaceAll(viaProcess, '<dir>'),
        http: h.body.replaceAll(viaDaemon, '<dir>'),
      });
    }
    for (const a of answers) expect(a.http, a.event).toBe(a.process);
    // The session exercised every kind of answer: none, a refusal, context, a suggestion.
    const said = answers.map((a) => a.http);
    expect(said.filter((s) => s === '').length).toBeGreaterThan(3);
    expect(said.some((s) => s.includes('"permissionDecision":"deny"'))).toBe(true);
    expect(said.some((s) => s.includes('"hookEventName":"SessionStart","additionalContext"'))).toBe(true);
    expect(said.some((s) => s.includes('"hookEventName":"PostToolUse","additionalContext"'))).toBe(true);
    expect(said.every((s) => s === '' || s.endsWith('}\n'))).toBe(true);

    const [a, b] = [await log(viaProcess), await log(viaDaemon)];
    expect(b).toEqual(a);
    expect(b.filter((e) => e.includes('"type":"tool.recorded"')).length).toBeGreaterThanOrEqual(6);
  });

  it('answers Codex payloads at /hooks/codex as `gctx hook --agent codex` does', async () => {
    for (const payload of CODEX) {
      const p = runHook(['--agent', 'codex'], payload(viaProcess), viaProcess);
      const h = await postHook(d.state, 'codex', payload(viaDaemon));
      expect(h.status).toBe(200);
      expect(h.body.replaceAll(viaDaemon, '<dir>')).toBe(p.stdout.replaceAll(viaProcess, '<dir>'));
    }
    expect(await log(viaDaemon)).toEqual(await log(viaProcess));
  });

  it('answers malformed input with no decision, as the process does, and says why in its log', async () => {
    for (const body of ['not json', '{}', '[]', JSON.stringify({ hook_event_name: 'PreToolUse', session_id: 's' })]) {
      const p = runHook(['--agent', 'claude-code'], body, viaProcess);
      const h = await postHook(d.state, 'claude-code', body);
      expect(h.status, body).toBe(200);
      expect(h.body, body).toBe(p.stdout);
      expect(h.body).toBe('');
    }
    expect(d.stderr()).toContain('ignored malformed claude-code input');
    expect((await postHook(d.state, 'emacs', '{}')).status).toBe(404);
  });
});
