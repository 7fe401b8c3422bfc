/**
 * The store as the safety net: whatever git or shell command is run in the work tree, no event
 * this clone acknowledged is lost, no command exits 2, every hook is recorded, and verify
 * passes after. Real git, the built CLI, the real `gctx hook` process.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Sandbox } from './support.js';
import { runs } from '../../support/runs.js';

const T = 600_000;

function sandbox(): Sandbox {
  return new Sandbox(mkdtempSync(join(tmpdir(), 'gcc-net-')));
}

/** A repository with a committed memory, on main. */
function repo(s: Sandbox, name = 'w'): string {
  const dir = join(s.root, name);
  s.git(s.root, 'init', '-q', '-b', 'main', dir);
  s.identity(dir, name);
  s.ok(dir, 'init');
  writeFileSync(join(dir, 'code.txt'), 'one\n');
  s.commitAll(dir, 'start');
  return dir;
}

let n = 0;
/** Record an observation through the CLI; its text, to look for later. */
function note(s: Sandbox, dir: string): string {
  const text = `observation-${++n}-${Math.random().toString(36).slice(2, 8)}`;
  const r = s.gctx(dir, 'log', '--observation', text);
  expect(r.status, r.stderr).toBe(0);
  return text;
}

/** A PostToolUse through the real hook process; the command's text, to look for later. */
function hook(s: Sandbox, dir: string): string {
  const text = `tool-run-${++n}-${Math.random().toString(36).slice(2, 8)}`;
  const r = s.hook(dir, 'claude-code', {
    session_id: 'net-session',
    cwd: dir,
    hook_event_name: 'PostToolUse',
    tool_name: 'Bash',
    tool_input: { command: `echo ${text}` },
    tool_response: { stdout: 'ok', stderr: '', interrupted: false, isImage: false },
    tool_use_id: `toolu_${text}`,
  });
  expect(r.status, r.stderr).toBe(0);
  return text;
}

/** Every event's JSON, as the CLI's own replay reads the memory (through a real open). */
function memoryText(s: Sandbox, dir: string): { text: string; stderr: string } {
  const r = s.gctx(dir, 'status');
  expect(r.status, r.stderr).toBe(0);
  const events = execFileSync(
    process.execPath,
    [
      '-e',
      `import('${join(import.meta.dirname, '..', '..', '..', 'dist', 'index.js')}').then(async ({ Memory }) => { const m = await Memory.open(process.argv[1]); process.stdout.write(JSON.stringify(m.events())); m.close(); })`,
      dir,
    ],
    { cwd: dir, env: s.env, encoding: 'utf8' },
  );
  return { text: events, stderr: r.stderr };
}

function expectAll(s: Sandbox, dir: string, texts: readonly string[]): string {
  const { text, stderr } = memoryText(s, dir);
  for (const t of texts) expect(text, `${t} lost`).toContain(t);
  const v = s.gctx(dir, 'verify');
  expect(v.status, `${v.stdout}${v.stderr}`).toBe(0);
  return stderr;
}

describe('no work-tree command loses an acknowledged event', () => {
  it('git stash -u, hooks in the window, git stash pop', { timeout: T }, () => {
    const s = sandbox();
    const dir = repo(s);
    const before = [note(s, dir), hook(s, dir)];
    writeFileSync(join(dir, 'code.txt'), 'two\n');
    s.git(dir, 'stash', '-u');
    const during = [hook(s, dir), hook(s, dir), note(s, dir)];
    expectAll(s, dir, [...before, ...during]);
    s.git(dir, 'stash', 'pop');
    expectAll(s, dir, [...before, ...during, hook(s, dir)]);
  });

  it('git stash -u, then the stash dropped: restored from the journal', { timeout: T }, () => {
    const s = sandbox();
    const dir = repo(s);
    const before = [note(s, dir), hook(s, dir)];
    s.git(dir, 'stash', '-u');
    s.git(dir, 'stash', 'drop');
    const r = s.gctx(dir, 'status');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain('restored');
    expectAll(s, dir, [...before, note(s, dir)]);
  });

  it('git checkout ., git clean -fdx, rm -rf .GCC', { timeout: T }, () => {
    const s = sandbox();
    const dir = repo(s);
    const texts = [note(s, dir), hook(s, dir)];
    s.git(dir, 'checkout', '.');
    texts.push(note(s, dir));
    s.git(dir, 'clean', '-fdxq');
    texts.push(hook(s, dir));
    expectAll(s, dir, texts);
    rmSync(join(dir, '.GCC'), { recursive: true, force: true });
    texts.push(hook(s, dir));
    expectAll(s, dir, texts);
  });

  it('git reset --hard with a staged segment', { timeout: T }, () => {
    const s = sandbox();
    const dir = repo(s);
    const texts = [note(s, dir), hook(s, dir)];
    s.git(dir, 'add', '-A');
    s.git(dir, 'reset', '-q', '--hard');
    texts.push(hook(s, dir));
    expectAll(s, dir, texts);
  });

  it('an old copy of .GCC extracted over it', { timeout: T }, () => {
    const s = sandbox();
    const dir = repo(s);
    const texts = [note(s, dir)];
    const archive = join(s.root, 'old.tar');
    execFileSync('tar', ['-cf', archive, '.GCC'], { cwd: dir });
    texts.push(note(s, dir), hook(s, dir));
    execFileSync('tar', ['-xf', archive], { cwd: dir });
    const said = expectAll(s, dir, texts);
    expect(said).toContain('restored');
  });

  it('in-place damage to the open segment is restored from the journal', { timeout: T }, () => {
    const s = sandbox();
    const dir = repo(s);
    const texts = [note(s, dir), note(s, dir)];
    const ledger = JSON.parse(readFileSync(join(dir, '.GCC', '.local', 'ledger.json'), 'utf8')) as { open: string };
    const seg = join(dir, '.GCC', 'events', ledger.open);
    const bytes = readFileSync(seg);
    bytes.fill(0, 10, 40);
    writeFileSync(seg, bytes);
    expectAll(s, dir, texts);
  });

  it('a push rejected, then git fetch; git reset --hard origin/main', { timeout: T }, () => {
    const s = sandbox();
    const origin = s.origin();
    const a = s.clone(origin, 'a');
    const b = s.clone(origin, 'b');
    const mine = [note(s, a), hook(s, a)];
    s.commitAll(a, 'my memory');
    s.ok(b, 'log', '--observation', 'theirs');
    s.commitAll(b, 'their memory');
    s.git(b, 'push', '-q', 'origin', 'main');
    expect(s.tryGit(a, 'push', '-q', 'origin', 'main').status).not.toBe(0);
    s.git(a, 'fetch', '-q');
    s.git(a, 'reset', '-q', '--hard', 'origin/main');
    mine.push(hook(s, a));
    expectAll(s, a, [...mine, 'theirs']);
  });

  it("a teammate's revert of a memory commit, reaching this clone by a merge: it stays removed", { timeout: T }, () => {
    const s = sandbox();
    const origin = s.origin();
    const a = s.clone(origin, 'a');
    const b = s.clone(origin, 'b');
    const reverted = note(s, a);
    s.commitAll(a, 'memory to revert');
    s.git(a, 'push', '-q', 'origin', 'main');
    s.git(b, 'pull', '-q', '--no-rebase', 'origin', 'main');
    s.git(b, 'revert', '--no-edit', 'HEAD');
    s.git(b, 'push', '-q', 'origin', 'main');
    // This clone moved on meanwhile: the merge's first parent never lost the segment, its second removed it.
    writeFileSync(join(a, 'code.txt'), 'mine\n');
    s.commitAll(a, 'code');
    const kept = note(s, a);
    s.git(a, 'pull', '-q', '--no-rebase', '--no-edit', 'origin', 'main');
    const { text, stderr } = memoryText(s, a);
    expect(text).not.toContain(reverted);
    expect(text).toContain(kept);
    expect(stderr).toContain('removed by commit');
    expect(stderr).not.toContain('restore');
    // Said once.
    expect(memoryText(s, a).stderr).not.toContain('removed by commit');
    expect(s.gctx(a, 'verify').status).toBe(0);
  });

  it('git checkout of another branch and back: memory follows the code', { timeout: T }, () => {
    const s = sandbox();
    const dir = repo(s);
    s.git(dir, 'checkout', '-q', '-b', 'feature');
    const onFeature = note(s, dir);
    s.commitAll(dir, 'feature memory');
    s.git(dir, 'checkout', '-q', 'main');
    const onMain = memoryText(s, dir);
    expect(onMain.text).not.toContain(onFeature);
    expect(onMain.stderr).not.toContain('restored');
    const uncommitted = hook(s, dir);
    s.git(dir, 'checkout', '-q', 'feature');
    expectAll(s, dir, [onFeature, uncommitted]);
  });
});

describe('doctor --repair never takes a copy holding less than was acknowledged as whole', () => {
  it('a stash copy with fewer events than acknowledged: restored, the shortfall recorded as a loss', {
    timeout: T,
  }, () => {
    const s = sandbox();
    const dir = repo(s);
    note(s, dir);
    note(s, dir);
    s.git(dir, 'stash', '-u');
    s.git(dir, 'stash', 'apply', '-q');
    note(s, dir); // appended past what the stash holds
    const ledger = JSON.parse(readFileSync(join(dir, '.GCC', '.local', 'ledger.json'), 'utf8')) as { open: string };
    // No journal (as for another clone's segment): git's copies are all there is.
    rmSync(join(s.git(dir, 'rev-parse', '--absolute-git-dir').trim(), 'gcc'), { recursive: true, force: true });
    rmSync(join(dir, '.GCC', 'events', ledger.open));
    expect(s.gctx(dir, 'status').status).toBe(2);
    const r = s.gctx(dir, 'doctor', '--repair');
    expect(r.stdout).toMatch(/1 event lost, recorded/);
    expect(s.gctx(dir, 'verify').status).toBe(0);
    expect(memoryText(s, dir).text).toContain('memory.repaired');
  });
});

describe('property: any sequence of work-tree commands between appends keeps every acknowledged event', () => {
  type Step =
    | 'note'
    | 'hook'
    | 'commit'
    | 'stash'
    | 'pop'
    | 'checkout'
    | 'clean'
    | 'reset'
    | 'rmGcc'
    | 'tarSave'
    | 'tarExtract';
  const steps: Step[] = [
    'note',
    'hook',
    'commit',
    'stash',
    'pop',
    'checkout',
    'clean',
    'reset',
    'rmGcc',
    'tarSave',
    'tarExtract',
  ];

  it('acknowledged ids stay visible; no exit 2; verify OK', { timeout: 900_000 }, () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...steps), { minLength: 4, maxLength: 9 }), (seq) => {
        const s = sandbox();
        const dir = repo(s);
        const archive = join(s.root, 'copy.tar');
        let saved = false;
        const acknowledged: string[] = [note(s, dir)];
        for (const step of seq) {
          if (step === 'note') acknowledged.push(note(s, dir));
          else if (step === 'hook') acknowledged.push(hook(s, dir));
          else if (step === 'commit') {
            // Committed as a person does while hooks run (a committed removal stays removed, by design).
            expect(s.gctx(dir, 'status').status).toBe(0);
            s.git(dir, 'add', '-A');
            s.tryGit(dir, 'commit', '-qm', 'memory');
          } else if (step === 'stash') s.tryGit(dir, 'stash', '-u');
          else if (step === 'pop') s.tryGit(dir, 'stash', 'pop');
          else if (step === 'checkout') s.git(dir, 'checkout', '.');
          else if (step === 'clean') s.git(dir, 'clean', '-fdxq');
          else if (step === 'reset') {
            s.git(dir, 'add', '-A');
            s.git(dir, 'reset', '-q', '--hard');
          } else if (step === 'rmGcc') rmSync(join(dir, '.GCC'), { recursive: true, force: true });
          else if (step === 'tarSave')
            saved ||= spawnSync('tar', ['-cf', archive, '.GCC'], { cwd: dir, stdio: 'ignore' }).status === 0;
          else if (saved) execFileSync('tar', ['-xf', archive], { cwd: dir, stdio: 'ignore' });
        }
        acknowledged.push(hook(s, dir));
        expectAll(s, dir, acknowledged);
        rmSync(s.root, { recursive: true, force: true });
      }),
      { numRuns: Number(process.env.GCC_NET_RUNS ?? runs(2, 20)) },
    );
  });
});

describe('a process that stays open', () => {
  it('reads and writes on across git stash -u, git clean -fdx and git stash pop', { timeout: T }, async () => {
    const { Memory } = await import('../../../src/engine/memory.js');
    const s = sandbox();
    const dir = repo(s);
    const texts = [note(s, dir)];
    const m = await Memory.open(dir, { search: 'on-demand' });
    try {
      const has = (t: string) => {
        m.refresh();
        return m.events().some((e) => JSON.stringify(e).includes(t));
      };
      s.git(dir, 'stash', '-u');
      expect(texts.every(has)).toBe(true); // a read, without the lock
      await m.execute({ type: 'log', observation: 'written while stashed', thought: '', action: '' });
      s.git(dir, 'clean', '-fdxq');
      await m.execute({ type: 'log', observation: 'written after the clean', thought: '', action: '' });
      s.git(dir, 'stash', 'pop');
      for (const t of [...texts, 'written while stashed', 'written after the clean']) expect(has(t), t).toBe(true);
    } finally {
      m.close();
    }
    expect(s.gctx(dir, 'verify').status).toBe(0);
  });
});

describe('the journal is trimmed once git holds a segment for good', () => {
  it('copies of segments a remote-tracking ref reaches whole are dropped; the open one stays', { timeout: T }, () => {
    const s = sandbox();
    const origin = s.origin();
    const a = s.clone(origin, 'a');
    for (let i = 0; i < 10; i++) {
      note(s, a);
      s.git(a, 'add', '-A'); // git has seen the open segment: the next append starts another
    }
    const journal = join(s.git(a, 'rev-parse', '--absolute-git-dir').trim(), 'gcc');
    const copies = () =>
      execFileSync('find', [journal, '-name', '*.md', '-path', '*/journal/2*'], { encoding: 'utf8' })
        .split('\n')
        .filter(Boolean);
    expect(copies().length).toBeGreaterThan(8);
    s.commitAll(a, 'memory');
    s.git(a, 'push', '-q', 'origin', 'main');
    const texts = [note(s, a)];
    expectAll(s, a, texts);
    expect(copies().length).toBeLessThanOrEqual(2);
  });
});
