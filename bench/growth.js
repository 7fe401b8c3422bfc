/**
 * How much a busy agent's memory adds to the git object store: tool calls recorded through the
 * engine (as the hook records them, with its bounds on input and result), a memory commit and
 * a git commit every few dozen calls, as an agent working in a repository does. Reported per
 * 1,000 tool calls, loose (as each git commit leaves it) and packed (after `git gc`), and as a
 * month of a busy agent. Each git commit adds only new segment files: no committed file is
 * ever rewritten, so nothing grows with what is already there.
 */
import { execFileSync } from 'node:child_process';
import { Memory } from '../dist/index.js';
import { fmt, prng, removeDir, tempDir } from './lib.js';

export const title = 'Growth of the git object store per 1,000 tool calls';

const WORDS =
  'parser cache lock replay index branch merge token budget schema writer reader tail crc fsync retry commit context test build'.split(
    ' ',
  );

function git(cwd, ...args) {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' },
  });
}

/**
 * Bytes the object store holds for its objects (zlib-compressed loose objects, or their share
 * of a pack), summed over every object — not the disk blocks loose files round up to.
 */
function objects(dir) {
  const out = git(dir, 'cat-file', '--batch-all-objects', '--batch-check=%(objectsize:disk)').trim();
  return out ? out.split('\n').reduce((n, l) => n + Number(l), 0) : 0;
}

export async function run({ quick = false, long = false } = {}) {
  const calls = quick ? 1_000 : long ? 20_000 : 5_000;
  const every = 40; // tool calls between git commits
  const dir = tempDir('gcc-growth-');
  const rng = prng(7);
  const words = (n) => Array.from({ length: n }, () => WORDS[Math.floor(rng() * WORDS.length)]).join(' ');
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.email', 'bench@example.invalid');
  git(dir, 'config', 'user.name', 'bench');
  git(dir, 'config', 'gc.auto', '0');
  const m = await Memory.open(dir, { create: true });
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'start');
  const start = objects(dir);
  let gitCommits = 0;
  for (let i = 1; i <= calls; i++) {
    const edit = rng() < 0.4;
    const path = `src/${WORDS[Math.floor(rng() * WORDS.length)]}/${Math.floor(rng() * 30)}.ts`;
    await m.execute({
      type: 'record-tool',
      tool: edit ? 'Edit' : 'Bash',
      input: edit ? path : `npm test -- ${words(3)}`,
      // What the hook keeps of a result: at most 400 characters (1,500 for a failure).
      result: edit ? 'The file has been updated.' : words(Math.floor(20 + rng() * 50)).slice(0, 400),
      isError: rng() < 0.05,
      files: edit ? [{ path, added: 1 + Math.floor(rng() * 9), removed: Math.floor(rng() * 5) }] : [],
      host: 'claude-code',
    });
    if (i % every === 0) {
      await m.execute({ type: 'commit', contribution: `${words(10)}.\n${words(30)}`, next: words(8) });
      git(dir, 'add', '-A');
      git(dir, 'commit', '-qm', `work ${i}`);
      gitCommits++;
    }
  }
  m.close();
  const loose = objects(dir);
  git(dir, 'gc', '-q', '--aggressive', '--prune=now');
  const packed = objects(dir);
  const raw = Number(execFileSync('du', ['-sb', `${dir}/.GCC/events`], { encoding: 'utf8' }).split('\t')[0]);
  const files = git(dir, 'ls-files', '.GCC').trim().split('\n').length;
  const changed = git(dir, 'log', '--diff-filter=M', '--name-only', '--format=', '--', '.GCC').trim();
  removeDir(dir);
  const per = (bytes) => (bytes / calls) * 1000;
  const perLoose = per(loose - start);
  const perPacked = per(packed);
  const perRaw = per(raw);
  // A busy agent: 5,000 tool calls a working day, 22 days a month.
  const month = 5_000 * 22;
  const rows = [
    ['segment files in the work tree (uncompressed)', fmt(perRaw / 1024, 1), fmt((perRaw * month) / 1000 / 2 ** 20, 1)],
    ['loose objects (as commits leave them)', fmt(perLoose / 1024, 1), fmt((perLoose * month) / 1000 / 2 ** 20, 1)],
    ['packed (after git gc)', fmt(perPacked / 1024, 1), fmt((perPacked * month) / 1000 / 2 ** 20, 1)],
  ];
  return {
    title,
    columns: ['object store', 'KiB per 1,000 tool calls', 'MiB per month of a busy agent (110,000 calls)'],
    rows,
    summary: `${calls.toLocaleString('en-US')} tool calls, ${gitCommits} git commits, ${files} committed memory files, ${changed ? 'some committed file modified (!)' : 'no committed memory file ever modified'}: ${fmt(perLoose / 1024, 1)} KiB loose / ${fmt(perPacked / 1024, 1)} KiB packed per 1,000 calls`,
    pass: changed === '',
    json: {
      calls,
      every,
      gitCommits,
      files,
      perThousandRaw: perRaw,
      perThousandLoose: perLoose,
      perThousandPacked: perPacked,
      monthCalls: month,
    },
  };
}
