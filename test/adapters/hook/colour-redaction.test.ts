/**
 * Through the real `gctx hook` process: coloured tool output (`grep --color=always`) and
 * zero-width characters must not carry a token into the segment that teams commit. The bytes of
 * every file under .GCC/events/ are checked, not the parsed events.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Memory } from '../../../src/engine/memory.js';
import { tempProject } from '../mcp/client.js';
import { runHook } from './run.js';

const BODY = 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
const AKIA_BODY = 'IOSFODNN7EXAMPL3';
const SK_BODY = '4f9Qx2Lm8Zr1Tb6Yw3Nc7Vh5Kd0Sa9';

/** GNU grep's colouring of a match. */
const red = (match: string) => `\u001b[01;31m\u001b[K${match}\u001b[m\u001b[K`;

function segmentBytes(dir: string): string {
  const root = join(dir, '.GCC', 'events');
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .map((f) => readFileSync(join(root, f), 'utf8'))
    .join('\n');
}

function postToolUse(dir: string, command: string, toolResponse: unknown): void {
  const payload = {
    session_id: 'colour-session',
    cwd: dir,
    hook_event_name: 'PostToolUse',
    tool_name: 'Bash',
    tool_input: { command, description: 'look for keys' },
    tool_response: toolResponse,
    tool_use_id: 'toolu_colour',
  };
  const r = runHook(['--agent', 'claude-code'], JSON.stringify(payload), dir);
  expect(r.status, r.stderr).toBe(0);
}

describe('gctx hook: coloured and invisible-split tokens are redacted in the segment', () => {
  it('grep --color=always output, zero-width splits and wrapped tokens leave no token and no escape in the committed bytes', async () => {
    const dir = tempProject('gcc-hook-colour-');
    (await Memory.open(dir, { create: true })).close();
    const stdout = [
      `GITHUB_TOKEN=${red('ghp_')}${BODY}`,
      `AWS_ACCESS_KEY_ID=${red('AKIA')}${AKIA_BODY}`,
      `OPENAI_API_KEY=${red('sk-proj-')}${SK_BODY}`,
      `\u001b[32mghp_${BODY.split('').reverse().join('')}\u001b[0m`,
      `ghp_\u200b${BODY.toLowerCase()}`,
      '',
    ].join('\n');
    postToolUse(dir, "grep --color=always -E 'ghp_|AKIA|sk-proj-' envfile", {
      stdout,
      stderr: '',
      interrupted: false,
      isImage: false,
    });
    // A structured response is logged JSON-encoded, where ESC is written \u001b.
    postToolUse(dir, 'FORCE_COLOR=1 ./show-env', {
      output_lines: [`TOKEN=${red('ghp_')}${BODY.toUpperCase()}`],
      exit: 0,
    });

    const bytes = segmentBytes(dir);
    expect(bytes).toContain('tool.recorded');
    expect(bytes).toContain('[REDACTED]');
    for (const secret of [
      BODY,
      BODY.split('').reverse().join(''),
      BODY.toLowerCase(),
      BODY.toUpperCase(),
      AKIA_BODY,
      SK_BODY,
    ])
      expect(bytes).not.toContain(secret);
    expect(bytes).not.toMatch(/\u001b|\\u001b|\u200b|\\u200b/i);
  });

  it('a spaced passphrase and a punctuated SECRET_KEY in Bash output are redacted in the segment', async () => {
    const dir = tempProject('gcc-hook-phrase-');
    (await Memory.open(dir, { create: true })).close();
    const stdout =
      'password: correct horse battery staple\npassphrase=correct horse battery staple\nSECRET_KEY = Zx9!abc(def)ghi\nDJANGO_SECRET_KEY = django-insecure-(k3y)!@#x\nDEBUG = False\n';
    postToolUse(dir, 'cat settings.env', { stdout, stderr: '', interrupted: false, isImage: false });
    const bytes = segmentBytes(dir);
    expect(bytes).toContain('DEBUG = False');
    for (const secret of ['horse battery', 'Zx9!abc', '(def)ghi', 'django-insecure', '(k3y)'])
      expect(bytes).not.toContain(secret);
  });
});
