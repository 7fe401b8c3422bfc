/**
 * Long sessions for the resume benchmark (bench/resume.js), generated from templates so the
 * facts are met in many wordings, not in one example's: 60+ tool calls, user prompts that carry
 * a constraint, an investigation merged with its dead ends in its synthesis, a half-done change
 * with a failing test at the end, then a compaction. Each is played as Claude Code plays it:
 * every hook event through the command `gctx hook install` registered for it in
 * `.claude/settings.json` (SessionStart, UserPromptSubmit, PreToolUse, PostToolUse,
 * PostToolUseFailure, PreCompact with a transcript), and every memory operation through the
 * real MCP SDK client over stdio to `gctx mcp`.
 *
 * `longShape(c, seed, kind, helpers)`: kind 'migration' (an online schema change abandoned
 * behind a pooler, then a dual-write plan) or 'flaky' (a flaky test investigated on a branch,
 * merged); `helpers.reads` scales the ordinary tool calls (1 the benchmark's, less for a test).
 */
/** A small deterministic generator: the same seed, the same session. */
function rng(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

const pick = (r, list) => list[Math.floor(r() * list.length)];

/** Ways people say a file is off limits. `{f}`: the file. */
const CONSTRAINTS = [
  '{f} is frozen by the security review — no new dependencies.',
  'Do not add any dependency: {f} is frozen until the audit is signed off.',
  'Never change {f}; security froze it for this release.',
  "Don't touch {f} — it is frozen, and we must not add packages.",
  'We must not add packages, so {f} stays frozen.',
];
/** Ways people say an attempt did not work. `{a}`: the attempt, `{n}`: a count. */
const DEAD_ENDS = [
  'ruled out {a} (still {n}/20)',
  '{A} did not help ({n}/20 failures)',
  'tried {a}; still fails {n}/20',
  'dead end: {a} ({n}/20)',
  '{A} made no difference ({n}/20)',
  '{A} was not the cause ({n}/20 with it)',
];
const REQUESTS = [
  'Now finish the {x} refactor in {file}.',
  'Next, complete the {x} change in {file}, please.',
  'Carry on with {x} in {file} and get the tests green.',
];

/** The words, in any case (a sentence may start with them). */
const loose = (s) => new RegExp(s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i');
const cap = (s) => s[0].toUpperCase() + s.slice(1);
const fill = (t, vars) => t.replace(/\{(\w)\}/g, (_, k) => vars[k] ?? '');

const DOMAINS = {
  flaky: {
    frozen: ['requirements.txt', 'poetry.lock', 'package-lock.json'],
    branch: ['flaky-invoice', 'hunt-flake', 'flake-totals'],
    attempts: [
      'timing',
      'test order',
      'the database pool size',
      'a retry decorator',
      'the worker count',
      'the clock source',
    ],
    test: ['test_invoice_total_rounds_half_even', 'test_totals_match_ledger', 'test_refund_rounding'],
    file: ['billing/invoice.py', 'billing/totals.py', 'billing/rounding.py'],
    change: ['rounding', 'half-even rounding', 'Decimal totals'],
    cause: 'shared fixture state: a fresh fixture per test fixes it (0/50)',
  },
  migration: {
    frozen: ['requirements.txt', 'Pipfile.lock', 'go.sum'],
    branch: ['online-ddl', 'try-pg-repack', 'osc-pgbouncer'],
    attempts: [
      'pg_repack behind PgBouncer',
      'a longer lock_timeout',
      'session pooling for the migration role',
      'gh-ost',
      'batching the backfill by 10k rows',
      'a statement_timeout override',
    ],
    test: ['test_orders_backfill_is_idempotent', 'test_dual_write_matches', 'test_migration_rolls_back'],
    file: ['migrations/0042_orders_split.py', 'db/dual_write.py', 'db/backfill.py'],
    change: ['dual-write', 'backfill', 'expand-contract'],
    cause: 'the online schema change tool needs session locks, which transaction pooling drops',
  },
};

/** A failing test run in one of three tools' shapes: the verdict at the end, after pages of progress. */
function failingRun(r, test, file) {
  const kind = pick(r, ['pytest', 'pytest', 'jest']);
  if (kind === 'jest') {
    const out = [
      ' RUN  v29',
      ...Array.from({ length: 25 }, (_, i) => ` ✓ case ${i + 1} (${i % 9} ms)`),
      ` FAIL  ${file}`,
      `  ● ${test}`,
      '    expect(received).toBe(expected)',
      '    Expected: "10.00"',
      '    Received: "10.01"',
      'Tests:       1 failed, 87 passed, 88 total',
    ];
    return { text: out.join('\n'), verdict: test };
  }
  const out = [
    '============================= test session starts ==============================',
    'collected 214 items',
    '',
  ];
  for (let i = 0; i < 14; i++)
    out.push(`tests/test_part${i}.py ${'.'.repeat(30 + (i % 20))} [ ${String(i * 7).padStart(2)}%]`);
  out.push(
    '=================================== FAILURES ===================================',
    `________________________ ${test} ________________________`,
    "E       AssertionError: assert Decimal('10.01') == Decimal('10.00')",
    `tests/test_${file.split('/').pop()}:42: AssertionError`,
    '=========================== short test summary info ============================',
    `FAILED tests/test_${file.split('/').pop()}::${test} - AssertionError: assert Decimal('10.01') == Decimal('10.00')`,
    '======================== 1 failed, 213 passed in 4.12s =========================',
  );
  return { text: out.join('\n'), verdict: `FAILED tests/test_${file.split('/').pop()}::${test}` };
}

/**
 * One long session. `c`: the Claude Code payload builders of bench/resume.js (`claude(dir, session)`),
 * with `prompt(text)` and `preCompact(transcript)`. Returns the steps, the facts and the transcript's
 * text (the agent's last words), which the runner writes where PreCompact says it is.
 */
export function longShape(c, seed, kind, { cli, ev, mcp, fact, flight, reads = 1 }) {
  const r = rng(seed);
  const d = DOMAINS[kind];
  const frozen = pick(r, d.frozen);
  const branch = pick(r, d.branch);
  const attempts = [...d.attempts].sort(() => r() - 0.5).slice(0, 2);
  const [n1, n2] = [2 + Math.floor(r() * 3), 1 + Math.floor(r() * 3)];
  const deadEnds = attempts.map((a, i) => fill(pick(r, DEAD_ENDS), { a, A: cap(a), n: String(i ? n2 : n1) }));
  const test = pick(r, d.test);
  const file = pick(r, d.file);
  const change = pick(r, d.change);
  const constraint = fill(pick(r, CONSTRAINTS), { f: frozen });
  const request = fill(pick(r, REQUESTS), { x: change, file });
  const run = failingRun(r, test, file);
  const steps = [
    cli('init'),
    ev(c.start()),
    ev(
      c.prompt(
        `${kind === 'flaky' ? 'The invoice tests are flaky on CI; find out why.' : 'Split the orders table online, without downtime.'} ${constraint}`,
      ),
    ),
  ];
  // Reading around: the bulk of a long session.
  const pad = (n, tag) => {
    for (let i = 0; i < Math.max(1, Math.round(n * reads)); i++) {
      const p = `src/${tag}/module_${i % 7}.py`;
      const roll = r();
      if (roll < 0.45) steps.push(ev(c.read(p, `def f_${i}():\n    return ${i}\n`)));
      else if (roll < 0.65) steps.push(ev(c.grep(`f_${i}\\(`, [p])));
      else
        steps.push(
          ev(c.bash(`pytest -q tests/test_${tag}_${i % 5}.py`, `${'.'.repeat(20)} [100%]\n20 passed in 0.${i % 9}s\n`)),
        );
    }
  };
  pad(14, 'survey');
  steps.push(
    mcp('branch', {
      name: branch,
      purpose:
        kind === 'flaky' ? `find why ${test} fails 1 run in 7` : 'try an online schema change tool on the orders table',
    }),
  );
  pad(12, 'probe');
  steps.push(mcp('commit', { contribution: `${cap(deadEnds[0])}.` }));
  pad(10, 'probe2');
  steps.push(mcp('commit', { contribution: `${cap(deadEnds[1])}.` }));
  if (kind === 'flaky') steps.push(mcp('merge', { branch, synthesis: cap(d.cause), learned: deadEnds.join('; ') }));
  else steps.push(mcp('abandon', { branch, reason: `${cap(d.cause)}; ${deadEnds.join('; ')}` }));
  steps.push(ev(c.prompt(request)));
  pad(16, 'refactor');
  steps.push(ev(c.edit(file, 'ROUND_HALF_UP', 'ROUND_HALF_EVEN')));
  steps.push(ev(c.edit(`tests/test_${file.split('/').pop()}`, 'old', 'new')));
  pad(6, 'check');
  steps.push(ev(c.fail(`pytest -q tests/test_${file.split('/').pop()}`, run.text)));
  const said = `Switching ${file} to ${change}; ${test} still fails on the half-even case, next the tax lines.`;
  steps.push(ev(c.preCompact()));
  const facts = [
    fact('constraint', `the user's constraint: ${frozen} frozen`, [frozen, /frozen|must not|Never/]),
    fact('request', "the user's last request", [request.slice(0, 40)]),
    fact('failed', `dead end: ${attempts[0]}`, [loose(attempts[0]), `${n1}/20`]),
    fact('failed', `dead end: ${attempts[1]}`, [loose(attempts[1]), `${n2}/20`]),
    fact('failing', `failing test: ${test}`, [run.verdict]),
    fact('files', `in flight: ${file}`, [flight(file)]),
    fact('decision', kind === 'flaky' ? 'merged: the cause' : 'abandoned: why', [
      new RegExp(d.cause.split(':')[0].slice(0, 40), 'i'),
    ]),
    fact('branch', 'on main', [/(Memory branch:|On memory branch) main\b/]),
  ];
  return {
    steps,
    facts,
    said,
    toolCalls:
      steps.filter((s) => s.hook && /^PostToolUse/.test(s.hook.hook_event_name)).length +
      steps.filter((s) => s.mcp).length,
  };
}
