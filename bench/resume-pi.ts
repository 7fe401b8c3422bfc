/**
 * Shape C of the resume benchmark (bench/resume.js): one task spread over two Pi sessions, a
 * compaction in each, on the real Pi 1.6 host (test/adapters/pi/harness.ts: Pi's runtime, this
 * package loaded through its manifest, a scripted model). The model calls the gcc_* tools and
 * Pi's own read/write/edit/bash, which the extension logs through its hook bridge.
 *
 *   session 1 (startup): objectives; a parser tried on a branch and abandoned; a commit on main;
 *                        a compaction; a second commit; shutdown
 *   session 2 (a new Pi session in the same project, as the next day's `pi` is): reads the
 *                        briefing Pi hands over, calls gcc_context; branches, finds its
 *                        hypothesis wrong, commits; a compaction; edits left uncommitted;
 *                        shutdown
 *
 * Run by bench/resume.js as `node --import tsx bench/resume-pi.ts <project dir>` (Pi needs
 * Node ≥ 22.19). Prints one JSON object: the memory session ids and, for each point where a
 * resuming model reads memory, the briefing as it stands in the model's context and the text
 * of its gcc_context call.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { call, createHost, type Host, say, tempDir } from '../test/adapters/pi/harness.js';

const dir = process.argv[2];
if (!dir) throw new Error('usage: node --import tsx bench/resume-pi.ts <project dir with .GCC/>');

const settings = { compaction: { enabled: false, keepRecentTokens: 10, reserveTokens: 16384 } };
const agentDir = tempDir('gcc-bench-pi-agent-');

function file(path: string, text: string): void {
  mkdirSync(dirname(join(dir!, path)), { recursive: true });
  writeFileSync(join(dir!, path), text);
}

/** The repository as the task finds it. */
file(
  'src/config/load.ts',
  "import { readFileSync } from 'node:fs';\n\nexport function loadConfig(path: string) {\n  return JSON.parse(readFileSync(path, 'utf8'));\n}\n",
);
file('package.json', '{ "name": "app", "type": "module" }\n');

const briefings = (h: Host) => h.visible().filter((m) => m.customType === 'gcc-briefing');
const lastBriefing = (h: Host) => briefings(h).at(-1)?.text ?? '';
const sessionId = (h: Host) => `pi:${h.session().sessionManager.getSessionId()}`;
const lastResult = (h: Host, tool: string) =>
  h
    .toolResults()
    .filter((r) => r.toolName === tool)
    .at(-1);

function checkTools(h: Host): void {
  const failed = h.toolResults().filter((r) => r.isError && r.toolName.startsWith('gcc_'));
  if (failed.length) throw new Error(`memory tool failed: ${failed.map((r) => `${r.toolName}: ${r.text}`).join('; ')}`);
  if (h.errors.length) throw new Error(`extension errors: ${h.errors.map(String).join('; ')}`);
}

/** Pi compacts: the scripted model writes the summary; the extension sends the briefing again. */
async function compact(h: Host): Promise<void> {
  // A few long turns so there is something to summarize before the kept tail.
  for (let i = 0; i < 3; i++) await h.turn(`status check ${i} `.repeat(30), [say(`still on it ${i} `.repeat(30))]);
  h.script([
    say('## Goal\nMove the config to TOML.\n## Progress\nSee the memory.'),
    say('## Goal\nMove the config to TOML.'),
  ]);
  await h.session().compact();
}

const fail = (text: string) => `printf '%s\\n' ${JSON.stringify(text)} >&2; exit 1`;

async function main(): Promise<void> {
  const out: Record<string, unknown> = {};

  // ---------------------------------------------------------------- session 1
  const s1 = await createHost({ cwd: dir, persist: true, agentDir, settings });
  if (s1.loadErrors.length) throw new Error(`Pi could not load the extension: ${s1.loadErrors.map(String).join('; ')}`);
  out.session1 = sessionId(s1);
  await s1.turn('Plan the move of the config from JSON to TOML', [
    call('gcc_roadmap', {
      action: 'add',
      target: 'Read the CLI config from ~/.apprc.toml instead of ~/.apprc.json, keeping every existing key',
    }),
    call('gcc_roadmap', { action: 'add', target: 'Migrate existing JSON configs on first run, keeping a backup' }),
    call('read', { path: 'src/config/load.ts' }),
    say('Two objectives recorded.'),
  ]);
  await s1.turn('Try a TOML parser', [
    call('gcc_branch', {
      name: 'try-iarna-toml',
      purpose: 'Parse the config with @iarna/toml',
      hypotheses: ['@iarna/toml reads every config our users write'],
    }),
    call('write', {
      path: 'src/config/toml.ts',
      content: "import TOML from '@iarna/toml';\n\nexport const parseToml = (text: string) => TOML.parse(text);\n",
    }),
    call('bash', {
      command: fail(
        'FAIL test/config/toml.test.ts > reads dotted keys\nTomlError: Unexpected character, expected only whitespace or comments till end of line at row 3, col 12:\n  server.port = 8080\n@iarna/toml implements TOML 0.5; dotted keys are TOML 1.0',
      ),
    }),
    call('gcc_abandon', {
      branch: 'try-iarna-toml',
      reason:
        '@iarna/toml implements TOML 0.5 and rejects the dotted keys (server.port = 8080) our users write; it has had no release since 2020.',
    }),
    say('Dropped @iarna/toml.'),
  ]);
  await s1.turn('Use a TOML 1.0 parser', [
    call('edit', {
      path: 'src/config/toml.ts',
      edits: [
        {
          oldText: "import TOML from '@iarna/toml';\n\nexport const parseToml = (text: string) => TOML.parse(text);",
          newText: "import { parse } from 'smol-toml';\n\nexport const parseToml = (text: string) => parse(text);",
        },
      ],
    }),
    call('edit', {
      path: 'src/config/load.ts',
      edits: [
        {
          oldText: "  return JSON.parse(readFileSync(path, 'utf8'));",
          newText:
            "  const text = readFileSync(path, 'utf8');\n  return path.endsWith('.toml') ? parseToml(text) : JSON.parse(text);",
        },
      ],
    }),
    call('bash', { command: "echo ' ✓ test/config/toml.test.ts (6 tests) 41ms'" }),
    call('gcc_commit', {
      contribution:
        'Config is read with smol-toml (TOML 1.0, dotted keys work) in src/config/toml.ts; load.ts tries ~/.apprc.toml first, then the JSON file.',
      next: 'Write the first-run JSON-to-TOML migration, keeping a backup',
    }),
    say('Committed.'),
  ]);
  await compact(s1);
  out.session1AfterCompaction = { briefing: lastBriefing(s1), briefings: briefings(s1).length };
  await s1.turn('Write the migration', [
    call('write', {
      path: 'src/config/migrate.ts',
      content:
        "export function migrate(jsonPath: string, tomlPath: string) {\n  // read JSON, write TOML, keep jsonPath + '.bak'\n}\n",
    }),
    call('bash', { command: "echo ' ✓ test/config/migrate.test.ts (4 tests) 30ms'" }),
    call('gcc_commit', {
      contribution:
        'First-run migration in src/config/migrate.ts turns ~/.apprc.json into ~/.apprc.toml and keeps the JSON as ~/.apprc.json.bak rather than deleting it, so a downgrade still finds its config.',
      check: ['2'],
      next: 'Decide what JSON null values become: TOML has no null',
    }),
    say('Migration done.'),
  ]);
  checkTools(s1);
  await s1.dispose();

  // ---------------------------------------------------------------- session 2
  const s2 = await createHost({ cwd: dir, persist: true, agentDir, settings });
  out.session2 = sessionId(s2);
  await s2.turn('Carry on with the TOML config', [call('gcc_context', {}), say('Picking up from memory.')]);
  out.session2Start = {
    briefing: lastBriefing(s2),
    briefings: briefings(s2).length,
    context: lastResult(s2, 'gcc_context')?.text ?? '',
  };
  await s2.turn('Handle null values', [
    call('gcc_branch', {
      name: 'null-keys',
      purpose: 'Decide what JSON null values become in TOML',
      hypotheses: ['Dropping null keys loses nothing: null means "use the default" everywhere'],
    }),
    call('edit', {
      path: 'src/config/migrate.ts',
      edits: [
        {
          oldText: "  // read JSON, write TOML, keep jsonPath + '.bak'",
          newText: "  // read JSON, drop null keys, write TOML, keep jsonPath + '.bak'",
        },
      ],
    }),
    call('bash', {
      command: fail(
        "FAIL test/config/migrate.test.ts > keeps proxy: null\nexpected proxy to be null, got the system proxy\nproxy = null disables the proxy; a missing key means 'use the system proxy'",
      ),
    }),
    call('edit', {
      path: 'src/config/migrate.ts',
      edits: [{ oldText: 'drop null keys', newText: "write null keys as '# key = null  # gcc-migrated'" }],
    }),
    call('gcc_commit', {
      contribution:
        'Dropping nulls was wrong: proxy = null disables the system proxy, while a missing proxy key means "use it". The migration writes each null as a marked comment (# proxy = null  # gcc-migrated) instead of dropping it.',
      next: 'Make load.ts read the "# key = null  # gcc-migrated" marker back as null, then run the migration over the sample configs in test/fixtures/configs',
    }),
    say('Nulls are kept as marked comments.'),
  ]);
  await compact(s2);
  await s2.turn('Read the marker back', [
    call('edit', {
      path: 'src/config/load.ts',
      edits: [
        {
          oldText: "  const text = readFileSync(path, 'utf8');",
          newText: "  const text = restoreNulls(readFileSync(path, 'utf8'));",
        },
      ],
    }),
    call('write', {
      path: 'test/config/load.test.ts',
      content: "import { loadConfig } from '../../src/config/load.js';\n// proxy = null survives a round trip\n",
    }),
    call('gcc_context', {}),
    say('Halfway through the loader change.'),
  ]);
  out.session2AfterCompaction = {
    briefing: lastBriefing(s2),
    briefings: briefings(s2).length,
    context: lastResult(s2, 'gcc_context')?.text ?? '',
  };
  checkTools(s2);
  await s2.dispose();
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

main().then(
  () => {
    rmSync(agentDir, { recursive: true, force: true });
    process.exit(0);
  },
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
