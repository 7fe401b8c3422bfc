/**
 * The executable as shipped: package.json `bin` is the bundle built by scripts/bundle.mjs, it
 * runs on its own (node builtins and its own files only), and each front door (hook-main.js,
 * mcp-main.js, main.js) loads only its part of it. What is loaded is read from Node's module
 * hooks, not from timings.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI } from '../../support/cli.js';
import { NODE, REPO } from '../mcp/client.js';
import { fixture } from '../hook/run.js';

const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
  version: string;
  bin: Record<string, string>;
  files: string[];
};
const BIN_DIR = dirname(CLI);

/** Prints, on exit, every file the process loaded through import or require. */
const TRACE = `data:text/javascript,${encodeURIComponent(
  "import { registerHooks } from 'node:module'; import { writeSync } from 'node:fs'; const seen = []; " +
    'registerHooks({ load(url, context, next) { seen.push(url); return next(url, context); } }); ' +
    "process.on('exit', () => writeSync(2, '@@loaded ' + JSON.stringify(seen) + '\\n'));",
)}`;

function traced(args: string[], input: string, cwd: string): { stdout: string; loaded: string[] } {
  const r = spawnSync(NODE, ['--import', TRACE, CLI, ...args], {
    input,
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GCC_SESSION: '' },
  });
  expect(r.status).toBe(0);
  const line = r.stderr.split('\n').find((l) => l.startsWith('@@loaded '));
  const urls = JSON.parse(line!.slice('@@loaded '.length)) as string[];
  return {
    stdout: r.stdout,
    loaded: urls
      .filter((u) => u.startsWith('file:'))
      .map((u) => (u.includes('/node_modules/') ? u : basename(new URL(u).pathname))),
  };
}

/** The builtins a process loaded, of those only some paths need. */
function builtins(args: string[], input: string, cwd: string): string[] {
  const probe = `data:text/javascript,${encodeURIComponent("process.on('exit', () => process.stderr.write('@@builtins ' + JSON.stringify(process.moduleLoadList) + '\\n'));")}`;
  const r = spawnSync(NODE, ['--import', probe, CLI, ...args], {
    input,
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GCC_SESSION: '' },
  });
  const line = r.stderr.split('\n').find((l) => l.startsWith('@@builtins '));
  const list = JSON.parse(line!.slice('@@builtins '.length)) as string[];
  return list
    .filter((m) => /^NativeModule (crypto|child_process|zlib)$/.test(m))
    .map((m) => m.slice('NativeModule '.length));
}

/**
 * Whether a process loaded Node's streams, its stdin a pipe from a shell (not the socket pair
 * spawnSync would give it), its stdout and stderr what spawnSync gives.
 */
function loadsStreams(args: string[], input: string, cwd: string): boolean {
  const probe = `data:text/javascript,${encodeURIComponent("process.on('exit', () => process.getBuiltinModule('node:fs').writeSync(2, '@@builtins ' + JSON.stringify(process.moduleLoadList) + '\\n'));")}`;
  const file = join(mkdtempSync(join(tmpdir(), 'gcc-stdin-')), 'stdin.txt');
  writeFileSync(file, input);
  const r = spawnSync(
    'sh',
    ['-c', 'f=$1; shift; cat "$f" | exec "$@"', 'sh', file, NODE, '--import', probe, CLI, ...args],
    { cwd, encoding: 'utf8', env: { ...process.env, GCC_SESSION: '' } },
  );
  expect(r.status, r.stderr).toBe(0);
  const line = r.stderr.split('\n').find((l) => l.startsWith('@@builtins '));
  const list = JSON.parse(line!.slice('@@builtins '.length)) as string[];
  return list.some((m) => /^NativeModule (stream|internal\/streams\/(readable|writable|duplex))$/.test(m));
}

const project = () => {
  const dir = mkdtempSync(join(tmpdir(), 'gcc-bin-'));
  expect(spawnSync(NODE, [CLI, 'init', '--dir', dir]).status).toBe(0);
  return dir;
};
const chunk = (name: string) => new RegExp(`^${name}-[A-Z0-9]+\\.js$`);
const none = (loaded: string[], ...names: (string | RegExp)[]) => {
  for (const n of names) expect(loaded.filter((f) => (typeof n === 'string' ? f === n : n.test(f)))).toEqual([]);
};

describe('the gctx executable', () => {
  it('is the bundle in dist/bin, shipped with the package', () => {
    expect(pkg.bin.gctx).toBe('dist/bin/gctx.js');
    expect(pkg.files).toContain('dist');
    expect(readFileSync(CLI, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
  });

  it('imports nothing but node builtins and its own files (and the optional inspector, only when asked for)', () => {
    const chunks = readdirSync(BIN_DIR).filter((f) => f.endsWith('.js'));
    expect(chunks.length).toBeGreaterThan(1);
    for (const f of chunks) {
      const text = readFileSync(join(BIN_DIR, f), 'utf8');
      const specifiers = [
        ...text.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s*"([^"]+)"/gm),
        ...text.matchAll(/\bimport\(\s*"([^"]+)"\s*\)/g),
      ].map((m) => m[1]);
      // @statelyai/inspect is an optional peer, loaded by the inspector chunk only under GCC_INSPECT.
      for (const s of specifiers)
        if (!(f.startsWith('inspect-') && s === '@statelyai/inspect'))
          expect(s, `${f} imports ${s}`).toMatch(/^(node:|\.\/)/);
    }
  });

  it('reports the package version from the bootstrap alone', () => {
    const r = traced(['--version'], '', REPO);
    expect(r.stdout).toBe(`${pkg.version}\n`);
    expect(r.loaded).toEqual(['gctx.js']);
  });

  it('runs every other command through main.js', () => {
    const dir = project();
    const r = traced(['status', '--dir', dir], '', dir);
    expect(r.stdout).toMatch(/^On memory branch main: /);
    expect(r.loaded.slice(0, 2)).toEqual(['gctx.js', 'main.js']);
    expect(r.loaded.some((f) => chunk('memory').test(f))).toBe(true);
    // status takes no arguments: there is nothing for the schemas (zod) to check; it moves no machine (xstate).
    none(r.loaded, 'hook-main.js', 'mcp-main.js', chunk('schema'), 'xstate.cjs');
    // nor does it search: ranked search's code is loaded by a search alone.
    none(r.loaded, chunk('search'));
    // Every file costs a process its resolution and linking: the engine and the command table are a
    // chunk each; the store and the decider are chunks of their own because the hook's slim door
    // shares them without the engine (scripts/bundle.mjs).
    expect(r.loaded.length).toBeLessThanOrEqual(9);
  });

  it('loads ranked search for a search', () => {
    const dir = project();
    expect(spawnSync(NODE, [CLI, 'commit', 'tokenizer done', '--dir', dir]).status).toBe(0);
    const r = traced(['search', 'tokenizer', '--dir', dir], '', dir);
    expect(r.stdout).toMatch(/tokenizer/);
    expect(r.loaded.some((f) => chunk('search').test(f))).toBe(true);
    const c = traced(['context', '--search', 'tokenizer', '--dir', dir], '', dir);
    expect(c.stdout).toMatch(/tokenizer/);
  });

  it('loads crypto, child_process and zlib only on the paths that call them', () => {
    const dir = project();
    // status runs no git, hashes nothing and draws no random ids; the logs' CRC-32 is not zlib's.
    expect(builtins(['status'], '', dir)).toEqual([]);
    // A PreToolUse that decides nothing opens no archive and runs no git.
    expect(builtins(['hook', '--agent', 'claude-code'], fixture('pre-tool-use-bash', dir), dir)).toEqual([]);
    // Logging a tool call draws random ids, read from /dev/urandom rather than through node:crypto,
    // and checks its log's CRC-32 without zlib.
    expect(builtins(['hook', '--agent', 'claude-code'], fixture('post-tool-use-edit', dir), dir)).toEqual([]);
  });

  it('loads no Node streams to read a hook’s payload from a pipe or to write an answer', () => {
    const dir = project();
    expect(loadsStreams(['--version'], '', dir)).toBe(false);
    expect(loadsStreams(['status'], '', dir)).toBe(false);
    expect(loadsStreams(['hook', '--agent', 'claude-code'], fixture('pre-tool-use-bash', dir), dir)).toBe(false);
    expect(loadsStreams(['hook', '--agent', 'claude-code'], fixture('pre-tool-use-write-gcc', dir), dir)).toBe(false);
    expect(loadsStreams(['hook', '--agent', 'claude-code'], fixture('post-tool-use-edit', dir), dir)).toBe(false);
  });

  it('lists the commands without zod or the engine', () => {
    const r = traced(['--help'], '', REPO);
    expect(r.stdout).toMatch(/^ {2}status +where memory stands/m);
    expect(r.loaded.slice(0, 2)).toEqual(['gctx.js', 'main.js']);
    none(r.loaded, chunk('schema'), chunk('memory'), 'hook-main.js', 'mcp-main.js');
  });

  it('runs a command whose arguments fit their declaration without its schema (zod words the misfits)', () => {
    const dir = project();
    const r = traced(['commit', 'first', '--dir', dir], '', dir);
    expect(r.stdout).toMatch(/^Committed C001 /);
    none(r.loaded, chunk('schema'));
    // A commit moves the branch's machine.
    expect(r.loaded).toContain('xstate.cjs');
  });

  it('carries yaml, diff, xstate and ajv as files of their own', () => {
    const require = createRequire(CLI);
    expect(typeof (require('./xstate.cjs') as typeof import('xstate')).createMachine).toBe('function');
    expect((require('./yaml.cjs') as typeof import('yaml')).stringify({ a: [1] })).toBe('a:\n  - 1\n');
    expect((require('./diff.cjs') as typeof import('diff')).diffLines('a\n', 'b\n').length).toBe(2);
    const { Ajv, addFormats } = require('./ajv.cjs') as {
      Ajv: new (o: object) => { validate: (s: object, d: unknown) => boolean };
      addFormats: (a: object) => void;
    };
    const ajv = new Ajv({ strict: false });
    addFormats(ajv);
    expect([
      ajv.validate({ type: 'string', format: 'email' }, 'a@b.example'),
      ajv.validate({ type: 'string', format: 'email' }, 'nope'),
    ]).toEqual([true, false]);
  });

  it('answers a PreToolUse that decides nothing without the engine, yaml, diff, the CLI table or the MCP SDK', () => {
    const dir = project();
    const r = traced(['hook', '--agent', 'claude-code'], fixture('pre-tool-use-bash', dir), dir);
    expect(r.stdout).toBe('');
    expect(r.loaded.slice(0, 2)).toEqual(['gctx.js', 'hook-main.js']);
    expect(r.loaded.filter((f) => f.includes('/node_modules/'))).toEqual([]);
    // Nor the redactor: nothing is logged.
    none(
      r.loaded,
      chunk('memory'),
      chunk('redact'),
      'main.js',
      'mcp-main.js',
      chunk('server'),
      'yaml.cjs',
      'diff.cjs',
      'ajv.cjs',
    );
    // The bootstrap, the door, what it shares with what it loads on demand, the write guard.
    expect(r.loaded.length).toBeLessThanOrEqual(4);
  });

  it('logs a PostToolUse without the engine (the slim path), the CLI table or the MCP SDK', () => {
    const dir = project();
    const r = traced(['hook', '--agent', 'claude-code'], fixture('post-tool-use-edit', dir), dir);
    expect(r.loaded.some((f) => chunk('slim-record').test(f))).toBe(true);
    none(r.loaded, chunk('memory'));
    // The edit's changed lines share none, so their counts need no diff.
    none(r.loaded, 'diff.cjs');
    expect(r.loaded.filter((f) => f.includes('/node_modules/'))).toEqual([]);
    // A tool call moves no branch or session machine.
    none(r.loaded, 'main.js', 'mcp-main.js', chunk('server'), 'ajv.cjs', 'xstate.cjs');
    // Nor the write guard's reading of shell commands, loaded by a PreToolUse only.
    none(r.loaded, chunk('gcc-write-guard'));
    // The door, the slim path with the store, the decider and the redactors in one chunk: six files.
    expect(r.loaded.length).toBeLessThanOrEqual(6);
  });

  it('serves MCP without the CLI table and without ajv', () => {
    const dir = project();
    const lines = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'context', arguments: {} } },
    ];
    const r = traced(['mcp', '--dir', dir], lines.map((l) => JSON.stringify(l)).join('\n') + '\n', dir);
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { id: number }).id),
    ).toEqual([1, 2]);
    expect(r.loaded.slice(0, 2)).toEqual(['gctx.js', 'mcp-main.js']);
    expect(r.loaded.filter((f) => f.includes('/node_modules/'))).toEqual([]);
    none(r.loaded, 'main.js', 'hook-main.js', 'ajv.cjs');
  });
});
