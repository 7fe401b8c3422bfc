/**
 * Resume: does an agent picking up a task get the facts it needs, and at what cost in tokens?
 *
 * Three scripted sessions of different shapes, each driven through the real front ends:
 *
 *   A  long, on one branch: `gctx` child processes for objectives and commits, Claude Code hook
 *      payloads through `gctx hook --agent claude-code` for ~40 tool calls (reads, writes,
 *      edits, passing and failing runs), a final stretch of edits left uncommitted
 *   B  several experiments: branches with purposes and hypotheses, two abandoned with reasons,
 *      two merged with syntheses, the agent on an open branch at the end (CLI + hook payloads)
 *   C  spread over two Pi sessions with a compaction in each, on the real Pi host with a
 *      scripted model calling gcc_* tools (bench/resume-pi.ts)
 *
 * Each shape lists the facts a resuming agent needs (current goal, branch, last decision and
 * why, failed approaches and why, files in flight, next step), each a small matcher on text.
 * Measured: the briefing as hosts hand it over (what `gctx hook --agent claude-code` answers to
 * SessionStart: the framed text), the default CONTEXT call (`gctx context`, i.e. status), the
 * share of facts in (a) the briefing alone and (b) briefing + context, tokens of each
 * (estimateTokens: chars/4), and whether the briefing is byte-identical when asked twice with
 * nothing changed. Then:
 *
 *   - briefing size at 10, 1,000 and 10,000 commits, with every section of it full
 *   - `context --branch --k K` for K = 1, 2, 3, 5, 10 on shapes A and B (DEFAULT_K's choice)
 *   - shape A's tool results logged with the bounds in src/observer/bound.ts against the
 *     previous 4,000 characters: `context --log` tokens, log.md tokens, and the facts
 *
 *   node bench/run.js resume [--quick]      (after `npm run build`; `npm run bench -- resume`)
 *
 * test/context/resume-shapes.test.ts runs shapes A and B through the library (replayWithBound)
 * and holds them to the same facts, so `npm test` keeps them true.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { translate } from '../dist/adapters/hook/claude-format.js';
import { memoryServers } from '../dist/adapters/hook/host-tools.js';
import { estimateTokens } from '../dist/context/budget.js';
import { DEFAULT_K, DEFAULT_LOG } from '../dist/context/query.js';
import { MAIN } from '../dist/events/types.js';
import { boundText, ERROR_LIMIT, RESULT_LIMIT, SCAN_LIMIT } from '../dist/observer/bound.js';
import { handleHook } from '../dist/observer/handle.js';
import { redactSecrets } from '../dist/observer/redact.js';
import { Memory } from '../dist/index.js';
import { describeFailure } from '../dist/observer/describe-call.js';
import { buildHistory, removeDir, ROOT, tempDir } from './lib.js';
import { longShape } from './resume-long.js';
import { writeFileSync } from 'node:fs';

export const title = 'Resume: facts a resuming agent gets from the briefing and one CONTEXT call';

const GCTX = join(ROOT, JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).bin.gctx);
const BRIEFING_TARGET = 1000;
const KS = [1, 2, 3, 5, 10];
/** The bounds before this benchmark: 4,000 characters of any result. */
const PREVIOUS_BOUND = { result: 4000, error: 4000 };

// ---------------------------------------------------------------- front ends

const clean = () => {
  const env = { ...process.env };
  delete env.GCC_SESSION;
  return env;
};

/** The built `gctx` in a child process, as a user or an agent runs it. */
function gctx(dir, args, { input, session } = {}) {
  const r = spawnSync(process.execPath, [GCTX, ...args], {
    cwd: dir,
    input,
    encoding: 'utf8',
    env: { ...clean(), ...(session ? { GCC_SESSION: session } : {}) },
  });
  if (r.status !== 0) throw new Error(`gctx ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

/** One Claude Code hook event through `gctx hook --agent claude-code`; the context it hands back, if any. */
function hook(dir, payload) {
  const r = spawnSync(process.execPath, [GCTX, 'hook', '--agent', 'claude-code'], {
    cwd: dir,
    input: JSON.stringify(payload),
    encoding: 'utf8',
    env: clean(),
  });
  // A hook never fails the agent, so it never fails loudly either: its complaints are on stderr.
  if (r.status !== 0 || r.stderr)
    throw new Error(`gctx hook (${payload.hook_event_name}) exited ${r.status}: ${r.stderr}`);
  return r.stdout ? (JSON.parse(r.stdout).hookSpecificOutput?.additionalContext ?? '') : '';
}

/**
 * Claude Code hook payloads, in the documented shapes (test/fixtures/claude-code/): the common
 * fields, and per tool the `tool_response` Claude Code's built-in tools report.
 */
function claude(dir, session, transcript = `/home/dev/.claude/projects/-bench/${session}.jsonl`) {
  let n = 0;
  const abs = (p) => join(dir, p);
  const base = (event, extra) => ({
    session_id: session,
    transcript_path: transcript,
    cwd: dir,
    permission_mode: 'default',
    hook_event_name: event,
    ...extra,
  });
  const id = () => `toolu_bench${String(++n).padStart(6, '0')}`;
  const lines = (s) => s.replace(/\n$/, '').split('\n');
  return {
    start: (source = 'startup') => base('SessionStart', { source }),
    preCompact: () => base('PreCompact', { trigger: 'auto', custom_instructions: '' }),
    prompt: (text) => base('UserPromptSubmit', { prompt: text }),
    end: () => base('SessionEnd', { reason: 'prompt_input_exit' }),
    read: (path, content) =>
      base('PostToolUse', {
        tool_name: 'Read',
        tool_input: { file_path: abs(path) },
        tool_response: {
          type: 'text',
          file: {
            filePath: abs(path),
            content,
            numLines: lines(content).length,
            startLine: 1,
            totalLines: lines(content).length,
          },
        },
        tool_use_id: id(),
      }),
    grep: (pattern, files) =>
      base('PostToolUse', {
        tool_name: 'Grep',
        tool_input: { pattern, path: dir, output_mode: 'files_with_matches' },
        tool_response: { mode: 'files_with_matches', filenames: files, numFiles: files.length },
        tool_use_id: id(),
      }),
    write: (path, content) =>
      base('PostToolUse', {
        tool_name: 'Write',
        tool_input: { file_path: abs(path), content },
        tool_response: { type: 'create', filePath: abs(path), content, structuredPatch: [], originalFile: null },
        tool_use_id: id(),
      }),
    edit: (path, oldString, newString) => {
      const o = lines(oldString);
      const w = lines(newString);
      return base('PostToolUse', {
        tool_name: 'Edit',
        tool_input: { file_path: abs(path), old_string: oldString, new_string: newString, replace_all: false },
        tool_response: {
          filePath: abs(path),
          oldString,
          newString,
          originalFile: oldString,
          structuredPatch: [
            {
              oldStart: 1,
              oldLines: o.length,
              newStart: 1,
              newLines: w.length,
              lines: [...o.map((l) => `-${l}`), ...w.map((l) => `+${l}`)],
            },
          ],
          userModified: false,
          replaceAll: false,
        },
        tool_use_id: id(),
      });
    },
    bash: (command, stdout, stderr = '') =>
      base('PostToolUse', {
        tool_name: 'Bash',
        tool_input: { command, description: '' },
        tool_response: { stdout, stderr, interrupted: false, isImage: false },
        tool_use_id: id(),
      }),
    mcpTool: (name, input, content) =>
      base('PostToolUse', { tool_name: name, tool_input: input, tool_response: content, tool_use_id: id() }),
    fail: (command, error) =>
      base('PostToolUseFailure', {
        tool_name: 'Bash',
        tool_input: { command },
        tool_use_id: id(),
        error,
        is_interrupt: false,
      }),
  };
}

/** A long test run as vitest prints it: the verdict at the end, after pages of passing lines. */
function testRun(file, n, verdict) {
  const out = [` RUN  v4.1.12 /home/dev/app`, ''];
  for (let i = 0; i < n; i++)
    out.push(
      ` ✓ ${file} > case ${i + 1}: ${['accepts a request under the limit', 'refills after the interval', 'rejects over the burst', 'keys by API key', 'reads limiter.rate from the config'][i % 5]} ${(i % 7) + 1}ms`,
    );
  out.push('', ` Test Files  1 passed (1)`, `      Tests  ${n} passed (${n})`, verdict);
  return out.join('\n');
}

/** A failing run: the reason at the top, then a stack trace and the summary. */
function failure(reason, frames = 30) {
  const out = ['Exit code 1', reason, ''];
  for (let i = 0; i < frames; i++)
    out.push(
      `    at ${['processTicksAndRejections', 'Object.<anonymous>', 'runTest', 'callSuiteHook', 'withTimeout'][i % 5]} (node_modules/@vitest/runner/dist/index.js:${100 + i * 13}:${(i * 7) % 40})`,
    );
  out.push('', ' Test Files  1 failed (1)', '      Tests  1 failed | 11 passed (12)');
  return out.join('\n');
}

// ---------------------------------------------------------------- facts

/**
 * A fact: a name, and what must all appear in the text for the fact to be there. `branchView`:
 * one a branch view can carry (the K measurement); `earlier`: written down in a commit before
 * the branch's last one.
 */
function fact(kind, name, all, opts = {}) {
  return { kind, name, all, branchView: false, ...opts };
}

/** A file in flight: named where memory says what changed since the last commit, not merely anywhere. */
const flight = (path) => new RegExp(`Since the last commit:[^\\n]*${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);

const has = (text, m) => (typeof m === 'string' ? text.includes(m) : m.test(text));
export const found = (f, text) => f.all.every((m) => has(text, m));
const share = (facts, text) => facts.filter((f) => found(f, text)).length;
const pct = (n, d) => `${n}/${d} (${Math.round((n / d) * 100)}%)`;

// ---------------------------------------------------------------- shapes

/**
 * A step of a scripted session: a `gctx` command line, or a hook payload. The same script runs
 * through the real processes (the measurement) and, for the tool-result bound, through the
 * library with other bounds.
 */
const cli = (...args) => ({ cli: args });
const ev = (payload) => ({ hook: payload });
/** A memory operation as an agent calls it: an MCP tool and its arguments. */
const mcp = (tool, args) => ({ mcp: [tool, args] });

/** Shape A: a long single-branch session — a rate limiter for an API gateway. */
export function shapeA(dir) {
  const c = claude(dir, 'a1b2c3d4-0000-4000-8000-00000000000a');
  const steps = [
    cli('init'),
    cli(
      'roadmap',
      'add',
      'Per-client rate limiting in the API gateway: a token bucket per API key, 429 with Retry-After',
    ),
    cli('roadmap', 'add', 'Keep gateway p99 latency under 5 ms with the limiter on'),
    cli('roadmap', 'add', "Document the limiter's settings in docs/rate-limit.md"),
    ev(c.start()),
    ev(
      c.read(
        'src/gateway/server.ts',
        "import { createServer } from 'node:http';\nimport { middleware } from './middleware.js';\n\nexport const server = createServer(middleware);\n",
      ),
    ),
    ev(c.grep('app.use\\(', ['src/gateway/middleware.ts', 'src/gateway/auth.ts'])),
    ev(
      c.read(
        'src/gateway/middleware.ts',
        'export function middleware(req, res) {\n  auth(req);\n  route(req, res);\n}\n',
      ),
    ),
    ev(
      c.write(
        'src/limiter/bucket.ts',
        'export class Bucket {\n  constructor(readonly rate: number, readonly burst: number) {}\n  tokens = 0;\n  take(): boolean {\n    if (this.tokens < 1) return false;\n    this.tokens -= 1;\n    return true;\n  }\n}\n',
      ),
    ),
    ev(
      c.edit(
        'src/gateway/middleware.ts',
        '  auth(req);\n  route(req, res);',
        '  auth(req);\n  if (!limiter.take(req)) return tooMany(res);\n  route(req, res);',
      ),
    ),
    ev(c.bash('npm test -- limiter', testRun('test/limiter.test.ts', 12, ' Duration  412ms'))),
    cli(
      'commit',
      'Token bucket (src/limiter/bucket.ts) wired into the gateway middleware: 20 requests a second per client, bursts of 40.',
      '--next',
      'Key the buckets by API key instead of client IP',
    ),
    ev(
      c.read(
        'test/limiter.test.ts',
        "describe('limiter', () => {\n  it('separate keys get separate buckets', async () => {});\n});\n",
      ),
    ),
    ev(
      c.write(
        'src/limiter/keys.ts',
        "export const keyOf = (req) => req.headers['x-api-key'] ?? req.socket.remoteAddress;\n",
      ),
    ),
    ev(c.edit('src/limiter/bucket.ts', '  tokens = 0;', '  tokens = 0;\n  last = Date.now();')),
    ev(
      c.fail(
        'npm test -- limiter',
        failure(
          'FAIL test/limiter.test.ts > separate keys get separate buckets\nAssertionError: expected 429 to be 200\nBuckets are still keyed by req.ip, and every test client connects from 127.0.0.1.',
        ),
      ),
    ),
    ev(
      c.edit(
        'src/gateway/middleware.ts',
        '  if (!limiter.take(req)) return tooMany(res);',
        '  if (!limiter.take(keyOf(req))) return tooMany(res);',
      ),
    ),
    ev(c.bash('npm test -- limiter', testRun('test/limiter.test.ts', 14, ' Duration  398ms'))),
    cli(
      'commit',
      'Buckets are keyed by API key (src/limiter/keys.ts), falling back to the client IP for anonymous calls: keyed by IP, every client behind one NAT shared a bucket.',
      '--next',
      'Refill the buckets',
    ),
    ev(
      c.edit(
        'src/limiter/bucket.ts',
        '  last = Date.now();',
        '  last = Date.now();\n  static timer = setInterval(() => Bucket.refillAll(), 100);',
      ),
    ),
    ev(c.bash('npm test -- limiter', testRun('test/limiter.test.ts', 15, ' Duration  405ms'))),
    ev(
      c.fail(
        'npm run bench:gateway -- --clients 50000',
        failure(
          'p99 31.2 ms exceeds the 5 ms budget\nrefill timer: 48 ms per tick over 50,000 buckets (the event loop is blocked while it runs)',
          12,
        ),
      ),
    ),
    ev(
      c.edit(
        'src/limiter/bucket.ts',
        '  static timer = setInterval(() => Bucket.refillAll(), 100);',
        '  refill(now: number) {\n    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.rate);\n    this.last = now;\n  }',
      ),
    ),
    ev(
      c.bash(
        'npm run bench:gateway -- --clients 50000',
        'clients 50000  requests 2,000,000\np50 1.2 ms  p99 3.9 ms (budget 5 ms)\n',
      ),
    ),
    cli(
      'commit',
      "Tokens are refilled lazily, from the time since a bucket's last request. The setInterval refill was dropped: over 50,000 buckets each tick blocked the event loop for 48 ms and p99 reached 31 ms.",
      '--next',
      'Share the buckets across gateway instances through Redis',
    ),
    ev(
      c.write(
        'src/limiter/redis-store.ts',
        "export async function take(redis, key, rate, burst) {\n  const [allowed] = await redis.call('CL.THROTTLE', key, burst, rate, 1);\n  return allowed === 0;\n}\n",
      ),
    ),
    ev(
      c.fail(
        'npm run test:integration -- limiter',
        failure(
          "ReplyError: ERR unknown command 'CL.THROTTLE', with args beginning with: 'rl:key-1'\nThe staging Redis is ElastiCache 7.1; MODULE LIST: ERR unknown command 'MODULE'",
        ),
      ),
    ),
    ev(
      c.bash(
        'redis-cli -h staging-redis INFO server | head -5',
        '# Server\nredis_version:7.1.0\nredis_mode:standalone\nos:Amazon ElastiCache\narch_bits:64\n',
      ),
    ),
    ev(
      c.write(
        'src/limiter/bucket.lua',
        "local tokens = tonumber(redis.call('HGET', KEYS[1], 't') or ARGV[2])\n-- refill from elapsed time, take one, store\nreturn 1\n",
      ),
    ),
    ev(
      c.edit(
        'src/limiter/redis-store.ts',
        "  const [allowed] = await redis.call('CL.THROTTLE', key, burst, rate, 1);\n  return allowed === 0;",
        '  return (await redis.evalsha(SCRIPT, 1, key, rate, burst, Date.now())) === 1;',
      ),
    ),
    ev(
      c.bash(
        'npm run test:integration -- limiter',
        testRun('test/integration/limiter.test.ts', 40, ' Duration  2.41s'),
      ),
    ),
    cli(
      'commit',
      'Buckets live in Redis, updated by one Lua script (src/limiter/bucket.lua) per request through EVALSHA. redis-cell and its CL.THROTTLE were dropped: ElastiCache, our managed Redis, cannot load modules.',
      '--next',
      'Answer 429 with Retry-After and X-RateLimit-Remaining',
    ),
    ev(
      c.edit(
        'src/gateway/middleware.ts',
        '  if (!limiter.take(keyOf(req))) return tooMany(res);',
        "  const left = await limiter.take(keyOf(req));\n  res.setHeader('X-RateLimit-Remaining', left);\n  if (left < 0) return tooMany(res, limiter.retryAfter(keyOf(req)));",
      ),
    ),
    ev(
      c.edit(
        'test/limiter.test.ts',
        "  it('separate keys get separate buckets', async () => {});",
        "  it('separate keys get separate buckets', async () => {});\n  it('answers 429 with Retry-After', async () => {});",
      ),
    ),
    ev(c.bash('npm test', testRun('test/limiter.test.ts', 48, ' Duration  1.02s'))),
    cli(
      'commit',
      'Rejected requests get 429 with Retry-After (seconds until the next token), and every response carries X-RateLimit-Remaining.',
      '--next',
      'Measure p99 with 10,000 clients against the 5 ms budget',
    ),
    ev(
      c.bash(
        'npm run bench:gateway -- --clients 10000',
        'clients 10000  requests 1,000,000\nlimiter on:  p50 1.1 ms  p99 4.1 ms\nlimiter off: p50 0.9 ms  p99 3.8 ms\n',
      ),
    ),
    ev(
      c.bash(
        'npm run bench:gateway -- --clients 10000 --pipeline',
        'clients 10000  requests 1,000,000  pipeline 16\nlimiter on:  p50 1.1 ms  p99 4.0 ms\n',
      ),
    ),
    cli(
      'commit',
      'Measured the limiter at 0.3 ms of p99 (4.1 ms on, 3.8 ms off, 10,000 clients): the latency objective is met. Pipelining the Redis calls gained only 0.1 ms, so it was left out to keep the store simple.',
      '--check',
      '2',
      '--next',
      'Fail open when Redis is unreachable (log it and let requests through), then write docs/rate-limit.md with the settings limiter.rate, limiter.burst and limiter.redisUrl',
    ),
    ev(
      c.read(
        'src/limiter/redis-store.ts',
        'export async function take(redis, key, rate, burst) {\n  return (await redis.evalsha(SCRIPT, 1, key, rate, burst, Date.now())) === 1;\n}\n',
      ),
    ),
    ev(
      c.edit(
        'src/limiter/redis-store.ts',
        '  return (await redis.evalsha(SCRIPT, 1, key, rate, burst, Date.now())) === 1;',
        "  try {\n    return (await redis.evalsha(SCRIPT, 1, key, rate, burst, Date.now())) === 1;\n  } catch (err) {\n    log.warn('limiter: Redis unreachable, failing open', err);\n    return true;\n  }",
      ),
    ),
    ev(
      c.edit(
        'src/config/schema.ts',
        '  limiter: { rate: number; burst: number; redisUrl: string };',
        '  limiter: { rate: number; burst: number; redisUrl: string; failOpen: boolean };',
      ),
    ),
    ev(
      c.fail(
        'npm test -- limiter',
        failure(
          'FAIL test/limiter.test.ts > fails open when Redis is down\nError: Test timed out in 5000ms.\nioredis keeps retrying the command (maxRetriesPerRequest: 20) before the catch ever runs.',
        ),
      ),
    ),
    ev(
      c.write(
        'docs/rate-limit.md',
        '# Rate limiting\n\n| setting | default | meaning |\n|---|---|---|\n| limiter.rate | 20 | tokens a second |\n',
      ),
    ),
    ev(c.grep('maxRetriesPerRequest', ['src/limiter/redis.ts'])),
  ];
  const facts = [
    fact('goal', 'open objective: per-client rate limiting', [/Per-client rate limiting in the API gateway/]),
    fact('goal', "open objective: document the limiter's settings", ["Document the limiter's settings"]),
    fact('branch', 'on main', [/(Memory branch:|On memory branch) main\b/]),
    fact('decision', 'last decision and why: no pipelining, it gained only 0.1 ms', ['Pipelining', '0.1 ms'], {
      branchView: true,
    }),
    fact(
      'failed',
      'failed: redis-cell CL.THROTTLE, ElastiCache cannot load modules',
      ['CL.THROTTLE', 'cannot load modules'],
      { earlier: true },
    ),
    fact('failed', 'failed: setInterval refill, it blocked the event loop', ['setInterval', 'blocked the event loop'], {
      earlier: true,
    }),
    fact('failed', 'failed: buckets keyed by IP, clients behind one NAT shared one', ['keyed by IP', 'NAT'], {
      earlier: true,
    }),
    fact('files', 'in flight: src/limiter/redis-store.ts', [flight('src/limiter/redis-store.ts')], {
      branchView: true,
    }),
    fact('files', 'in flight: src/config/schema.ts', [flight('src/config/schema.ts')], { branchView: true }),
    fact('files', 'in flight: docs/rate-limit.md', [flight('docs/rate-limit.md')], { branchView: true }),
    fact('next', 'next: fail open, then the docs', ['Fail open when Redis is unreachable', 'limiter.redisUrl'], {
      branchView: true,
    }),
  ];
  return {
    name: 'A',
    label: 'A: long, single branch (CLI + Claude Code hooks)',
    steps,
    facts,
    session: 'a1b2c3d4-0000-4000-8000-0000000000a2',
  };
}

/** Shape B: several experiments — full-text search for a docs site. */
export function shapeB(dir) {
  const c = claude(dir, 'b1b2c3d4-0000-4000-8000-00000000000b');
  const steps = [
    cli('init'),
    cli('roadmap', 'add', 'Full-text search for the docs site, answering in under 50 ms over 5,000 pages'),
    cli('roadmap', 'add', 'Highlight the matched words in the search results'),
    ev(c.start()),
    ev(c.read('scripts/build-docs.js', "import { pages } from './pages.js';\nfor (const p of pages()) render(p);\n")),
    cli(
      'branch',
      'try-lunr',
      '--purpose',
      'Client-side search: a prebuilt lunr index shipped with the site',
      '--hypothesis',
      'A prebuilt lunr index of 5,000 pages stays under 1 MB gzipped',
    ),
    ev(
      c.write(
        'scripts/build-index.js',
        "import lunr from 'lunr';\nexport const build = (pages) => lunr(function () { pages.forEach((p) => this.add(p)); });\n",
      ),
    ),
    ev(
      c.bash(
        'node scripts/build-index.js',
        'indexed 5,000 pages\nwrote public/search-index.json (14.2 MB, 3.1 MB gzipped)\n',
      ),
    ),
    cli(
      'commit',
      'Prebuilt lunr index from the docs build (scripts/build-index.js): 14.2 MB, 3.1 MB gzipped for 5,000 pages.',
      '--next',
      'Time the first query on a mid-range phone',
    ),
    ev(
      c.bash(
        'npm run perf:search -- --device moto-g-power',
        'first query: 2,310 ms (download 1,650 ms, parse 540 ms, search 120 ms)\nnext queries: 38 ms\n',
      ),
    ),
    cli(
      'abandon',
      'try-lunr',
      '--reason',
      'The index is 3.1 MB gzipped and the first query takes 2.3 s on a mid-range phone, far over 50 ms: client-side search does not scale to 5,000 pages.',
    ),
    cli(
      'branch',
      'try-typesense',
      '--purpose',
      'Hosted Typesense behind the docs site',
      '--hypothesis',
      'Typesense answers in under 20 ms',
    ),
    ev(c.write('deploy/typesense.yaml', 'apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: typesense\n')),
    cli(
      'abandon',
      'try-typesense',
      '--reason',
      'Typesense needs a stateful service of its own, and the ops team will not run new stateful services this quarter.',
    ),
    cli(
      'branch',
      'try-fts5',
      '--purpose',
      'Server-side SQLite FTS5 behind /api/search',
      '--hypothesis',
      'FTS5 with bm25 ranking answers in under 10 ms over 5,000 pages',
    ),
    ev(
      c.write(
        'src/search/index.ts',
        "import Database from 'better-sqlite3';\nexport const db = new Database('search.db');\ndb.exec('CREATE VIRTUAL TABLE pages USING fts5(title, body)');\n",
      ),
    ),
    ev(
      c.write(
        'src/api/search.ts',
        "export const search = (q) => db.prepare('SELECT title, bm25(pages) AS rank FROM pages WHERE pages MATCH ? ORDER BY rank LIMIT 20').all(q);\n",
      ),
    ),
    ev(c.bash('npm test -- search', testRun('test/search/api.test.ts', 9, ' Duration  180ms'))),
    cli(
      'commit',
      'FTS5 index built at deploy (src/search/index.ts), queried by /api/search (src/api/search.ts) with bm25 ranking.',
      '--next',
      'Benchmark p95 over the 5,000-page corpus',
    ),
    ev(
      c.fail(
        'npm test -- search',
        failure(
          "FAIL test/search/api.test.ts > finds parts of identifiers\nAssertionError: expected [] to include 'parseConfig'\nThe unicode61 tokenizer indexes parseConfig as one token; a search for 'Config' cannot match it.",
        ),
      ),
    ),
    ev(
      c.edit(
        'src/search/index.ts',
        "db.exec('CREATE VIRTUAL TABLE pages USING fts5(title, body)');",
        'db.exec("CREATE VIRTUAL TABLE pages USING fts5(title, body, tokenize = \'trigram\')");',
      ),
    ),
    ev(c.bash('npm run bench:search', 'corpus 5,000 pages, 1,000 queries\np50 2 ms  p95 6 ms  p99 11 ms\n')),
    cli(
      'commit',
      "Switched the FTS5 tokenizer to trigram: unicode61 never matched parts of code identifiers ('Config' missed parseConfig). p95 is 6 ms over the 5,000-page corpus.",
      '--next',
      'Merge into main',
    ),
    cli(
      'merge',
      'try-fts5',
      '--synthesis',
      'Search is SQLite FTS5 with the trigram tokenizer behind /api/search: p95 6 ms over 5,000 pages, well inside 50 ms. Chosen over client-side lunr (3.1 MB index, 2.3 s first query) and Typesense (ops will not run a new stateful service).',
    ),
    cli('roadmap', 'check', '1'),
    cli('branch', 'index-in-ci', '--purpose', 'Build the FTS5 index in CI and ship it with the release'),
    ev(
      c.edit(
        '.github/workflows/release.yml',
        '      - run: npm run build',
        '      - run: npm run build\n      - run: node scripts/index-fts5.js\n      - uses: actions/upload-artifact@v4',
      ),
    ),
    ev(c.bash('act -j release', 'index-fts5: 5,000 pages in 41 s\nartifact search.db (22 MB) uploaded\n')),
    cli(
      'commit',
      'The index is built in CI (41 s) and shipped as a release artifact: deploys no longer rebuild it.',
      '--next',
      'Merge into main',
    ),
    cli(
      'merge',
      'index-in-ci',
      '--synthesis',
      'The FTS5 index is built once in CI and shipped with the release; deploys take 40 s less and never serve a half-built index.',
    ),
    cli(
      'branch',
      'try-snippet',
      '--purpose',
      "Highlight the matched words with FTS5's snippet() in the results page",
      '--hypothesis',
      'snippet() costs under 1 ms per result',
    ),
    ev(
      c.edit(
        'src/api/search.ts',
        "'SELECT title, bm25(pages) AS rank",
        "'SELECT title, snippet(pages, 1, '<mark>', '</mark>', '…', 12) AS excerpt, bm25(pages) AS rank",
      ),
    ),
    ev(
      c.bash(
        'npm run bench:search -- --snippets',
        'corpus 5,000 pages, 1,000 queries, 20 results each\nsnippet(): 0.4 ms per result  p95 14 ms\n',
      ),
    ),
    cli(
      'commit',
      'Results carry FTS5 snippet() excerpts with the matches in <mark>: 0.4 ms per result, so highlighting is done in the query rather than in the browser.',
      '--next',
      'Escape the page text before snippet() wraps the matches in <mark>: raw HTML from the docs reaches the results page (XSS)',
    ),
    ev(
      c.edit(
        'src/search/render.ts',
        '  el.innerHTML = hit.excerpt;',
        '  el.innerHTML = sanitize(hit.excerpt, { allow: ["mark"] });',
      ),
    ),
    ev(c.write('test/search/render.test.ts', "it('escapes <script> in excerpts', () => {});\n")),
    ev(
      c.fail(
        'npm test -- render',
        failure(
          "FAIL test/search/render.test.ts > escapes <script> in excerpts\nexpected '&lt;script&gt;' in the excerpt, got '<script>'\nsnippet() runs on the raw body, so the escaping has to happen when the index is built.",
        ),
      ),
    ),
  ];
  const facts = [
    fact('goal', 'open objective: highlight matched words', ['Highlight the matched words']),
    fact('branch', 'on try-snippet', [/(Memory branch:|On memory branch) try-snippet\b/]),
    fact(
      'decision',
      'last decision and why: snippet() in the query, 0.4 ms per result',
      ['snippet()', '0.4 ms per result'],
      { branchView: true },
    ),
    fact('decision', 'merged into main and why: FTS5 with trigram, p95 6 ms', ['trigram', 'p95 6 ms']),
    fact('failed', 'failed: lunr, 3.1 MB index and 2.3 s first query', ['lunr', '2.3 s']),
    fact('failed', 'failed: Typesense, ops will not run a stateful service', ['Typesense', 'stateful service']),
    fact('files', 'in flight: src/search/render.ts', [flight('src/search/render.ts')], { branchView: true }),
    fact('files', 'in flight: test/search/render.test.ts', [flight('test/search/render.test.ts')], {
      branchView: true,
    }),
    fact('next', 'next: escape the page text (XSS)', ['Escape the page text', 'XSS'], { branchView: true }),
  ];
  return {
    name: 'B',
    label: 'B: experiments, merged and abandoned (CLI + Claude Code hooks)',
    steps,
    facts,
    session: 'b1b2c3d4-0000-4000-8000-0000000000b2',
  };
}

/**
 * Shapes D and E: long sessions generated from templates (bench/resume-long.js) — `seed` varies
 * the wording, `kind` the story — resumed after a compaction.
 */
export function shapeLong(dir, seed, kind, reads = 1) {
  const session = `d1e2f3a4-0000-4000-8000-${String(seed).padStart(12, '0')}`;
  const transcript = join(dir || '.', 'transcript.jsonl');
  const c = claude(dir, session, transcript);
  const s = longShape(c, seed, kind, { cli, ev, mcp, fact, flight, reads });
  const said = JSON.stringify({
    type: 'assistant',
    message: { role: 'assistant', content: [{ type: 'text', text: s.said }] },
  });
  const name = kind === 'flaky' ? 'D' : 'E';
  const label = `${name}: long (${s.toolCalls} tool calls), ${kind === 'flaky' ? 'a flaky test investigated and merged' : 'an online migration abandoned'}, prompts with a constraint, failing test, compaction (seed ${seed})`;
  return {
    name,
    label,
    steps: [{ write: [transcript, `${said}\n`] }, ...s.steps],
    facts: s.facts,
    session,
    compacted: true,
    toolCalls: s.toolCalls,
  };
}

/** Shape C: two Pi sessions with compactions (bench/resume-pi.ts drives them). */
export const shapeCFacts = {
  /** What session 2's model reads when it starts: only session 1 is behind it. */
  start: [
    fact('goal', 'open objective: config from ~/.apprc.toml', ['~/.apprc.toml instead of ~/.apprc.json']),
    fact('branch', 'on main', [/(Memory branch:|On memory branch) main\b/]),
    fact('decision', 'last decision and why: keep the JSON as .bak, for a downgrade', ['.apprc.json.bak', 'downgrade']),
    fact('failed', 'failed: @iarna/toml, TOML 0.5 rejects dotted keys', ['@iarna/toml', 'dotted keys']),
    fact('next', 'next: what JSON nulls become', ['JSON null values']),
  ],
  /** After session 2 (its compaction behind it): what resuming it gets. */
  end: [
    fact('goal', 'open objective: config from ~/.apprc.toml', ['~/.apprc.toml instead of ~/.apprc.json']),
    fact('branch', 'on null-keys', [/(Memory branch:|On memory branch) null-keys\b/]),
    fact('decision', 'last decision and why: nulls kept as marked comments, proxy = null disables the proxy', [
      'marked comment',
      'disables the system proxy',
    ]),
    fact('failed', 'failed (session 1): @iarna/toml, TOML 0.5 rejects dotted keys', ['@iarna/toml', 'dotted keys']),
    fact('files', 'in flight: src/config/load.ts', [flight('src/config/load.ts')]),
    fact('files', 'in flight: test/config/load.test.ts', [flight('test/config/load.test.ts')]),
    fact('next', 'next: read the marker back as null', ['marker back as null', 'test/fixtures/configs']),
  ],
};

// ---------------------------------------------------------------- playing as Claude Code does

/** The hook commands `gctx hook install` wrote to the project's `.claude/settings.json`, by event. */
function installedHooks(dir) {
  gctx(dir, ['hook', 'install']);
  const settings = JSON.parse(readFileSync(join(dir, '.claude', 'settings.json'), 'utf8'));
  return (payload) => {
    const tool = payload.tool_name;
    return (settings.hooks[payload.hook_event_name] ?? [])
      .filter((m) => !tool || !m.matcher || m.matcher === '*' || new RegExp(`^(?:${m.matcher})$`).test(tool))
      .flatMap((m) => m.hooks.map((h) => h.command));
  };
}

/** Every command registered for the payload's event, as Claude Code runs them; the context they hand back. */
function playHook(dir, commands, payload) {
  const registered = commands(payload);
  if (!registered.length && !payload.tool_name) throw new Error(`${payload.hook_event_name} is not registered`);
  let said = '';
  for (const command of registered) {
    const r = spawnSync('sh', ['-c', command], { cwd: dir, input: JSON.stringify(payload), encoding: 'utf8' });
    if (r.status !== 0 || r.stderr) throw new Error(`hook ${payload.hook_event_name} exited ${r.status}: ${r.stderr}`);
    if (r.stdout) said += JSON.parse(r.stdout).hookSpecificOutput?.additionalContext ?? '';
  }
  return said;
}

/** The real MCP SDK client on `gctx mcp` over stdio, with the session id Claude Code gives its servers. */
async function mcpClient(dir, session) {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const client = new Client({ name: 'resume-bench', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [GCTX, 'mcp'],
      cwd: dir,
      env: { ...clean(), CLAUDE_CODE_SESSION_ID: session },
    }),
  );
  await client.listTools();
  return client;
}

const answerText = (r) => r.content.map((c) => c.text ?? '').join('');

/**
 * A long shape as Claude Code plays it: hook events through the installed commands (a
 * PreToolUse before each tool call its matcher takes), memory operations through the MCP
 * client, each followed by the PostToolUse Claude Code sends for an MCP tool. Then the
 * compaction's SessionStart, asked twice, and the follow-up CONTEXT call over MCP. Returns
 * the resume view and the per-turn overhead.
 */
export async function playLong(dir, shape) {
  const turns = { events: 0, ms: 0, tokens: 0, mcpCalls: 0, mcpTokens: 0 };
  const commands = installedHooks(dir);
  const hookOnce = (payload) => {
    const t0 = performance.now();
    const said = playHook(dir, commands, payload);
    turns.ms += performance.now() - t0;
    turns.events += 1;
    if (payload.hook_event_name !== 'SessionStart') turns.tokens += said ? estimateTokens(said) : 0;
    return said;
  };
  let client = null;
  const c = claude(dir, shape.session);
  try {
    for (const s of shape.steps) {
      if (s.write) writeFileSync(s.write[0], s.write[1]);
      else if (s.cli) gctx(dir, s.cli);
      else if (s.mcp) {
        client ??= await mcpClient(dir, shape.session);
        const [tool, args] = s.mcp;
        const r = await client.callTool({ name: tool, arguments: args });
        if (r.isError) throw new Error(`MCP ${tool}: ${answerText(r)}`);
        turns.mcpCalls += 1;
        turns.mcpTokens += estimateTokens(answerText(r));
        hookOnce(c.mcpTool(`mcp__gcc__${tool}`, args, r.content));
      } else {
        const { tool_response, error, is_interrupt, ...pre } = s.hook;
        if (/^PostToolUse/.test(s.hook.hook_event_name)) hookOnce({ ...pre, hook_event_name: 'PreToolUse' });
        hookOnce(s.hook);
      }
    }
    const briefing = hookOnce(c.start('compact'));
    const again = hookOnce(c.start('compact'));
    client ??= await mcpClient(dir, shape.session);
    const context = answerText(await client.callTool({ name: 'context', arguments: {} }));
    return { view: { briefing, identical: briefing === again, context }, turns };
  } finally {
    await client?.close();
  }
}

// ---------------------------------------------------------------- running a script

function runScript(dir, steps) {
  const turns = { events: 0, ms: 0, tokens: 0 };
  for (const s of steps) {
    if (s.write) writeFileSync(s.write[0], s.write[1]);
    else if (s.cli) gctx(dir, s.cli);
    else {
      const t0 = performance.now();
      const said = hook(dir, s.hook);
      turns.ms += performance.now() - t0;
      turns.events += 1;
      // What the hooks hand the model during the work (not the briefing a session start gets).
      if (s.hook.hook_event_name !== 'SessionStart') turns.tokens += said ? estimateTokens(said) : 0;
    }
  }
  return turns;
}

/**
 * The same script through the library, with tool results bounded at `bound` instead of what the
 * hook has built in: the real hook logic (handleHook) on the real Memory, whose record-tool
 * commands get the result cut again from the raw text at the other bound. Everything else —
 * redaction, inputs, file counts, session signals — is the hook's own.
 */
export async function replayWithBound(dir, steps, bound) {
  let raw = null;
  let memory = null;
  const port = {
    get config() {
      return memory.config;
    },
    get root() {
      return memory.root;
    },
    get gccDir() {
      return memory.gccDir;
    },
    execute: (cmd, opts) => {
      if (cmd.type === 'record-tool' && raw !== null) {
        const limit = cmd.isError ? bound.error : bound.result;
        const text = redactSecrets(boundText(raw, SCAN_LIMIT));
        cmd = { ...cmd, result: boundText(cmd.isError ? describeFailure(text, limit) : text, limit) };
      }
      return memory.execute(cmd, opts);
    },
    briefing: (o) => memory.briefing(o),
    pendingWork: (s) => memory.pendingWork(s),
  };
  for (const s of steps) {
    if (s.write) {
      writeFileSync(s.write[0], s.write[1]);
      continue;
    }
    if (s.mcp) {
      await memory.execute({ type: s.mcp[0], ...s.mcp[1] });
      continue;
    }
    if (s.cli) {
      const [op, ...rest] = s.cli;
      if (op === 'init') {
        memory = await Memory.open(dir, { create: true });
        continue;
      }
      await memory.execute(commandOf(op, rest));
      continue;
    }
    const t = translate(s.hook, 'claude-code', memoryServers({}));
    for (const env of t.envelopes) {
      raw = env.event === 'post-tool' ? (env.result ?? '') : null;
      await handleHook(port, env, {
        timeoutMs: 60_000,
        onError: (e) => {
          throw e;
        },
      });
    }
  }
  return memory;
}

/** The engine command of the few `gctx` command lines the scripts use. */
function commandOf(op, args) {
  const flag = (name) => {
    const i = args.indexOf(`--${name}`);
    return i === -1 ? undefined : args[i + 1];
  };
  const flags = new Set(['--next', '--check', '--purpose', '--hypothesis', '--reason', '--synthesis', '--learned']);
  const positional = args.filter((a, i) => !flags.has(a) && !flags.has(args[i - 1]));
  switch (op) {
    case 'roadmap':
      return { type: 'roadmap', action: positional[0], target: positional.slice(1).join(' ') };
    case 'commit':
      return {
        type: 'commit',
        contribution: positional.join(' '),
        ...(flag('next') ? { next: flag('next') } : {}),
        ...(flag('check') ? { check: [flag('check')] } : {}),
      };
    case 'branch':
      return {
        type: 'branch',
        name: positional[0],
        purpose: flag('purpose'),
        ...(flag('hypothesis') ? { hypotheses: [flag('hypothesis')] } : {}),
      };
    case 'abandon':
      return { type: 'abandon', branch: positional[0], reason: flag('reason') };
    case 'merge':
      return {
        type: 'merge',
        branch: positional[0],
        synthesis: flag('synthesis'),
        ...(flag('learned') ? { learned: flag('learned') } : {}),
        ...(flag('next') ? { next: flag('next') } : {}),
      };
    default:
      throw new Error(`resume bench: no library form for gctx ${op}`);
  }
}

// ---------------------------------------------------------------- measuring

/**
 * What a resuming agent gets: the briefing the SessionStart hook hands over (asked twice, with
 * nothing changed between), then the default CONTEXT call.
 */
function resumeView(dir, session, source = 'resume') {
  const c = claude(dir, session);
  const briefing = hook(dir, c.start(source));
  const again = hook(dir, c.start(source));
  const context = gctx(dir, ['context'], { session });
  return { briefing, identical: briefing === again, context };
}

function score(facts, view) {
  const both = `${view.briefing}\n${view.context}`;
  return {
    facts: facts.length,
    inBriefing: share(facts, view.briefing),
    inBoth: share(facts, both),
    briefingTokens: estimateTokens(view.briefing),
    contextTokens: estimateTokens(view.context),
    identical: view.identical,
    missing: {
      briefing: facts.filter((f) => !found(f, view.briefing)).map((f) => f.name),
      both: facts.filter((f) => !found(f, both)).map((f) => f.name),
    },
  };
}

function kTable(dir, shape) {
  const facts = shape.facts.filter((f) => f.branchView);
  const earlier = shape.facts.filter((f) => f.earlier);
  return KS.map((k) => {
    const text = gctx(dir, ['context', '--branch', '--k', String(k)]);
    return {
      shape: shape.name,
      k,
      found: share(facts, text),
      of: facts.length,
      earlierFound: share(earlier, text),
      earlierOf: earlier.length,
      tokens: estimateTokens(text),
      missing: facts.filter((f) => !found(f, text)).map((f) => f.name),
    };
  });
}

/** Bytes of tool results in a memory's logs, and the log views' tokens. */
async function logCost(memory, facts) {
  const events = memory.events().filter((e) => e.type === 'tool.recorded');
  const resultChars = events.reduce((n, e) => n + e.data.result.length, 0);
  const longest = Math.max(...events.map((e) => e.data.result.length));
  const view = memory.context({ level: 'log' });
  const logMd = readFileSync(join(memory.gccDir, 'log.md'), 'utf8');
  return {
    calls: events.length,
    resultChars,
    longest,
    logTokens: view.tokens,
    logMdTokens: estimateTokens(logMd),
    factsInLog: share(facts, view.text),
    factsInLogMd: share(facts, logMd),
  };
}

function segmentBytes(dir) {
  let n = 0;
  const root = join(dir, '.GCC', 'events');
  for (const m of readdirSync(root)) for (const f of readdirSync(join(root, m))) n += statSync(join(root, m, f)).size;
  return n;
}

/** Shape C on the real Pi host, in a child process (Pi needs Node ≥ 22.19 and tsx for the harness). */
function runPi(dir) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', 'resume-pi.ts'), dir], {
    cwd: ROOT,
    encoding: 'utf8',
    env: clean(),
    maxBuffer: 64 << 20,
  });
  if (r.status !== 0) throw new Error(`bench/resume-pi.ts exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

/** A briefing with every section full, over a history of `commits` commits. */
async function fullBriefing(commits) {
  const dir = tempDir('gcc-bench-resume-scale-');
  try {
    await buildHistory(dir, { events: commits, commitsOnly: true, objectives: 12 });
    const m = await Memory.open(dir);
    const long = (s, n) => `${s} ${'and then some more words about it '.repeat(n)}`.trim();
    for (let i = 0; i < 6; i++) {
      await m.execute({
        type: 'branch',
        name: `failed-${i}`,
        purpose: long(`Approach ${i}`, 8),
        hypotheses: [long('It works', 4)],
      });
      await m.execute({ type: 'abandon', branch: `failed-${i}`, reason: long(`Reason ${i}`, 12) });
    }
    for (let i = 0; i < 6; i++) {
      await m.execute({ type: 'branch', name: `open-${i}`, purpose: long(`Open approach ${i}`, 8) });
      await m.execute({ type: 'switch', name: MAIN });
    }
    await m.execute({
      type: 'commit',
      contribution: long('The last milestone', 30),
      next: long('The next step', 12),
      files: Array.from({ length: 20 }, (_, i) => ({
        path: `src/a/very/long/path/to/module-${i}/index.ts`,
        added: 10,
        removed: 2,
      })),
    });
    for (let i = 0; i < 12; i++)
      await m.execute({
        type: 'record-tool',
        tool: 'Edit',
        input: `src/in/flight/with/a/long/path/file-${i}.ts`,
        result: '',
        isError: false,
        files: [{ path: `src/in/flight/with/a/long/path/file-${i}.ts`, added: 3, removed: 1 }],
      });
    const total = m.state.branches[MAIN].commits;
    m.close();
    const view = resumeView(dir, 'scale-session', 'startup');
    return {
      history: commits,
      commits: total,
      chars: view.briefing.length,
      tokens: estimateTokens(view.briefing),
      identical: view.identical,
      frames: (view.briefing.match(/not instructions/g) ?? []).length,
    };
  } finally {
    removeDir(dir);
  }
}

// ---------------------------------------------------------------- the benchmark

export async function run({ quick = false } = {}) {
  const dirs = [];
  const dirFor = (prefix) => {
    const d = tempDir(prefix);
    dirs.push(d);
    return d;
  };
  try {
    const shapes = [];
    const ks = [];
    let bound = null;
    for (const make of [shapeA, shapeB]) {
      const dir = dirFor('gcc-bench-resume-');
      const shape = make(dir);
      runScript(dir, shape.steps);
      // The log as the script left it, before the measurement's own session events.
      const logAfterScript = shape.name === 'A' ? gctx(dir, ['context', '--log', '500', '--budget', '100000']) : '';
      const view = resumeView(dir, shape.session, 'startup');
      shapes.push({ name: shape.name, label: shape.label, ...score(shape.facts, view), view });
      ks.push(...kTable(dir, shape));
      if (shape.name === 'A') {
        // The tool-result bound: the same script through the library at today's bounds (checked
        // against the real run) and at the previous 4,000 characters.
        const replay = async (b) => {
          // Same prefix, so the same length: results quote absolute paths, and views clip them.
          const d = dirFor('gcc-bench-resume-');
          return replayWithBound(d, make(d).steps, b);
        };
        const now = await replay({ result: RESULT_LIMIT, error: ERROR_LIMIT });
        const before = await replay(PREVIOUS_BOUND);
        // Same entries as the real processes wrote, up to times, hashes and the folder's name.
        const strip = (t, d) =>
          t
            .trim()
            .replaceAll(d, '<project>')
            .replace(/\d\d-\d\d \d\d:\d\d/g, 'MM-DD hh:mm')
            .replace(/\b[0-9a-f]{7}\b/g, '<hash>');
        const sameAsReal =
          strip(logAfterScript, dir) ===
          strip(
            now.context(
              { level: 'log', n: 500 },
              { budget: 100_000, spell: (q) => `gctx context --log ${q.n} --page ${q.page}` },
            ).text,
            now.root,
          );
        const facts = shape.facts;
        bound = {
          sameAsReal,
          rows: [
            {
              bound: `${RESULT_LIMIT} / ${ERROR_LIMIT} (now)`,
              ...(await logCost(now, facts)),
              segmentBytes: segmentBytes(now.root),
              factsResume: score(facts, {
                briefing: now.briefing({ session: shape.session }),
                context: now.context({ level: 'status' }).text,
                identical: true,
              }).inBoth,
            },
            {
              bound: `${PREVIOUS_BOUND.result} / ${PREVIOUS_BOUND.error} (before)`,
              ...(await logCost(before, facts)),
              segmentBytes: segmentBytes(before.root),
              factsResume: score(facts, {
                briefing: before.briefing({ session: shape.session }),
                context: before.context({ level: 'status' }).text,
                identical: true,
              }).inBoth,
            },
          ],
          facts: facts.length,
        };
        now.close();
        before.close();
      }
    }

    // Shapes D and E: long sessions from templates, several wordings each, resumed after a compaction.
    const long = [];
    for (const seed of quick ? [1] : [1, 2, 3]) {
      for (const kind of ['flaky', 'migration']) {
        const dir = dirFor('gcc-bench-resume-long-');
        const shape = shapeLong(dir, seed, kind);
        const { view, turns } = await playLong(dir, shape);
        const scored = { name: `${shape.name}${seed}`, label: shape.label, ...score(shape.facts, view), view };
        shapes.push(scored);
        long.push({
          ...scored,
          toolCalls: shape.toolCalls,
          hookEvents: turns.events,
          msPerHook: Math.round(turns.ms / turns.events),
          tokensPerTurn: +(turns.tokens / turns.events).toFixed(1),
          mcpTokensPerCall: Math.round(turns.mcpTokens / turns.mcpCalls),
        });
      }
    }

    // Shape C: two Pi sessions. Pi hands its briefing over once (asked twice: n/a).
    const dirC = dirFor('gcc-bench-resume-pi-');
    gctx(dirC, ['init']);
    const pi = runPi(dirC);
    const piStart = { briefing: pi.session2Start.briefing, context: pi.session2Start.context, identical: null };
    const piLater = {
      briefing: pi.session2AfterCompaction.briefing,
      context: pi.session2AfterCompaction.context,
      identical: null,
    };
    const endView = resumeView(dirC, pi.session2, 'resume');
    shapes.push({
      name: 'C1',
      label: 'C1: Pi, start of session 2 (briefing Pi handed over; gcc_context)',
      ...score(shapeCFacts.start, piStart),
      view: piStart,
    });
    shapes.push({
      name: 'C2',
      label: 'C2: Pi, session 2 after its compaction (briefing Pi re-sent; gcc_context)',
      ...score(shapeCFacts.end, piLater),
      view: piLater,
    });
    shapes.push({
      name: 'C3',
      label: 'C3: resuming session 2 after its shutdown (hook SessionStart; gctx context)',
      ...score(shapeCFacts.end, endView),
      view: endView,
    });

    // Briefing size at history scale.
    const scale = [];
    for (const n of quick ? [10, 1_000] : [10, 1_000, 10_000]) scale.push(await fullBriefing(n));

    // DEFAULT_K: the smallest K whose branch view carries every branch-view fact, in both shapes.
    const carries = (k) => ks.filter((r) => r.k === k).every((r) => r.found === r.of);
    const chosenK = KS.find(carries) ?? null;

    const yes = (v) => (v === null ? 'n/a (sent once)' : v ? 'yes' : 'NO');
    const rows = shapes.map((s) => [
      s.label,
      pct(s.inBriefing, s.facts),
      pct(s.inBoth, s.facts),
      String(s.briefingTokens),
      String(s.contextTokens),
      String(s.briefingTokens + s.contextTokens),
      yes(s.identical),
    ]);
    const maxBriefing = Math.max(...shapes.map((s) => s.briefingTokens), ...scale.map((s) => s.tokens));
    const allFacts = shapes.every((s) => s.inBoth === s.facts);
    const pass =
      allFacts &&
      long.every((l) => l.briefingTokens + l.contextTokens <= BRIEFING_TARGET) &&
      maxBriefing <= BRIEFING_TARGET &&
      shapes.every((s) => s.identical !== false) &&
      scale.every((s) => s.identical && s.frames === 1);
    const summary =
      `Resume: facts in briefing + default context ${shapes.map((s) => `${s.name} ${Math.round((s.inBoth / s.facts) * 100)}%`).join(', ')}; ` +
      `briefing ≤ ${maxBriefing} tokens (full briefing at ${scale.map((s) => `${s.history.toLocaleString('en-US')} commits: ${s.tokens}`).join(', ')}); ` +
      `smallest K carrying the branch facts: ${chosenK ?? 'none'} (DEFAULT_K ${DEFAULT_K}); target 100% of facts, briefing ≤ ${BRIEFING_TARGET} tokens`;
    const more = [
      {
        title:
          'Long sessions after a compaction (D: flaky test merged, E: migration abandoned; wording varied by seed), played through the installed hooks and the MCP client: key facts in the briefing and in briefing + follow-up CONTEXT, and the cost per turn',
        columns: [
          'shape',
          'tool calls',
          'facts in briefing',
          'in briefing + follow-up',
          'briefing + follow-up tokens',
          'tokens per hook event (besides the briefing)',
          'tokens per MCP memory answer',
          'ms per hook process',
        ],
        rows: long.map((l) => [
          l.name,
          String(l.toolCalls),
          pct(l.inBriefing, l.facts),
          pct(l.inBoth, l.facts),
          String(l.briefingTokens + l.contextTokens),
          String(l.tokensPerTurn),
          String(l.mcpTokensPerCall),
          String(l.msPerHook),
        ]),
      },
      {
        title: `Branch view: \`gctx context --branch --k K\` (facts a branch view can carry: last decision and why, next step, files in flight; DEFAULT_K is ${DEFAULT_K})`,
        columns: ['shape', 'K', 'branch facts found', 'tokens', 'failed approaches written in earlier commits (A)'],
        rows: ks.map((r) => [
          r.shape,
          String(r.k),
          pct(r.found, r.of),
          String(r.tokens),
          r.earlierOf ? pct(r.earlierFound, r.earlierOf) : '–',
        ]),
      },
      {
        title: `Tool results in the log, shape A (${bound.rows[0].calls} logged calls; the library replay matches the hook processes' log: ${bound.sameAsReal ? 'yes' : 'NO'})`,
        columns: [
          'result bound (chars, ok / failed)',
          'result chars stored',
          'longest',
          'event bytes',
          `context --log (n ${DEFAULT_LOG}) tokens`,
          'log.md tokens',
          `facts in briefing + context (of ${bound.facts})`,
          'facts in log.md',
        ],
        rows: bound.rows.map((r) => [
          r.bound,
          r.resultChars.toLocaleString('en-US'),
          r.longest.toLocaleString('en-US'),
          r.segmentBytes.toLocaleString('en-US'),
          String(r.logTokens),
          r.logMdTokens.toLocaleString('en-US'),
          String(r.factsResume),
          String(r.factsInLogMd),
        ]),
      },
      {
        title:
          'Briefing size at history scale (every section full: 12 objectives, 6 failed approaches, 6 open branches, 20 files, 12 files in flight)',
        columns: [
          'commits in history',
          'briefing chars',
          'tokens (chars/4)',
          'identical when asked twice',
          'framing lines',
        ],
        rows: scale.map((r) => [
          r.history.toLocaleString('en-US'),
          r.chars.toLocaleString('en-US'),
          String(r.tokens),
          r.identical ? 'yes' : 'NO',
          String(r.frames),
        ]),
      },
    ];
    return {
      title,
      columns: [
        'shape',
        'facts in briefing',
        'in briefing + context',
        'briefing tokens',
        'context tokens',
        'total tokens',
        'briefing identical when asked twice',
      ],
      rows,
      summary,
      pass,
      more,
      json: {
        shapes: shapes.map(({ view, ...s }) => ({ ...s, briefing: view.briefing, context: view.context })),
        facts: {
          A: shapeA('').facts.map((f) => f.name),
          B: shapeB('').facts.map((f) => f.name),
          C1: shapeCFacts.start.map((f) => f.name),
          C2: shapeCFacts.end.map((f) => f.name),
          C3: shapeCFacts.end.map((f) => f.name),
        },
        kTable: ks,
        chosenK,
        defaultK: DEFAULT_K,
        defaultLog: DEFAULT_LOG,
        bound,
        scale,
      },
    };
  } finally {
    for (const d of dirs) removeDir(d);
  }
}
