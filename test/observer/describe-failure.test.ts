/**
 * A failing call told from its error lines, not its head: test ids, errors, exit codes; progress
 * and rulers dropped.
 */
import { describe, expect, it } from 'vitest';
import { describeFailure } from '../../src/observer/describe-call.js';

const PYTEST = [
  '============================= test session starts ==============================',
  'platform linux -- Python 3.11.4, pytest-7.4.0, pluggy-1.2.0',
  'rootdir: /srv/app',
  'collected 214 items',
  '',
  ...Array.from({ length: 12 }, (_, i) => `tests/test_part${i}.py ${'.'.repeat(40)} [ ${String(i * 8).padStart(2)}%]`),
  'tests/test_invoice.py ....F.... [ 99%]',
  '',
  '=================================== FAILURES ===================================',
  '_______________________ test_invoice_total_rounds_half_even ____________________',
  '',
  '    def test_invoice_total_rounds_half_even():',
  '        inv = make_invoice([Decimal("3.335"), Decimal("6.665")])',
  '>       assert inv.total == Decimal("10.00")',
  "E       AssertionError: assert Decimal('10.01') == Decimal('10.00')",
  '',
  'tests/test_invoice.py:42: AssertionError',
  '=========================== short test summary info ============================',
  'FAILED tests/test_invoice.py::test_invoice_total_rounds_half_even - AssertionError: ' +
    "assert Decimal('10.01') == Decimal('10.00')",
  '======================== 1 failed, 213 passed in 4.12s =========================',
].join('\n');

describe('describeFailure', () => {
  it('pytest: the FAILED line leads, the assertion follows, progress and rulers are gone', () => {
    const d = describeFailure(PYTEST, 1_500);
    expect(d.split('\n')[0]).toBe(
      'FAILED tests/test_invoice.py::test_invoice_total_rounds_half_even - AssertionError: ' +
        "assert Decimal('10.01') == Decimal('10.00')",
    );
    expect(d).toContain('1 failed, 213 passed');
    expect(d).toContain("E       AssertionError: assert Decimal('10.01')");
    expect(d).not.toMatch(/\.{10}|={10}|\d+%\]/);
    expect(d.length).toBeLessThanOrEqual(1_500);
  });

  it.each([
    [
      'tsc',
      "src/a.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'.",
      /^src\/a\.ts\(3,5\): error TS2322/,
    ],
    [
      'rust',
      '   Compiling app v0.1.0\nerror[E0308]: mismatched types\n  --> src/main.rs:4:18\nerror: could not compile `app`',
      /^error\[E0308\]: mismatched types/,
    ],
    [
      'node',
      'node:internal/x:1\n    at Object.<anonymous> (/srv/a.js:3:9)\nError: ENOENT: no such file\nExit code 1',
      /^Error: ENOENT/,
    ],
    [
      'go',
      '=== RUN   TestParse\n--- FAIL: TestParse (0.00s)\n    parse_test.go:12: got 3, want 4\nFAIL\nexit status 1',
      /^--- FAIL: TestParse/,
    ],
    [
      'jest',
      ' FAIL  src/sum.test.ts\n  ● sum › adds\n    expect(received).toBe(expected)\n    Expected: 4\n    Received: 5',
      /^ ?FAIL {2}src\/sum\.test\.ts/,
    ],
  ])('%s: its verdict first', (_name, text, first) => {
    expect(describeFailure(text, 1_500)).toMatch(first);
  });

  it('an output with no error line is kept, noise dropped, bounded', () => {
    expect(describeFailure('permission denied', 100)).toBe('permission denied');
    expect(describeFailure('x'.repeat(500), 100).length).toBeLessThanOrEqual(100);
  });

  it('a flood of error lines stays within the limit and counts what it left out', () => {
    const d = describeFailure(Array.from({ length: 400 }, (_, i) => `error: thing ${i} went wrong`).join('\n'), 600);
    expect(d.length).toBeLessThanOrEqual(600);
    expect(d).toMatch(/other lines of output omitted\]$/);
  });
});
