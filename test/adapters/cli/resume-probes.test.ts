/**
 * What a resuming agent found probing the real command line: each probe as it was run, and what
 * it must see now. The rules themselves are tested where they live (decider, context, engine).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { gctx } from '../../support/cli.js';
import { template } from '../../support/project.js';
import { cleanup } from '../../support/tmp.js';

afterAll(cleanup);

const project = template((dir) => {
  run(dir, ['init']);
});

function run(dir: string, args: string[], env: NodeJS.ProcessEnv = {}): string {
  const r = gctx(dir, args, undefined, env);
  expect(r.stderr, args.join(' ')).toBe('');
  expect(r.code, args.join(' ')).toBe(0);
  return r.stdout;
}

const sessionStart = (dir: string) => {
  const r = gctx(
    dir,
    ['hook', '--agent', 'claude-code'],
    JSON.stringify({ hook_event_name: 'SessionStart', session_id: 'z', cwd: dir, source: 'startup' }),
  );
  expect(r.code).toBe(0);
  return (JSON.parse(r.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput
    .additionalContext;
};

describe('a merge and the next step', () => {
  it("a merge supersedes the merged branch's step: none after a merge without --next, its own with one", () => {
    const dir = project();
    run(dir, ['commit', 'base', '--next', 'try a cache']);
    run(dir, ['branch', 'b', '--purpose', 'cache']);
    run(dir, ['commit', 'cache works', '--next', 'merge b back into main']);
    run(dir, ['merge', 'b', '--synthesis', 'cache adopted']);
    run(dir, ['branch', 'e', '--purpose', 'empty']);
    run(dir, ['merge', 'e', '--synthesis', 'nothing needed']);
    const status = run(dir, ['status']);
    expect(status).toMatch(/Last commit C003 \S+ \(.*\): merged e: nothing needed/);
    expect(status).not.toMatch(/Next|merge b back/);
    const briefing = sessionStart(dir);
    expect(briefing).toMatch(/Last milestone on main: C003 \S+ — merged e: nothing needed/);
    expect(briefing).not.toMatch(/Next step|merge b back/);

    run(dir, ['branch', 'c', '--purpose', 'measure']);
    run(dir, ['merge', 'c', '--synthesis', 'measured', '--next', 'ship the cache']);
    expect(run(dir, ['status'])).toMatch(/Last commit C004 [^\n]*: measured\n {2}Next: ship the cache\n/);
    expect(sessionStart(dir)).toContain('Next step (as recorded): ship the cache');
    expect(run(dir, ['context', '--commit', 'main@C004'])).toMatch(/\*\*Next Step\*\*: ship the cache/);
  });
});

describe('search', () => {
  it('finds what a merge learned, as context --commit shows it', () => {
    const dir = project();
    run(dir, ['branch', 'b', '--purpose', 'cache']);
    run(dir, ['commit', 'cache works']);
    run(dir, ['merge', 'b', '--synthesis', 'cache adopted', '--learned', 're-reads, not parsing, dominate warm loads']);
    expect(run(dir, ['context', '--commit', 'main@C001'])).toContain('re-reads, not parsing, dominate warm loads');
    expect(run(dir, ['search', 'dominate warm loads'])).toMatch(
      /^1 match[^\n]*\n[^\n]* main C001 Merge b: cache adopted: [^\n]*«dominate» «warm» «loads»/,
    );
  });
});

describe('lists cut short', () => {
  it('say how many are left and the call that shows them', () => {
    const dir = project();
    for (let i = 1; i <= 6; i++) run(dir, ['commit', `main step ${i}`]);
    const s1 = { GCC_SESSION: 's1' };
    run(dir, ['branch', 'f', '--purpose', 'feature'], s1);
    for (let i = 1; i <= 3; i++) run(dir, ['commit', `f step ${i}`], s1);
    expect(run(dir, ['context'], s1)).toMatch(
      /\n {2}main@C005 [^\n]*\n {2}… 4 older commits on main: `gctx context --branch main --k 2 --page 2`\n/,
    );
    expect(run(dir, ['context', '--branch', 'main', '--k', '2', '--page', '2'])).toMatch(
      /Newest first, page 2:\nC004 /,
    );
    expect(run(dir, ['status'])).toMatch(
      /\n {2}C002 [^\n]*\n {2}… 1 older commit on main: `gctx context --branch main --k 5 --page 2`\n/,
    );
    expect(run(dir, ['context', '--branch', 'main'])).toMatch(
      /^6 commits; earlier: C005 main step 5; C004 [^\n]*; C002 main step 2; and 1 older\.\n/m,
    );
  });
});

describe('a branch name taken by a closed branch', () => {
  it('suggests a free name, not a switch that would be refused', () => {
    const dir = project();
    run(dir, ['branch', 'try-sqlite', '--purpose', 'x']);
    run(dir, ['abandon', 'try-sqlite', '--reason', 'needs a native module']);
    const again = gctx(dir, ['branch', 'try-sqlite', '--purpose', 'x']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(
      /E_BRANCH_EXISTS: branch try-sqlite already exists and was abandoned[^\n]*Fix: pick another name, e\.g\. `gctx branch try-sqlite-2 --purpose "…"`/,
    );
    expect(again.stderr).not.toMatch(/gctx switch/);
    run(dir, ['branch', 'try-sqlite-2', '--purpose', 'x']);
  });
});

describe("the write guard's own refusals", () => {
  it('are not failing work in the briefing, and a few words in the log', () => {
    const dir = project();
    run(dir, ['commit', 'start']);
    const pre = {
      hook_event_name: 'PreToolUse',
      session_id: 'z',
      cwd: dir,
      tool_name: 'mcp__filesystem__write_file',
      tool_input: { path: `${dir}/.GCC/main.md`, content: 'x' },
    };
    const r = gctx(dir, ['hook', '--agent', 'claude-code'], JSON.stringify(pre));
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ hookSpecificOutput: { permissionDecision: 'deny' } });
    const briefing = sessionStart(dir);
    expect(briefing).not.toMatch(/Failing since|blocked|generated from the memory log/);
    expect(run(dir, ['context', '--log'])).toMatch(
      /mcp__filesystem__write_file [^\n]*→ blocked by gctx: \.GCC\/ is written through the memory tools\n/,
    );
  });
});

describe('the log view', () => {
  it("tells an entry's observation, thought and action apart", () => {
    const dir = project();
    run(dir, [
      'log',
      '--observation',
      'yaml test fails: tabs',
      '--thought',
      'enable json: false',
      '--action',
      'set the flag',
    ]);
    expect(run(dir, ['context', '--log'])).toMatch(
      / Observation: yaml test fails: tabs \| Thought: enable json: false \| Action: set the flag\n/,
    );
  });
});
