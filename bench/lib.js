/**
 * Shared pieces of the benchmarks: statistics, tables, result files, and a fast way to
 * build a big, valid history. Benchmarks import the built library from ../dist/ (run
 * `npm run build` first; `npm run bench` does).
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  cpSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir, cpus, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decide } from '../dist/decider/decide.js';
import { evolveDraft } from '../dist/decider/evolve.js';
import { initialState } from '../dist/decider/state.js';
import { DEFAULT_CONFIG, FORMAT_VERSION, MAIN } from '../dist/events/types.js';
import { serialize } from '../dist/log/codec.js';
import { layout, newSegmentName } from '../dist/store/paths.js';
import { SEGMENT_MAX } from '../dist/store/append.js';
import { nextId } from '../dist/store/ids.js';
import { Memory } from '../dist/index.js';

export const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
export const ROOT = dirname(BENCH_DIR);
export const RESULTS_DIR = join(BENCH_DIR, 'results');
/** The `gctx` executable as installed (package.json's bin: the bundle). */
export const CLI = join(ROOT, JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).bin.gctx);

// ---------------------------------------------------------------- statistics

export function quantile(sorted, q) {
  if (sorted.length === 0) return NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

/** Median and spread of a sample: p10/p90, min/max, and the relative IQR. */
export function stats(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const median = quantile(s, 0.5);
  const q1 = quantile(s, 0.25);
  const q3 = quantile(s, 0.75);
  return {
    n: s.length,
    median,
    p10: quantile(s, 0.1),
    p90: quantile(s, 0.9),
    min: s[0],
    max: s[s.length - 1],
    iqrPct: median ? ((q3 - q1) / median) * 100 : 0,
  };
}

export const median = (xs) => stats(xs).median;

/** Time a synchronous or async function once, in milliseconds. */
export async function timeMs(fn) {
  const t0 = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

export function fmt(x, digits = 2) {
  if (typeof x !== 'number') return String(x);
  if (!Number.isFinite(x)) return String(x);
  if (Math.abs(x) >= 1000) return Math.round(x).toLocaleString('en-US');
  if (Math.abs(x) >= 100) return x.toFixed(Math.max(0, digits - 2));
  if (Math.abs(x) >= 10) return x.toFixed(Math.max(0, digits - 1));
  return x.toFixed(digits);
}

/** "median (p10–p90)" */
export function spread(st, digits = 2) {
  return `${fmt(st.median, digits)} (${fmt(st.p10, digits)}–${fmt(st.p90, digits)})`;
}

// ---------------------------------------------------------------- output

/** A markdown table: printable on a terminal and pasteable into docs/benchmarks.md. */
export function table(columns, rows) {
  const cells = [columns, ...rows.map((r) => r.map((c) => String(c)))];
  const widths = columns.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  const line = (r) => `| ${r.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [
    line(columns),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...rows.map((r) => line(r.map(String))),
  ].join('\n');
}

export function machine() {
  const c = cpus();
  return {
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    cpus: c.length,
    cpu: c[0]?.model ?? '?',
    memGiB: +(totalmem() / 2 ** 30).toFixed(1),
  };
}

/**
 * Where results go: bench/results/ for a full run; a `--quick` run (GCC_BENCH_QUICK=1, set by
 * run.js) writes beside it in a scratch folder, so the recorded results are never overwritten.
 */
export function resultsDir() {
  return process.env.GCC_BENCH_QUICK === '1' ? join(tmpdir(), 'gcc-bench-quick-results') : RESULTS_DIR;
}

/** Write <results>/<name>.json with the machine and the time. */
export function writeResult(name, data) {
  const dir = resultsDir();
  mkdirSync(dir, { recursive: true });
  const out = { bench: name, at: new Date().toISOString(), machine: machine(), ...data };
  writeFileSync(join(dir, `${name}.json`), `${JSON.stringify(out, null, 2)}\n`);
  return out;
}

// ---------------------------------------------------------------- fixtures

export function tempDir(prefix = 'gcc-bench-') {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function removeDir(dir) {
  rmSync(dir, { recursive: true, force: true });
}

const WORDS =
  'parser cache lock replay index branch merge token budget schema writer reader tail crc fsync retry commit context'.split(
    ' ',
  );
function words(rng, n) {
  let s = '';
  for (let i = 0; i < n; i++) s += (i ? ' ' : '') + WORDS[Math.floor(rng() * WORDS.length)];
  return s;
}

/** A small deterministic PRNG (mulberry32), so histories are the same from run to run. */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Build a history of about `events` events by running the real decider and fold in
 * memory and writing the logs with the real codec (the same bytes `execute` would append,
 * without 100,000 fsyncs): shared events into segments under `.GCC/events/` (a new one each
 * time one passes SEGMENT_MAX, as a writer does), local ones (branch switches) into the local
 * log. The mix is what an agent session produces: tool-call records with file edits, OTA
 * entries, a commit every `commitEvery` events, objectives, and now and then a branch with a
 * few commits that is merged or abandoned.
 * Returns the project directory (holding .GCC/) and counts.
 */
/**
 * `segmentEvents`: start a new segment after this many shared events, as a clone whose
 * segments git sees often does (each git commit seals the open one); by default segments
 * fill to SEGMENT_MAX.
 */
export async function buildHistory(
  dir,
  { events: target, commitEvery = 10, seed = 1, commitsOnly = false, objectives = 6, segmentEvents = Infinity } = {},
) {
  const rng = prng(seed);
  const l = layout(dir);
  mkdirSync(l.gcc, { recursive: true });
  // Shared events fill a segment of at most SEGMENT_MAX, as one clone's writer fills them, and
  // each is written out when the next starts; local ones are kept apart. The state is folded in
  // place (the decider only reads it), so a million events build in minutes, not hours.
  // Serialized as they come: the fold may share objects with the events it folds.
  let segment = '';
  let segmentFirst = '';
  let inSegment = 0;
  let segmentBytes = 0;
  let segments = 0;
  let bytes = 0;
  let local = '';
  let localSeq = 0;
  const state = initialState();
  let lastId = '';
  let t = Date.now() - target * 10 - 86_400_000;
  let count = 0;
  let commits = 0;
  const writeSegment = () => {
    if (!segment) return;
    segments++;
    const name = newSegmentName(new Date(Date.parse(segmentFirst)), segments.toString(16).padStart(6, '0'));
    const path = l.segment(name);
    mkdirSync(dirname(path), { recursive: true });
    bytes += Buffer.byteLength(segment);
    writeFileSync(path, segment);
    segment = '';
    segmentBytes = 0;
    inSegment = 0;
  };
  const push = (news, where = 'shared') => {
    if (news.length === 0) return;
    const shared = where === 'shared';
    if (shared && (segmentBytes >= SEGMENT_MAX || inSegment >= segmentEvents)) writeSegment();
    const seq0 = shared ? inSegment : localSeq;
    const at = new Date((t += 7));
    const envs = news.map((ev, i) => {
      lastId = nextId(lastId, at.getTime());
      const env = {
        id: lastId,
        seq: seq0 + i + 1,
        at: at.toISOString(),
        branch: ev.branch,
        type: ev.type,
        data: ev.data,
      };
      const more = news.length - 1 - i;
      if (more > 0) env.more = more;
      return env;
    });
    const text = serialize(envs);
    if (shared) {
      if (!segment) segmentFirst = envs[0].at;
      segment += text;
      segmentBytes += Buffer.byteLength(text);
      inSegment += envs.length;
    } else {
      local += text;
      localSeq += envs.length;
    }
    for (const e of envs) evolveDraft(state, e);
    count += envs.length;
  };
  const run = (cmd) => {
    const d = decide(state, cmd, { nonce: randomBytes(8).toString('hex') });
    if (!d.ok) throw d.error;
    push(d.shared);
    push(d.local, 'local');
    if (cmd.type === 'commit' || cmd.type === 'merge') commits++;
  };
  push([{ type: 'memory.initialized', data: { format: FORMAT_VERSION, config: { ...DEFAULT_CONFIG } }, branch: MAIN }]);
  for (let i = 0; i < objectives; i++)
    run({ type: 'roadmap', action: 'add', target: `Objective ${i + 1}: ${words(rng, 6)}` });
  let sinceCommit = 0;
  let branchNo = 0;
  let onBranch = null;
  let branchCommits = 0;
  while (commitsOnly ? commits < target : count < target) {
    if (commitsOnly) {
      run({
        type: 'commit',
        contribution: `Commit ${commits + 1}: ${words(rng, 30)}`,
        files: [{ path: `src/m${Math.floor(rng() * 200)}.ts`, added: 3, removed: 1 }],
      });
      continue;
    }
    if (sinceCommit >= commitEvery - 1) {
      run({
        type: 'commit',
        contribution: `${words(rng, 8)}.\n\n${words(rng, 40)}`,
        title: `Step ${commits + 1}: ${words(rng, 5)}`,
      });
      sinceCommit = 0;
      if (onBranch) {
        branchCommits++;
        if (branchCommits >= 3) {
          if (rng() < 0.75)
            run({ type: 'merge', branch: onBranch, synthesis: `Merged ${onBranch}: ${words(rng, 25)}` });
          else run({ type: 'abandon', branch: onBranch, reason: words(rng, 12) });
          onBranch = null;
        }
      } else if (rng() < 0.05) {
        onBranch = `exp-${++branchNo}`;
        branchCommits = 0;
        run({ type: 'branch', name: onBranch, purpose: `Try ${words(rng, 6)}`, hypotheses: [words(rng, 8)] });
      }
      continue;
    }
    if (rng() < 0.3) {
      run({ type: 'log', observation: words(rng, 20), thought: words(rng, 15), action: words(rng, 10) });
    } else {
      const edit = rng() < 0.5;
      const path = `src/${WORDS[Math.floor(rng() * WORDS.length)]}/${Math.floor(rng() * 20)}.ts`;
      run({
        type: 'record-tool',
        tool: edit ? 'edit' : 'bash',
        input: edit
          ? JSON.stringify({ path, oldText: words(rng, 6), newText: words(rng, 8) })
          : `npm test -- ${words(rng, 2)}`,
        result: words(rng, 30),
        isError: rng() < 0.05,
        files: edit ? [{ path, added: 1 + Math.floor(rng() * 9), removed: Math.floor(rng() * 5) }] : [],
        host: 'bench',
      });
    }
    sinceCommit++;
  }
  // Close a branch left open so the session ends on main.
  if (onBranch) run({ type: 'merge', branch: onBranch, synthesis: `Merged ${onBranch}` });
  writeSegment();
  if (local) {
    mkdirSync(l.local, { recursive: true });
    writeFileSync(l.localLog, local);
  }
  // Opening acknowledges every log and renders every view once, and leaves it settled.
  const m = await Memory.open(dir);
  const branches = Object.keys(m.state.branches).length;
  m.close();
  return { dir, events: count, commits, branches, segments, logBytes: bytes };
}

// ---------------------------------------------------------------- shared fixtures

/**
 * A fixture built once per harness run and shared by the benchmarks (each runs in its own
 * process): `GCC_BENCH_FIXTURES` names the folder; without it, a temporary one is used.
 * Read-only users take it as is; a benchmark that writes takes `fixtureCopy`.
 */
export async function fixture(key, opts) {
  let root = process.env.GCC_BENCH_FIXTURES;
  if (!root) {
    // Run on its own (not through bench/run.js): the fixtures live as long as this process.
    root = process.env.GCC_BENCH_FIXTURES = tempDir('gcc-bench-fixtures-');
    const own = root;
    process.on('exit', () => removeDir(own));
  }
  const dir = join(root, key);
  const done = join(dir, '.fixture.json');
  if (existsSync(done)) return JSON.parse(readFileSync(done, 'utf8'));
  removeDir(dir);
  mkdirSync(dir, { recursive: true });
  const info = await buildHistory(dir, opts);
  writeFileSync(done, JSON.stringify(info));
  return info;
}

/**
 * A writable copy of a shared fixture, in a git repository as users run (`{ git: false }`: a bare
 * folder): the memory committed with a small project beside it, so status and COMMIT ask git
 * what they ask it in a user's project.
 */
export async function fixtureCopy(key, opts, { git = true } = {}) {
  const info = await fixture(key, opts);
  const dir = tempDir('gcc-bench-copy-');
  cpSync(join(info.dir, '.GCC'), join(dir, '.GCC'), { recursive: true });
  if (git) gitRepo(dir);
  return { ...info, dir };
}

/** Make `dir` a git repository with one commit of what it holds and a small project. */
export function gitRepo(dir) {
  mkdirSync(join(dir, 'src'), { recursive: true });
  for (let i = 0; i < 20; i++) writeFileSync(join(dir, 'src', `m${i}.ts`), `export const m${i} = ${i};\n`);
  const git = (...args) => {
    const r = spawnSync('git', args, {
      cwd: dir,
      encoding: 'utf8',
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 'bench',
        GIT_AUTHOR_EMAIL: 'bench@example.com',
        GIT_COMMITTER_NAME: 'bench',
        GIT_COMMITTER_EMAIL: 'bench@example.com',
      },
    });
    if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  };
  git('init', '-q');
  git('add', '-A');
  git('commit', '-qm', 'bench fixture');
}

// ---------------------------------------------------------------- floors

/** A machine line of the logs, the JSON of an event (the floor of reading them). */
const MACHINE = '<!-- gcc:e ';

function* logFilesOf(dir) {
  const events = join(dir, '.GCC', 'events');
  for (const month of readdirSync(events).sort())
    for (const n of readdirSync(join(events, month)).sort()) yield join(events, month, n);
}

/** Read every log of the memory at `dir` and JSON.parse each event's machine line; returns the events. */
export function readAndParse(dir) {
  let n = 0;
  for (const f of logFilesOf(dir)) {
    const text = readFileSync(f, 'utf8');
    for (let i = text.indexOf(MACHINE); i !== -1; i = text.indexOf(MACHINE, i + 1)) {
      const line = text.slice(i + MACHINE.length, text.indexOf('\n', i + 1));
      JSON.parse(line.slice(0, line.lastIndexOf(' ', line.length - 5)));
      n++;
    }
  }
  return n;
}

/**
 * What a figure cannot go below on this machine now, measured interleaved in one run: starting
 * node (`node -e 0`), appending one entry-sized write with fsync, a `git status` process in a
 * git repository, and reading and JSON-parsing the logs of a 10,000-event memory. Medians in ms.
 */
export async function measureFloors({ runs = 15 } = {}) {
  const fx = await fixtureCopy('h10000', { events: 10_000 });
  const file = join(fx.dir, 'append-floor.log');
  const entry = Buffer.alloc(664, 'x');
  const samples = { nodeStart: [], appendFsync: [], gitStatus: [], readParse: [] };
  const time = (fn) => {
    const t0 = process.hrtime.bigint();
    fn();
    return Number(process.hrtime.bigint() - t0) / 1e6;
  };
  const fd = openSync(file, 'a');
  for (let r = 0; r < runs; r++) {
    samples.nodeStart.push(time(() => spawnSync(process.execPath, ['-e', '0'])));
    samples.appendFsync.push(
      time(() => {
        writeSync(fd, entry);
        fsyncSync(fd);
      }),
    );
    samples.gitStatus.push(time(() => spawnSync('git', ['status', '--porcelain'], { cwd: fx.dir })));
    samples.readParse.push(time(() => readAndParse(fx.dir)));
  }
  closeSync(fd);
  removeDir(fx.dir);
  return Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, stats(v)]));
}

export const FLOOR_NAMES = {
  nodeStart: 'node start (`node -e 0`)',
  appendFsync: 'append one entry + fsync',
  gitStatus: '`git status` process (git repository)',
  readParse: 'read + JSON.parse the logs of 10,000 events',
};

/**
 * The floors of this run: measured once by bench/run.js and handed to each benchmark's process
 * (GCC_BENCH_FLOORS), or measured here when a benchmark runs on its own.
 */
export async function floors() {
  if (process.env.GCC_BENCH_FLOORS) return JSON.parse(process.env.GCC_BENCH_FLOORS);
  const f = await measureFloors({ runs: process.env.GCC_BENCH_QUICK === '1' ? 5 : 15 });
  process.env.GCC_BENCH_FLOORS = JSON.stringify(f);
  return f;
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Give the collector a chance between timed runs when node runs with --expose-gc. */
export function gc() {
  if (typeof globalThis.gc === 'function') globalThis.gc();
}
