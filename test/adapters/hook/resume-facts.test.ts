/**
 * What a resuming agent is handed, through the real processes: Claude Code's payloads to
 * `gctx hook`, the CLI, the MCP server. Every call failing since the last commit; the newest
 * milestone, whatever recorded it; a merge's substance; log reads not crowded by sessions.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { estimateTokens } from '../../../src/context/budget.js';
import { gctx } from '../../support/cli.js';
import { call, connect, exchange, GCTX_JS, INITIALIZE, textOf } from '../mcp/client.js';
import { runHook } from './run.js';
import { initialized as project } from '../../support/project.js';

const SESSION = '3f1c9a52-7be0-4d3e-9b8a-1c2d3e4f5a6b';

function hook(dir: string, payload: Record<string, unknown>): string {
  const r = runHook(['--agent', 'claude-code'], JSON.stringify({ session_id: SESSION, cwd: dir, ...payload }), dir);
  expect(r.status).toBe(0);
  return r.stdout;
}

const failure = (dir: string, command: string, error: string) =>
  hook(dir, {
    hook_event_name: 'PostToolUseFailure',
    tool_name: 'Bash',
    tool_input: { command },
    tool_use_id: `toolu_${command.length}`,
    error,
    is_interrupt: false,
  });

const compacted = (dir: string): string =>
  (
    JSON.parse(hook(dir, { hook_event_name: 'SessionStart', source: 'compact' })) as {
      hookSpecificOutput: { additionalContext: string };
    }
  ).hookSpecificOutput.additionalContext;

const run = (dir: string, ...args: string[]): string => {
  const r = gctx(dir, args);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
};

describe('resuming after a compaction', () => {
  it('every call failing since the last commit, newest first, each with its reason — in the briefing and status', async () => {
    const dir = await project();
    run(dir, 'commit', 'Tokenizer done');
    failure(dir, 'npm run build', "src/a.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'.");
    failure(dir, 'npm test', 'Error: regex cannot match nested brackets');
    const expected =
      /Failing since the last commit, newest first:\n {2}- \S+ \S+ Bash npm test → Error: regex cannot match nested brackets\n {2}- \S+ \S+ Bash npm run build → src\/a\.ts\(3,5\): error TS2322/;
    expect(compacted(dir)).toMatch(expected);
    expect(run(dir, 'status')).toMatch(expected);
  });

  it('an abandon recorded on main is its newest milestone: status, the briefing and the branch view agree', async () => {
    const dir = await project();
    run(dir, 'branch', 'exp', '--purpose', 'a PEG grammar');
    expect(run(dir, 'abandon', '--reason', 'backtracking is exponential')).toContain('recorded on main as C001');
    const brief = compacted(dir);
    expect(brief).not.toContain('No commits');
    expect(brief).toMatch(/^Last milestone on main: C001 \S+ — abandoned exp \(why: under Failed approaches\)$/m);
    expect(brief).toMatch(/- exp \(\S+\): a PEG grammar — dropped: backtracking is exponential/);
    run(dir, 'commit', 'Parser by hand');
    run(dir, 'branch', 'exp2', '--purpose', 'a generated parser');
    run(dir, 'abandon', '--reason', 'too slow');
    expect(run(dir, 'status')).toMatch(
      /^Last commit C003 \S+ \([^)]*\): abandoned exp2 \(why: under Failed approaches\)\nLast progress C002 \S+ \([^)]*\): Parser by hand$/m,
    );
    expect(run(dir, 'context', '--branch')).toMatch(/Newest first:\nC003 /);
  });

  it('a merge shows what it concluded and what was learned', async () => {
    const dir = await project();
    run(dir, 'branch', 'cache', '--purpose', 'an LRU cache');
    run(dir, 'commit', 'LRU in place');
    run(dir, 'merge', 'cache', '--synthesis', 'Keep LRU cache', '--learned', 're-reads dominate');
    expect(compacted(dir)).toMatch(
      /^Last milestone on main: C001 \S+ — merged cache: Keep LRU cache; learned: re-reads dominate$/m,
    );
    expect(run(dir, 'status')).toMatch(
      /^Last commit C001 \S+ \([^)]*\): merged cache: Keep LRU cache; learned: re-reads dominate$/m,
    );
  });
});

describe('what a compaction must not lose', () => {
  const PYTEST = [
    '============================= test session starts ==============================',
    'collected 214 items',
    ...Array.from({ length: 10 }, (_, i) => `tests/test_part${i}.py ${'.'.repeat(50)} [ ${i * 9}%]`),
    '=================================== FAILURES ===================================',
    '>       assert inv.total == Decimal("10.00")',
    "E       AssertionError: assert Decimal('10.01') == Decimal('10.00')",
    'tests/test_invoice.py:42: AssertionError',
    '=========================== short test summary info ============================',
    "FAILED tests/test_invoice.py::test_invoice_total_rounds_half_even - AssertionError: assert Decimal('10.01') == Decimal('10.00')",
    '======================== 1 failed, 213 passed in 4.12s =========================',
  ].join('\n');

  it("the failing test's verdict, a merged investigation's dead ends, the user's constraint and last request — after a compaction", async () => {
    const dir = await project();
    hook(dir, { hook_event_name: 'SessionStart', source: 'startup' });
    hook(dir, {
      hook_event_name: 'UserPromptSubmit',
      prompt: 'Fix the flaky invoice test. requirements.txt is frozen by the security review — no new dependencies.',
    });
    run(dir, 'branch', 'flaky-invoice', '--purpose', 'find why test_invoice_totals fails 1 run in 7');
    run(dir, 'commit', 'Ruled out timing: with a frozen clock it still fails 3/20.');
    run(dir, 'commit', 'Ruled out test order (2/20 with -p no:randomly).');
    run(
      dir,
      'merge',
      'flaky-invoice',
      '--synthesis',
      'Shared fixture state: a fresh fixture per test fixes it (0/50)',
      '--learned',
      'ruled out timing (still 3/20), ruled out test order (2/20)',
    );
    hook(dir, {
      hook_event_name: 'UserPromptSubmit',
      prompt: 'Now finish the rounding refactor in billing/invoice.py',
    });
    hook(dir, {
      hook_event_name: 'PostToolUse',
      tool_name: 'Edit',
      tool_input: { file_path: join(dir, 'billing/invoice.py'), old_string: 'a', new_string: 'b' },
      tool_response: { filePath: join(dir, 'billing/invoice.py') },
      tool_use_id: 'toolu_1',
    });
    failure(dir, 'pytest -q', PYTEST);
    const transcript = join(dir, 'transcript.jsonl');
    appendFileSync(
      transcript,
      `${JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'Switching invoice totals to ROUND_HALF_EVEN; next the tax lines.' }] } })}\n`,
    );
    expect(hook(dir, { hook_event_name: 'PreCompact', trigger: 'auto', transcript_path: transcript })).toBe('');
    const brief = compacted(dir);
    expect(brief).toContain(
      "FAILED tests/test_invoice.py::test_invoice_total_rounds_half_even - AssertionError: assert Decimal('10.01')",
    );
    expect(brief).not.toMatch(/\.{20}|={20}/);
    expect(brief).toMatch(/- timing \(on flaky-invoice\) — ruled out: still 3\/20/);
    expect(brief).toMatch(/- test order \(on flaky-invoice\) — ruled out: 2\/20/);
    expect(brief).toContain('"requirements.txt is frozen by the security review — no new dependencies."');
    expect(brief).toMatch(
      /The user's last request \([^)]*\): "Now finish the rounding refactor in billing\/invoice\.py"/,
    );
    expect(estimateTokens(brief)).toBeLessThanOrEqual(1_000);
    const status = run(dir, 'status');
    expect(status).toContain('ruled out: still 3/20');
    expect(status).toContain('requirements.txt is frozen');
    // The agent's last words before the cut are in the log.
    expect(run(dir, 'context', '--log')).toContain('ROUND_HALF_EVEN');
    // The user lifts the constraint: it goes.
    hook(dir, {
      hook_event_name: 'UserPromptSubmit',
      prompt: 'The security review is done: requirements.txt is no longer frozen.',
    });
    expect(compacted(dir)).not.toContain('standing instructions');
  });
});

describe('the token ledger', () => {
  it('counts each briefing a hook hands over, per session and kind, in a local file; gctx stats shows it; the shared logs do not grow per call', async () => {
    const dir = await project();
    const first = compacted(dir);
    const second = compacted(dir);
    // Nothing changed between: the same bytes, which a host's prompt cache keeps.
    expect(second).toBe(first);
    const stats = run(dir, 'stats');
    expect(stats).toMatch(
      new RegExp(
        `^${SESSION} \\| claude-code \\| ${2 * estimateTokens(first)} \\(2\\) \\| 0 \\| 0 \\| ${2 * estimateTokens(first)}$`,
        'm',
      ),
    );
    expect(JSON.parse(run(dir, 'stats', '--json')).sessions[SESSION].kinds.briefing).toEqual({
      count: 2,
      tokens: 2 * estimateTokens(first),
    });
    // A memory tool's answer over MCP is counted too, under the server's session.
    const c = await connect(dir, [], { GCC_SESSION: 'mcp-session' });
    const answer = textOf(await call(c.client, 'context', { level: 'status' }));
    await c.close();
    // Counted as framed: what the model reads.
    const counted = JSON.parse(run(dir, 'stats', '--json')).sessions['mcp-session'];
    expect(counted).toEqual(
      expect.objectContaining({ host: 'mcp', kinds: { 'tool-answer': { count: 1, tokens: estimateTokens(answer) } } }),
    );
  });
});

describe('session lifecycles in log reads', () => {
  it('MCP servers coming and going leave the log reads to the work, over the CLI and MCP', async () => {
    const dir = await project();
    run(dir, 'log', '--observation', 'build is slow', '--thought', 'cache the parse', '--action', 'added a cache');
    for (let i = 0; i < 3; i++) await exchange(GCTX_JS, dir, INITIALIZE);
    const cli = run(dir, 'context', '--log', '3');
    expect(cli).not.toMatch(/Session (started|ended)/);
    expect(cli).toMatch(/Observation: build is slow/);
    const c = await connect(dir);
    const text = textOf(await call(c.client, 'context', { level: 'log', n: 3 }));
    await c.close();
    expect(text).not.toMatch(/Session (started|ended)/);
    expect(text).toMatch(/Observation: build is slow/);
  });
});

describe('notes written by hand in main.md', () => {
  it('are searchable, and the briefing and status point to them', async () => {
    const dir = await project();
    run(dir, 'commit', 'base');
    appendFileSync(
      join(dir, '.GCC/main.md'),
      '\n- The staging database refuses connections after 6pm UTC.\n- Ask Dana before touching billing.\n',
    );
    expect(run(dir, 'search', 'staging database')).toMatch(
      /main\.md notes: .*«staging» «database» refuses connections/,
    );
    const line =
      /^Notes in main\.md \(2 lines, (context full|`gctx context --full`)\): The staging database refuses connections after 6pm UTC\.$/m;
    expect(compacted(dir)).toMatch(line);
    expect(run(dir, 'status')).toMatch(line);
  });
});
