/**
 * The command line is generated from the catalogue (src/operations/): its help lists every
 * operation offered to the CLI with the usage generated from its declaration, a call missing
 * what it needs says so with that usage, and `--json` answers have one shape for writes and
 * one for reads. Spawned for real.
 */
import { LAUNCHERS } from '../../../src/adapters/cli/launchers/index.js';
import { afterAll, describe, expect, it } from 'vitest';
import { usageOf } from '../../../src/adapters/cli/args.js';
import { operationNamed, operationsFor } from '../../../src/operations/index.js';
import { gctx } from '../../support/cli.js';
import { template } from '../../support/project.js';
import { cleanup, tempProject } from '../../support/tmp.js';

afterAll(cleanup);

const project = template((dir) => {
  expect(gctx(dir, ['init']).code).toBe(0);
}, 'gcc-cli-gen-');

const usage = (name: string) => usageOf(operationNamed(name)!);

describe('gctx --help', () => {
  const ops = [...operationsFor('cli'), ...LAUNCHERS];

  it("lists every command offered to the command line with its summary, in the catalogue's order, in 80 columns", () => {
    const r = gctx(tempProject('gcc-cli-gen-'), ['--help']);
    expect(r.code).toBe(0);
    // The catalogue's commands, then the launchers of the other front ends.
    expect(ops.map((op) => op.name)).toEqual(
      expect.arrayContaining([
        'init',
        'status',
        'commit',
        'branch',
        'switch',
        'merge',
        'abandon',
        'roadmap',
        'log',
        'context',
        'search',
        'mcp',
        'hook',
        'serve',
      ]),
    );
    const listed = [...r.stdout.matchAll(/^ {2}([a-z]+) +\S/gm)].map((m) => m[1]);
    expect(listed).toEqual(ops.map((op) => op.name));
    // A summary wrapped over lines reads as one again.
    const flat = r.stdout.replace(/\n +/g, ' ');
    for (const op of ops) expect(flat, op.name).toContain(op.summary);
    for (const line of r.stdout.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
  });

  it('gives each command its usage, each option with what it is for, and an example, in 80 columns', () => {
    const dir = tempProject('gcc-cli-gen-');
    for (const op of ops) {
      const r = gctx(dir, [op.name, '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout.replace(/\n +/g, ' ')).toContain(`Usage: ${usageOf(op)}`);
      for (const line of r.stdout.split('\n')) expect(line.length, `${op.name}: ${line}`).toBeLessThanOrEqual(80);
      expect(r.stdout).toContain(`Example:\n  gctx ${op.example}\n`);
      // Every option the usage names has a line saying what it is for.
      const lines = r.stdout.split('\n');
      for (const flag of usageOf(op).match(/--[a-z-]+/g) ?? [])
        expect(
          lines.some((l) => l.startsWith(`  ${flag} `) || l === `  ${flag}`),
          `${op.name} ${flag}`,
        ).toBe(true);
    }
    // `gctx help <command>` says the same.
    for (const name of ['commit', 'serve'])
      expect(gctx(dir, ['help', name]).stdout).toBe(gctx(dir, [name, '--help']).stdout);
    expect(gctx(dir, ['commit', '--help']).stdout).toMatch(/--check <check> +Objectives this completes/);
    // Two options for one field say each what it is for, not the field's one line twice.
    const context = gctx(dir, ['context', '--help']).stdout;
    const said = (flag: string) =>
      context
        .split('\n')
        .find((l) => l.startsWith(`  ${flag} `))!
        .replace(/^ +\S+( [<[]\S+)? +/, '');
    expect(said('--branch')).not.toBe(said('--on'));
  });

  it('the example of every command is a call the command line takes', async () => {
    const { parseArgs, splitWords } = await import('../../../src/adapters/cli/args.js');
    for (const op of ops) {
      const [name, ...words] = splitWords(op.example);
      expect(name, op.name).toBe(op.name);
      expect(() => parseArgs(op, words), op.example).not.toThrow();
    }
  });

  it('a mistyped command or option is answered with the nearest', () => {
    const dir = project();
    const comit = gctx(dir, ['comit', 'x']);
    expect(comit.code).toBe(1);
    expect(comit.stderr).toContain('unknown command "comit" (did you mean commit?)');
    expect(gctx(dir, ['help', 'statuss']).stderr).toContain('(did you mean status?)');
    expect(gctx(dir, ['status', '--jsn']).stderr).toContain('unknown option --jsn (did you mean --json?)');
    expect(gctx(dir, ['commit', 'x', '--nxt', 'y']).stderr).toContain('unknown option --nxt (did you mean --next?)');
    // Nothing near: no guess.
    expect(gctx(dir, ['frobnicate']).stderr).not.toContain('did you mean');
  });
});

describe('gctx argument errors', () => {
  afterAll(cleanup);

  it('`gctx commit` without text exits 1, names what is missing and quotes the usage with the required and optional arguments', () => {
    const dir = project();
    const r = gctx(dir, ['commit']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('gctx: E_INVALID_ARGUMENT: missing contribution');
    expect(r.stderr).toContain(`Fix: ${usage('commit')} (required: contribution; optional: title, next, check, files)`);
    const j = JSON.parse(gctx(dir, ['commit', '--json']).stdout) as {
      error: { code: string; message: string; fix: string };
    };
    expect(j.error).toEqual({
      code: 'E_INVALID_ARGUMENT',
      message: 'missing contribution',
      fix: `${usage('commit')} (required: contribution; optional: title, next, check, files)`,
    });
  });

  it('an unknown option or a stray word is refused with the usage, before anything is written', () => {
    const dir = project();
    const before = gctx(dir, ['context', '--log', '--json']).stdout;
    for (const [args, what] of [
      [['commit', 'x', '--nope', 'y'], 'unknown option --nope'],
      [['switch', 'main', 'extra'], 'unexpected word: "extra"'],
      [['context', '--log', '--page', '0'], '--page takes a whole number above 0'],
    ] as const) {
      const r = gctx(dir, [...args]);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toContain(`E_INVALID_ARGUMENT: ${what}`);
      expect(r.stderr).toContain(usage(args[0]));
    }
    expect(gctx(dir, ['context', '--log', '--json']).stdout).toBe(before);
  });

  // Found by a probe: zod's own words (`Too small: expected string to have >=1 characters`,
  // `Invalid option: expected one of "add"|…`) beside the decider's, and `give a objective`.
  it('says what is wrong with an argument in one voice, whichever check finds it', () => {
    const dir = project();
    const said = (args: string[]) => {
      const r = gctx(dir, args);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      return r.stderr;
    };
    // Empty (the schema) and only spaces (the decider): the same words.
    expect(said(['commit', ''])).toContain(
      'E_INVALID_ARGUMENT: contribution cannot be empty Fix: gctx commit <contribution…>',
    );
    expect(said(['commit', '   '])).toContain(
      'E_INVALID_ARGUMENT: contribution cannot be empty Fix: give the contribution: words, not only spaces',
    );
    expect(said(['roadmap', 'add', ''])).toContain('E_INVALID_ARGUMENT: target cannot be empty');
    expect(said(['roadmap', 'add', '  '])).toContain('E_INVALID_ARGUMENT: target cannot be empty Fix: give the target');
    expect(said(['roadmap', 'frob', 'x'])).toContain(
      'E_INVALID_ARGUMENT: action must be one of add, check, uncheck, remove, not "frob" Fix: gctx roadmap',
    );
    for (const args of [
      ['commit', ''],
      ['roadmap', 'frob', 'x'],
      ['roadmap', 'add', '  '],
    ])
      expect(said(args)).not.toMatch(/Too small|Invalid option|Invalid input|give a /);
  });

  // Found by a probe: the last level option won, and --on was dropped beside --commit.
  it('options that contradict each other are refused, never one of them quietly picked', () => {
    const dir = project();
    for (const [args, what] of [
      [
        ['context', '--branch', '--commit', 'C001'],
        '--branch and --commit cannot go together: each gives the level Fix: give one of --branch, --commit, --log, --metadata, --full, --search: ',
      ],
      [['context', '--log', '2', '--search', 'foo'], '--log and --search cannot go together: each gives the level'],
      [
        ['context', '--branch', 'main', '--on', 'g1'],
        '--branch and --on cannot go together: each gives the name Fix: give one of --branch, --on: ',
      ],
      [['context', '--metadata', '--page', '2'], 'level metadata does not read page (--page); it reads segment'],
      [
        ['context', '--commit', 'main@C001', '--on', 'g1'],
        '"main@C001" names branch main, and the branch given (--on) is g1',
      ],
    ] as const) {
      const r = gctx(dir, [...args]);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr, args.join(' ')).toContain(`E_INVALID_ARGUMENT: ${what}`);
    }
    // The same option twice with one value, and a level option with the branch it reads, are one question.
    expect(gctx(dir, ['context', '--branch', 'main', '--on', 'main']).code).toBe(0);
    // --on with --commit names the branch the label is read on.
    expect(gctx(dir, ['commit', 'on main']).code).toBe(0);
    expect(gctx(dir, ['branch', 'g1', '--purpose', 'try']).code).toBe(0);
    expect(gctx(dir, ['commit', 'on g1']).code).toBe(0);
    expect(gctx(dir, ['context', '--commit', 'C001', '--on', 'main']).stdout).toMatch(/^## \[C001\] on main/);
    expect(gctx(dir, ['context', '--commit', 'C001', '--on', 'g1']).stdout).toMatch(/^## \[C001\] on g1/);
  });

  it('a budget too small to hold an entry and the way to the next is refused, not overrun', () => {
    const dir = project();
    const r = gctx(dir, ['context', '--log', '--budget', '20']);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('E_INVALID_ARGUMENT: --budget takes a whole number of tokens, 60 or more');
    expect(gctx(dir, ['context', '--log', '--budget', '60']).code).toBe(0);
  });
});

describe('gctx --json', () => {
  afterAll(cleanup);

  it('a write answers {ok, branch, message, events}; a read {ok, level, truncated, tokens, next, data}', () => {
    const dir = project();
    const w = JSON.parse(gctx(dir, ['branch', 'try-x', '--purpose', 'try x', '--json']).stdout) as Record<
      string,
      unknown
    >;
    expect(Object.keys(w).sort()).toEqual(['branch', 'events', 'message', 'ok']);
    expect(w).toMatchObject({
      ok: true,
      branch: 'try-x',
      message: 'Created branch try-x from main and switched to it',
    });
    expect(w.events).toEqual([
      { id: expect.stringMatching(/^[0-9a-f]{22}$/), type: 'branch.created', branch: 'try-x' },
      { id: expect.stringMatching(/^[0-9a-f]{22}$/), type: 'branch.switched', branch: 'try-x' },
    ]);
    for (let i = 1; i <= 3; i++) expect(gctx(dir, ['commit', `step ${i}`]).code).toBe(0);

    const whole = JSON.parse(gctx(dir, ['context', '--log', '--json']).stdout) as Record<string, unknown>;
    expect(Object.keys(whole).sort()).toEqual(['data', 'level', 'next', 'ok', 'tokens', 'truncated']);
    expect(whole).toMatchObject({ ok: true, level: 'log', truncated: false, next: null });
    expect(whole.tokens).toBeGreaterThan(0);
    const data = whole.data as {
      branch: string;
      page: number;
      total: number;
      entries: { at: string; branch: string; text: string }[];
    };
    expect(data).toMatchObject({ branch: 'try-x', page: 1, total: 4 });
    // Newest first; the switch is this clone's own move, in no clone's log of the branch.
    expect(data.entries.map((e) => e.text.replace(/^\d\d-\d\d \d\d:\d\d /, '').replace(/ [0-9a-f]{7}:/, ':'))).toEqual([
      'Commit C003: step 3',
      'Commit C002: step 2',
      'Commit C001: step 1',
      'Branch try-x started from main: try x',
    ]);

    // Cut: the answer says so, and its next query is the older part, in the command line's words.
    const cut = JSON.parse(gctx(dir, ['context', '--log', '2', '--json']).stdout) as {
      truncated: boolean;
      next: unknown;
      data: { entries: unknown[] };
    };
    expect(cut.truncated).toBe(true);
    expect(cut.next).toEqual({ level: 'log', branch: 'try-x', n: 2, page: 2 });
    expect(cut.data.entries).toHaveLength(2);
    const text = gctx(dir, ['context', '--log', '2']).stdout;
    expect(text).toContain('… 2 older entries: gctx context --log 2 --on try-x --page 2');
    const older = gctx(dir, ['context', '--log', '2', '--on', 'try-x', '--page', '2']).stdout;
    expect(older).toMatch(/Commit C001 [0-9a-f]{7}: step 1\n.*Branch try-x started from main: try x\n$/);
  });
});
