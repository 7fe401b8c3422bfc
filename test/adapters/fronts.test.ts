/**
 * One catalogue, four front ends: the same small history, run through the command line (a
 * child process per call), MCP (the SDK client over `gctx mcp` stdio), Pi (the real host, the
 * scripted model calling gcc_* tools) and `/gcc` (typed into the real host), must leave the
 * same memory behind and get the same answers. Each front end writes its own project; what
 * differs only by nature (hashes, times, the read framing, Pi's session entries) is set aside
 * before comparing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GccEvent, isLocalType } from '../../src/events/types.js';
import { gctx } from '../support/cli.js';
import { readEvents } from '../support/events.js';
import { cleanup, tempProject } from '../support/tmp.js';
import { call as mcpCall, connect, textOf } from './mcp/client.js';
import { call, createHost, type Host, say } from './pi/harness.js';

interface Step {
  op: string;
  args: Record<string, string | string[]>;
  /** The same call in the command line's words (`/gcc` takes them too). */
  words: string[];
}

const HISTORY: Step[] = [
  {
    op: 'roadmap',
    args: { action: 'add', target: 'Parse the config format' },
    words: ['roadmap', 'add', 'Parse the config format'],
  },
  {
    op: 'commit',
    args: { contribution: 'Set up the parser skeleton', next: 'write the tokenizer' },
    words: ['commit', 'Set up the parser skeleton', '--next', 'write the tokenizer'],
  },
  {
    op: 'branch',
    args: { name: 'try-peg', purpose: 'Try a PEG grammar', hypotheses: ['shorter grammar'] },
    words: ['branch', 'try-peg', '--purpose', 'Try a PEG grammar', '--hypothesis', 'shorter grammar'],
  },
  {
    op: 'log',
    args: { observation: 'PEG is slow on big files', thought: 'backtracking', action: 'measure it' },
    words: ['log', '--observation', 'PEG is slow on big files', '--thought', 'backtracking', '--action', 'measure it'],
  },
  {
    op: 'commit',
    args: { contribution: 'PEG grammar drafted', title: 'PEG draft', check: ['1'] },
    words: ['commit', 'PEG grammar drafted', '--title', 'PEG draft', '--check', '1'],
  },
  {
    op: 'abandon',
    args: { branch: 'try-peg', reason: 'too slow on big files' },
    words: ['abandon', 'try-peg', '--reason', 'too slow on big files'],
  },
  { op: 'context', args: { level: 'status' }, words: ['status'] },
  { op: 'context', args: { level: 'branch', name: 'try-peg' }, words: ['context', '--branch', 'try-peg'] },
  { op: 'context', args: { level: 'full' }, words: ['context', '--full'] },
];

/** A word as `/gcc` reads it back (POSIX single quotes). */
const quote = (w: string) => (/^[\w.@/-]+$/.test(w) ? w : `'${w.replaceAll("'", `'\\''`)}'`);

/**
 * What differs by nature between two runs: hashes, times, the framing reads are handed over in,
 * the prompt only a Pi session records, and what `/gcc status` adds of the Pi session.
 */
function plain(text: string): string {
  return text
    .replace(/^The user's last request .*\n/m, '')
    .replace(/\n\nMemory session: [^]*$/, '')
    .replace(/^<gcc-memory source="[^"]*">\n[^\n]*\n/, '')
    .replace(/\n<\/gcc-memory>$/, '')
    .replace(/\b[0-9a-f]{7}\b/g, '<hash>')
    .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, '<time>')
    .replace(/\d{4}-\d\d-\d\d( \d\d:\d\d)?/g, '<time>')
    .replace(/\b\d\d-\d\d \d\d:\d\d\b/g, '<time>')
    .trimEnd();
}

type Front = 'cli' | 'mcp' | 'pi' | 'slash';
const FRONTS: Front[] = ['cli', 'mcp', 'pi', 'slash'];
const dirs = {} as Record<Front, string>;
const answers = {} as Record<Front, string[]>;
const hosts: Host[] = [];

async function runCli(dir: string): Promise<string[]> {
  return HISTORY.map((s) => {
    const r = gctx(dir, s.words);
    expect(r.code, `${s.words.join(' ')}: ${r.stderr}`).toBe(0);
    return r.stdout;
  });
}

async function runMcp(dir: string): Promise<string[]> {
  const c = await connect(dir);
  try {
    const out: string[] = [];
    for (const s of HISTORY) {
      const r = await mcpCall(c.client, s.op, s.args);
      expect(r.isError, `${s.op}: ${textOf(r)}`).toBeFalsy();
      out.push(textOf(r));
    }
    return out;
  } finally {
    await c.close();
  }
}

async function runPi(dir: string): Promise<string[]> {
  const h = await createHost({ cwd: dir });
  hosts.push(h);
  await h.turn('replay the history', [...HISTORY.map((s) => call(`gcc_${s.op}`, s.args)), say('done')]);
  const results = h.toolResults();
  expect(results.map((r) => [r.toolName, r.isError])).toEqual(HISTORY.map((s) => [`gcc_${s.op}`, false]));
  return results.map((r) => r.text);
}

async function runSlash(dir: string): Promise<string[]> {
  const h = await createHost({ cwd: dir });
  hosts.push(h);
  const out: string[] = [];
  for (const s of HISTORY) {
    await h.session().prompt(`/gcc ${s.words.map(quote).join(' ')}`);
    const shown = h
      .session()
      .sessionManager.getEntries()
      .flatMap((e) =>
        e.type === 'custom' && e.customType === 'gcc-output' ? [(e.data as { text: string }).text] : [],
      );
    out.push(shown.at(-1) ?? '');
  }
  expect(h.requests).toEqual([]);
  return out;
}

/** A log view of the project as `gctx context --log 50 --json` gives it, without what only a host session adds. */
function logOf(dir: string, branch: string): string[] {
  const r = gctx(dir, ['context', '--log', '50', '--on', branch, '--json']);
  expect(r.code, r.stderr).toBe(0);
  const { data } = JSON.parse(r.stdout) as { data: { entries: { text: string }[] } };
  return data.entries
    .map((e) => plain(e.text))
    .filter((t) => !/^<time> (Session (started|ended)|Context compacted|The user asked:) /.test(t));
}

/** The shared events (what travels through git), without ids, times and hashes. */
function shared(events: readonly GccEvent[]): unknown[] {
  return events
    .filter((e) => !isLocalType(e.type))
    .map((e) => {
      const data = JSON.parse(plain(JSON.stringify(e.data))) as Record<string, unknown>;
      if (e.type === 'objective.added' || e.type === 'objective.checked') delete data.id;
      if (e.type === 'memory.initialized') delete data.config;
      return { type: e.type, branch: e.branch, data };
    });
}

beforeAll(async () => {
  for (const f of FRONTS) {
    dirs[f] = tempProject(`gcc-front-${f}-`);
    expect(gctx(dirs[f], ['init']).code).toBe(0);
  }
  answers.cli = await runCli(dirs.cli);
  answers.mcp = await runMcp(dirs.mcp);
  answers.pi = await runPi(dirs.pi);
  answers.slash = await runSlash(dirs.slash);
});

afterAll(async () => {
  for (const h of hosts.splice(0)) await h.dispose();
  cleanup();
});

describe('the same history through every front end', () => {
  it('leaves the same events behind', async () => {
    const expected = shared(await readEvents(dirs.cli));
    expect(expected.map((e) => (e as { type: string }).type)).toEqual([
      'memory.initialized',
      'objective.added',
      'commit.recorded',
      'branch.created',
      'ota.logged',
      'commit.recorded',
      'objective.checked',
      'commit.recorded',
      'branch.abandoned',
    ]);
    for (const f of FRONTS) expect(shared(await readEvents(dirs[f])), f).toEqual(expected);
  });

  it('shows the same log of each branch, newest first', () => {
    for (const branch of ['main', 'try-peg']) {
      const expected = logOf(dirs.cli, branch);
      expect(expected.length).toBeGreaterThan(2);
      for (const f of FRONTS) expect(logOf(dirs[f], branch), `${f} ${branch}`).toEqual(expected);
    }
    // The abandon recorded on main (the session's move off the branch is its own, in no log).
    expect(logOf(dirs.cli, 'main').slice(0, 1)).toEqual([
      expect.stringMatching(/^<time> Commit C002 <hash>: Abandon try-peg: too slow on big files$/),
    ]);
  });

  it('answers every call the same, up to hashes, times and the framing of reads', () => {
    const expected = answers.cli.map(plain);
    for (const f of FRONTS) expect(answers[f].map(plain), f).toEqual(expected);
    // The substance, once: where memory stands after the abandon, and the failed approach.
    const [status, branchView, full] = expected.slice(-3);
    expect(status).toMatch(
      /^On memory branch main: [^]*Objectives: 0 open, 1 done[^]*Failed approaches[^]*try-peg \(<time>\): Try a PEG grammar — dropped: too slow on big files/,
    );
    expect(branchView).toMatch(
      /^Branch try-peg \[abandoned\] from main[^]*Abandoned <time>: too slow on big files[^]*C001 <hash> <time>: PEG grammar drafted/,
    );
    expect(full).toMatch(/## Failed Approaches[^]*try-peg[^]*too slow on big files/);
  });

  it('frames reads for models (MCP, Pi) and not for people (CLI, /gcc)', () => {
    const reads = HISTORY.flatMap((s, i) => (s.op === 'context' ? [i] : []));
    for (const i of reads) {
      for (const f of ['mcp', 'pi'] as const)
        expect(answers[f][i], `${f} ${i}`).toMatch(/^<gcc-memory source="\.GCC\/">\n[^]*\n<\/gcc-memory>$/);
      for (const f of ['cli', 'slash'] as const) expect(answers[f][i], `${f} ${i}`).not.toContain('<gcc-memory');
    }
  });
});
