/**
 * File paths are text too: a path naming a credential (`secrets/AKIA….txt`) is redacted like
 * every other field, whichever way it came: `--files` on the command line, MCP's
 * `commit.files`, a hook's file changes, or git's list of changed files. Real front ends,
 * real git; every file under .GCC/ that git may take is searched for the token.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Memory } from '../../src/engine/memory.js';
import { redactCommand } from '../../src/engine/redact-command.js';
import { REDACTED } from '../../src/observer/redact.js';
import { call, connect } from '../adapters/mcp/client.js';
import { runHook } from '../adapters/hook/run.js';
import { gctx } from '../support/cli.js';
import { readEvents } from '../support/events.js';
import { cleanup, tempProject } from '../support/tmp.js';

afterAll(cleanup);

/** An AWS access key id, built here so no scanner takes this file for a leak. */
const BODY = 'QWERTYUIOPASDFGH';
const KEY = `AKIA${BODY}`;
const PATH = `secrets/${KEY}.txt`;
const SHOWN = `secrets/${REDACTED}.txt`;

/** Every file under `.GCC/` but `.local/`, as text. */
function committable(dir: string): string {
  const gcc = join(dir, '.GCC');
  return (readdirSync(gcc, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
    .filter((d) => d.isFile() && !join(d.parentPath, d.name).startsWith(join(gcc, '.local')))
    .map((d) => readFileSync(join(d.parentPath, d.name), 'utf8'))
    .join('\n');
}

async function filesOf(dir: string, type: 'commit.recorded' | 'tool.recorded'): Promise<string[]> {
  return (await readEvents(dir))
    .filter((e) => e.type === type)
    .flatMap((e) => (e.data as { files: { path: string }[] }).files.map((f) => f.path));
}

describe('redactCommand: file paths', () => {
  it('redacts each path of a commit (names or records) and of a recorded tool call', () => {
    const commit = redactCommand({
      type: 'commit',
      contribution: 'c',
      files: [PATH, { path: `a/${KEY}`, added: 1, removed: 2 }] as never,
    });
    expect(commit).toMatchObject({ files: [SHOWN, { path: `a/${REDACTED}`, added: 1, removed: 2 }] });
    const tool = redactCommand({
      type: 'record-tool',
      tool: 'Write',
      input: 'i',
      result: 'r',
      isError: false,
      files: [{ path: PATH, added: 3, removed: 0 }],
    });
    expect(tool).toMatchObject({ files: [{ path: SHOWN, added: 3, removed: 0 }] });
    // A list of another shape is left as it came, for the decider to refuse.
    expect(redactCommand({ type: 'commit', contribution: 'c', files: [42] as never })).toMatchObject({ files: [42] });
    expect(redactCommand({ type: 'commit', contribution: 'c' })).not.toHaveProperty('files');
  });

  it("redacts a new branch's name; the decider then refuses it, so nothing is written", () => {
    expect(redactCommand({ type: 'branch', name: `fix/${KEY}`, purpose: 'p' })).toMatchObject({
      name: `fix/${REDACTED}`,
    });
    const dir = tempProject();
    expect(gctx(dir, ['init']).code).toBe(0);
    const r = gctx(dir, ['branch', `fix/${KEY}`, '--purpose', 'try it']);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).not.toContain(BODY);
    expect(committable(dir)).not.toContain(BODY);
  });

  it("a commit's text: a key split by colour codes or a zero-width space is redacted, a text without one kept byte for byte", async () => {
    const dir = tempProject();
    expect(gctx(dir, ['init']).code).toBe(0);
    const plain = 'fixed \u001b[31mred\u001b[0m output\u200b here';
    expect(gctx(dir, ['commit', plain]).code).toBe(0);
    expect(gctx(dir, ['commit', `rotated AKIA\u001b[m${BODY.slice(0, 6)}\u200b${BODY.slice(6)} today`]).code).toBe(0);
    const texts = (await readEvents(dir))
      .filter((e) => e.type === 'commit.recorded')
      .map((e) => JSON.stringify(e.data));
    expect(texts.join('\n')).toContain(JSON.stringify(plain).slice(1, -1));
    expect(texts.join('\n')).toContain(`rotated ${REDACTED} today`);
    expect(committable(dir)).not.toContain(BODY.slice(6));
  });

  it('the command line: --files', () => {
    const dir = tempProject();
    expect(gctx(dir, ['init']).code).toBe(0);
    const r = gctx(dir, ['commit', 'keys moved', '--files', PATH]);
    expect(r.code, r.stderr).toBe(0);
    expect(committable(dir)).not.toContain(BODY);
    expect(committable(dir)).toContain(SHOWN);
  });

  it('MCP: commit.files', async () => {
    const dir = tempProject();
    (await Memory.open(dir, { create: true })).close();
    const c = await connect(dir);
    try {
      const r = await call(c.client, 'commit', { contribution: 'keys moved', files: [PATH] });
      expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    } finally {
      await c.close();
    }
    expect(await filesOf(dir, 'commit.recorded')).toEqual([SHOWN]);
    expect(committable(dir)).not.toContain(BODY);
  });

  it("a hook's file changes (a Write to that path)", async () => {
    const dir = tempProject();
    (await Memory.open(dir, { create: true })).close();
    const payload = {
      session_id: '3f1c9a52-7be0-4d3e-9b8a-1c2d3e4f5a6b',
      cwd: dir,
      hook_event_name: 'PostToolUse',
      tool_name: 'Write',
      tool_input: { file_path: join(dir, PATH), content: 'x\ny\n' },
      tool_response: { filePath: join(dir, PATH), type: 'create' },
      tool_use_id: 'toolu_01WRITEPOST0000000000000',
    };
    const r = runHook(['--agent', 'claude-code'], JSON.stringify(payload), dir);
    expect(r.status, r.stderr).toBe(0);
    expect(await filesOf(dir, 'tool.recorded')).toEqual([SHOWN]);
    // The hook's pending files become the next commit's.
    expect(gctx(dir, ['commit', 'wrote the key file']).code).toBe(0);
    expect(await filesOf(dir, 'commit.recorded')).toEqual([SHOWN]);
    expect(committable(dir)).not.toContain(BODY);
  });

  it("git's list of changed files", async () => {
    const dir = tempProject();
    const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
    git('init', '-q', '-b', 'main');
    expect(gctx(dir, ['init']).code).toBe(0);
    expect(gctx(dir, ['commit', 'baseline']).code).toBe(0);
    mkdirSync(join(dir, 'secrets'));
    writeFileSync(join(dir, PATH), 'k\n');
    expect(gctx(dir, ['commit', 'added the key file']).code).toBe(0);
    expect(await filesOf(dir, 'commit.recorded')).toEqual([SHOWN]);
    expect(committable(dir)).not.toContain(BODY);
  });
});
