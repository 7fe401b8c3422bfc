/** The gctx command line, spawned for real: exit codes, --json, errors, hostile arguments. */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, gctx } from '../../support/cli.js';
import { readEvents } from '../../support/events.js';
import { skipping } from '../../support/needs.js';
import { segments, template } from '../../support/project.js';
import { cleanup, tempProject } from '../../support/tmp.js';

const project = template((dir) => {
  expect(gctx(dir, ['init']).code).toBe(0);
});

/** The segment files under .GCC/events/: memory's truth, which gctx only ever appends to. */
const segmentText = (dir: string) =>
  segments(dir)
    .map((f) => readFileSync(f, 'utf8'))
    .join('');

describe('gctx', () => {
  afterAll(cleanup);

  it('runs the whole loop: roadmap, branch, log, commit, merge, status, context, search, verify', () => {
    const dir = project();
    const ok = (args: string[]) => {
      const r = gctx(dir, args);
      expect(r.stderr, args.join(' ')).toBe('');
      expect(r.code, args.join(' ')).toBe(0);
      return r.stdout;
    };
    ok(['roadmap', 'add', 'Ship', 'the', 'parser']);
    ok([
      'branch',
      'try-peg',
      '--purpose',
      'Try a PEG parser',
      '--hypothesis',
      'simpler',
      '--hypothesis',
      'fast enough',
    ]);
    ok(['log', '--observation', 'PEG grammar is 40 lines', '--thought', 'promising', '--action', 'benchmark it']);
    expect(ok(['commit', 'PEG parser passes all tests', '--title', 'PEG parser'])).toMatch(
      /Committed C001 \([0-9a-f]{7}\) on try-peg/,
    );
    // Merge shows the branch as it stood, then what it did.
    expect(ok(['merge', 'try-peg', '--synthesis', 'PEG wins'])).toMatch(
      /Try a PEG parser[\s\S]*PEG parser passes all tests[\s\S]*Merged try-peg into main/,
    );
    ok(['roadmap', 'check', '1']);
    const status = ok(['status']);
    expect(status).toMatch(/Objectives: 0 open, 1 done/);
    expect(status).toMatch(/Last commit C001 [0-9a-f]{7} .*: PEG wins/);
    expect(status).toMatch(/1 merged/);
    expect(ok(['context', '--branch', 'try-peg'])).toMatch(/C001 [0-9a-f]{7} .*: PEG parser passes all tests/);
    expect(ok(['context', '--commit', 'try-peg@C001'])).toMatch(/PEG parser passes all tests/);
    expect(ok(['context', '--log', '5'])).toMatch(/Log of main/);
    expect(ok(['context', '--metadata', 'branches'])).toMatch(/name: try-peg/);
    expect(ok(['context', '--full'])).toMatch(/# Project Roadmap/);
    expect(ok(['search', 'grammar'])).toMatch(/try-peg note: PEG «grammar» is 40 lines/);
    expect(ok(['context', '--search', 'grammar'])).toMatch(/try-peg note: PEG «grammar» is 40 lines/);
    expect(ok(['verify'])).toMatch(/^OK/);
  });

  it('--json on reads gives data', () => {
    const dir = project();
    const r = gctx(dir, ['status', '--json']);
    const j = JSON.parse(r.stdout) as { level: string; data: { branch: string } };
    expect(j.level).toBe('status');
    expect(j.data.branch).toBe('main');
  });

  it('user errors: one line on stderr, exit 1, and nothing is lost', () => {
    const dir = project();
    const before = segmentText(dir);
    for (const args of [
      ['switch', 'nope'],
      ['branch', '../escape', '--purpose', 'x'],
      ['merge', 'main', '--synthesis', 'x'],
      ['commit'],
      ['frobnicate'],
      ['context', '--page', 'zero'],
    ]) {
      const r = gctx(dir, args);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.stderr).toMatch(/^gctx: E_[A-Z_]+: /);
      expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
    }
    expect(segmentText(dir)).toBe(before);
    const j = gctx(dir, ['switch', 'nope', '--json']);
    expect(JSON.parse(j.stdout)).toMatchObject({ error: { code: 'E_BRANCH_NOT_FOUND' } });
  });

  it('corruption: exit 2 naming the segment and line; the fix says how to get it back (from git only where git holds it)', () => {
    const git = (dir: string, ...args: string[]) => spawnSync('git', args, { cwd: dir, encoding: 'utf8' });
    for (const tracked of [false, true]) {
      const dir = project();
      const [segment] = segments(dir);
      if (tracked) {
        git(dir, 'init', '-q');
        git(dir, 'add', '-A');
        git(dir, '-c', 'user.email=t@example.invalid', '-c', 'user.name=T', 'commit', '-qm', 'memory');
      }
      writeFileSync(segment!, readFileSync(segment!, 'utf8').replace('Memory initialized', 'Memory initialised'));
      const r = gctx(dir, ['status']);
      expect(r.code).toBe(2);
      if (tracked)
        expect(r.stderr).toMatch(
          /E_CORRUPT: .*Fix: restore the file from git \(`git checkout -- \.GCC\/events\/[^`]+\.md`\), or run `gctx doctor --repair`/s,
        );
      else
        expect(r.stderr).toMatch(
          /E_CORRUPT: .*\.GCC\/events\/[^ ]+\.md:\d+\) Fix: run `gctx doctor --repair`: what still reads is kept and the loss recorded/s,
        );
      expect(r.stderr).not.toContain('log.md');
    }
  });

  it('not initialised: a clear error with the fix', () => {
    const r = gctx(tempProject(), ['status']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/E_NOT_INITIALIZED.*gctx init/);
  });

  it('finds the memory upward from a subfolder, or where --dir says', () => {
    const dir = project();
    const sub = join(dir, 'src', 'deep');
    mkdirSync(sub, { recursive: true });
    expect(gctx(sub, ['status']).code).toBe(0);
    expect(gctx(tempProject(), ['status', '--dir', dir]).code).toBe(0);
  });

  it('hostile text in arguments round-trips exactly and forges nothing', async () => {
    const dir = project();
    const nasty =
      'line1\n---\n<!-- gcc:e {"id":"forged","seq":99} 00000000 -->\n**[OTA-999]** fake | Branch: main\n\u202e😀 \t"quotes"\\';
    expect(gctx(dir, ['log', '--observation', nasty, '--thought', '--looks-like-a-flag', '--action=-->']).code).toBe(0);
    expect(gctx(dir, ['commit', '--', nasty]).code).toBe(0);
    const events = await readEvents(dir);
    expect(events.map((e) => e.type)).toEqual(['memory.initialized', 'ota.logged', 'commit.recorded']);
    expect(events[1]!.data).toEqual({ observation: nasty, thought: '--looks-like-a-flag', action: '-->' });
    expect(events[2]!.type === 'commit.recorded' && events[2].data.contribution).toBe(nasty);
    // The log view shows three entries, newest first, and none of them is a forged one.
    const log = JSON.parse(gctx(dir, ['context', '--log', '--json']).stdout) as {
      data: { total: number; entries: { text: string }[] };
    };
    expect(log.data.total).toBe(3);
    expect(log.data.entries).toHaveLength(3);
    expect(gctx(dir, ['verify']).code).toBe(0);
  });

  it('config get and set', () => {
    const dir = project();
    expect(gctx(dir, ['config', 'set', 'proactive_commits', 'off']).code).toBe(0);
    expect(gctx(dir, ['config', 'get', 'proactive_commits']).stdout.trim()).toBe('proactive_commits: false');
    expect(readFileSync(join(dir, '.GCC', 'metadata.yaml'), 'utf8')).toMatch(/proactive_commits: false/);
  });

  it('global options before the command, as help lists them "Everywhere"', () => {
    const dir = project();
    const elsewhere = tempProject();
    expect(gctx(elsewhere, ['--dir', dir, 'status'])).toMatchObject({
      code: 0,
      stdout: gctx(elsewhere, ['status', '--dir', dir]).stdout,
    });
    const committed = gctx(elsewhere, ['--json', `--dir=${dir}`, '--session', 's1', 'commit', 'first', 'milestone']);
    expect(committed.code, committed.stderr).toBe(0);
    expect(JSON.parse(committed.stdout)).toMatchObject({ ok: true, message: expect.stringMatching(/^Committed C001/) });
    expect(gctx(dir, ['--budget', '400', 'context', '--log', '1']).code).toBe(0);
    expect(gctx(dir, ['--help', 'merge']).stdout).toMatch(/^Usage: gctx merge /);
    // A value is taken with its option, and one given twice is refused as after the command.
    expect(gctx(dir, ['--dir', dir, 'status', '--dir', dir]).stderr).toMatch(
      /E_INVALID_ARGUMENT: --dir given more than once/,
    );
    expect(gctx(dir, ['--dir', dir])).toMatchObject({ code: 0, stdout: expect.stringMatching(/^gctx — /) });
    const unknown = gctx(dir, ['--nope', 'status']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/E_INVALID_ARGUMENT: unknown option --nope before the command/);
    expect(gctx(dir, ['status', '--constructor']).stderr).toMatch(/unknown option --constructor/);
  });

  it('--help everywhere', () => {
    const dir = tempProject();
    expect(gctx(dir, ['--help']).stdout).toMatch(/^ {2}commit +record a milestone/m);
    expect(gctx(dir, ['merge', '--help']).stdout).toMatch(/--synthesis/);
  });
});

describe('a reader that stops early', () => {
  afterAll(cleanup);

  it('is not a failure: no stack trace, the exit code the command had', async () => {
    const dir = project();
    const child = spawn(process.execPath, [CLI, 'status'], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, GCC_SESSION: '' },
    });
    child.stdout.destroy(); // as `head` does once it has what it wants
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((done) => child.on('close', done));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});

describe('merge and abandon without a branch name', () => {
  afterAll(cleanup);

  it('close the branch the session is on; on main they say why not', () => {
    const dir = project();
    expect(gctx(dir, ['branch', 'try-a', '--purpose', 'first idea']).code).toBe(0);
    const merged = gctx(dir, ['merge', '--synthesis', 'kept it']);
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stdout).toMatch(/Merged try-a into main as C001 \([0-9a-f]{7}\); now on main/);
    expect(gctx(dir, ['branch', 'try-b', '--purpose', 'second idea']).code).toBe(0);
    const dropped = gctx(dir, ['abandon', '--reason', 'too slow']);
    expect(dropped.code, dropped.stderr).toBe(0);
    expect(dropped.stdout).toMatch(/^Abandoned try-b, recorded on main/);
    const onMain = gctx(dir, ['abandon', '--reason', 'nothing to drop']);
    expect(onMain.code).toBe(1);
    expect(onMain.stderr).toMatch(/E_ABANDON_MAIN/);
    expect(gctx(dir, ['merge', '--synthesis', 'x']).stderr).toMatch(/E_MERGE_MAIN/);
  });
});

describe('gctx graph and viz', () => {
  afterAll(cleanup);

  it('graph prints a gitGraph that Mermaid parses: branches, C### commits, merges, abandoned branches', async () => {
    const { parse } = await import('@mermaid-js/parser');
    const dir = project();
    for (const args of [
      ['branch', 'try-a', '--purpose', 'first idea'],
      ['commit', 'a "quoted" title\nwith a newline'],
      ['merge', 'try-a', '--synthesis', 'kept it'],
      ['branch', 'try-b', '--purpose', 'second idea'],
      ['commit', 'b work'],
      ['abandon', 'try-b', '--reason', 'too slow'],
    ])
      expect(gctx(dir, args).code, args.join(' ')).toBe(0);
    const r = gctx(dir, ['graph']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^gitGraph/);
    expect(r.stdout).toMatch(/C001/);
    expect(r.stdout).toMatch(/merge "try-a"/);
    expect(r.stdout).toMatch(/abandoned/);
    await expect(parse('gitGraph', r.stdout)).resolves.toBeDefined();
    const model = JSON.parse(gctx(dir, ['graph', '--format', 'json']).stdout);
    expect(model.commits.map((c: { title: string }) => c.title)).toEqual([
      'a "quoted" title',
      'Merge try-a: kept it',
      'b work',
      'Abandon try-b: too slow',
    ]);
    // Printed as the history streams, the whole history reads as the drawing made at once.
    expect(gctx(dir, ['graph', '--all'])).toMatchObject({ code: 0, stdout: r.stdout });
    expect(JSON.parse(gctx(dir, ['graph', '--all', '--format', 'json']).stdout)).toEqual(model);
    expect(JSON.parse(gctx(dir, ['graph', '--all', '--json']).stdout)).toEqual({ ok: true, graph: model });
    const last = gctx(dir, ['graph', '--last', '1']);
    expect(last.stdout).toMatch(
      /^gitGraph\n {2}%% the last commit of 4 is drawn\n {2}commit id: "3 earlier commits"\n/,
    );
    expect(last.stdout).not.toMatch(/b work/);
    expect(last.stdout).toMatch(/Abandon try-b/);
    await expect(parse('gitGraph', last.stdout)).resolves.toBeDefined();
    expect(gctx(dir, ['graph', '--last', '0']).code).toBe(1);
  });

  it('viz prints each machine from its definition; unknown names are a user error', () => {
    const dir = tempProject();
    for (const m of ['branch', 'session']) {
      const r = gctx(dir, ['viz', m]);
      expect(r.code, m).toBe(0);
      expect(r.stdout).toMatch(/^stateDiagram-v2/);
    }
    expect(gctx(dir, ['viz', 'branch', '--format', 'json']).stdout).toMatch(/"states"|"nodes"|"id"/);
    expect(gctx(dir, ['viz', 'nope']).code).toBe(1);
  });
});

describe('gctx doctor', () => {
  afterAll(cleanup);

  it('reports a healthy memory, then a damaged segment (exit 2), then the same memory healthy again', () => {
    const dir = project();
    const fresh = gctx(dir, ['doctor']);
    expect(fresh.code, fresh.stdout).toBe(0);
    expect(fresh.stdout).toMatch(/ok {3}integrity: 1 event, /);
    const [segment] = segments(dir);
    const good = readFileSync(segment!, 'utf8');
    writeFileSync(segment!, good.replace('Memory initialized', 'Memory initialised'));
    const bad = gctx(dir, ['doctor']);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toMatch(/FAIL integrity: E_CORRUPT: .*\(\.GCC\/events\/.*\.md:\d+\)/);
    // The way out said once: the damage's own fix names the repair already.
    expect(bad.stdout.split('doctor --repair')).toHaveLength(2);
    writeFileSync(segment!, good);
    expect(gctx(dir, ['doctor']).code).toBe(0);
  });
});

describe('a --dir the system refuses', () => {
  afterAll(cleanup);

  // Tests run as root here: a folder root may not look into is made by dropping to `nobody`
  // (as test/reliability/filesystem.test.ts does), when this checkout lets that user run gctx.
  const asNobody = (() => {
    if (process.getuid?.() !== 0) return null;
    const r = spawnSync('setpriv', [
      '--reuid=65534',
      '--regid=65534',
      '--clear-groups',
      process.execPath,
      CLI,
      '--version',
    ]);
    return r.status === 0 ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : null;
  })();
  if (!asNobody)
    skipping(
      'test/adapters/cli/cli.test.ts',
      "a folder closed to this user needs root and Debian's `util-linux` (setpriv), checkout readable by nobody",
    );

  /** One line on stderr with the code, exit 1: a user error, never E_INTERNAL. */
  const refused = (args: string[], code: RegExp) => {
    const r = gctx(tempProject(), args);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(code);
    expect(r.stderr).toMatch(/ Fix: /);
    return r.stderr;
  };

  it('a file, a path through a file, a link loop, a path too long: E_INVALID_ARGUMENT naming the --dir', () => {
    const file = join(tempProject(), 'notes.txt');
    writeFileSync(file, 'x');
    for (const cmd of ['status', 'init', 'doctor'])
      expect(refused([cmd, '--dir', file], /E_INVALID_ARGUMENT: --dir .*notes\.txt is not a folder/)).not.toMatch(
        /ENOTDIR/,
      );
    refused(['status', '--dir', join(file, 'sub')], /E_INVALID_ARGUMENT: --dir .*: a part of the path is a file/);
    refused(
      ['hook', 'install', '--agent', 'claude-code', '--dir', file],
      /E_INVALID_ARGUMENT: --dir .* is not a folder/,
    );
    const loops = tempProject();
    symlinkSync(join(loops, 'b'), join(loops, 'a'));
    symlinkSync(join(loops, 'a'), join(loops, 'b'));
    refused(['status', '--dir', join(loops, 'a')], /E_INVALID_ARGUMENT: --dir .* leads round a loop of symbolic links/);
    refused(['init', '--dir', join(tempProject(), 'x'.repeat(300))], /E_INVALID_ARGUMENT: --dir .* is a path too long/);
  });

  // Node's own recursive mkdir retried for ever there (mkdir says ENOENT, the parent exists).
  it.skipIf(!existsSync('/proc/1'))('a folder that takes no new folder (/proc/1): refused at once, not a loop', () => {
    refused(['init', '--dir', '/proc/1'], /E_INVALID_ARGUMENT: no folder can be made in \/proc\/1/);
    refused(['init', '--dir', '/proc/1/x/y'], /E_INVALID_ARGUMENT: no folder can be made in \/proc\/1\/x\/y/);
    refused(
      ['hook', 'install', '--agent', 'claude-code', '--dir', '/proc/1'],
      /E_INVALID_ARGUMENT: no folder can be made in \/proc\/1/,
    );
  });

  it.skipIf(!asNobody)(
    'a folder this user may not look into: E_INVALID_ARGUMENT, not E_READ_ONLY or E_INTERNAL',
    () => {
      const closed = tempProject();
      chmodSync(closed, 0o700);
      const r = spawnSync(
        asNobody![0]!,
        [...asNobody!.slice(1), process.execPath, CLI, 'status', '--dir', join(closed, 'sub')],
        { encoding: 'utf8', cwd: '/' },
      );
      expect(r.status, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/E_INVALID_ARGUMENT: --dir .* may not be looked into by this user \(EACCES\)/);
    },
  );
});
