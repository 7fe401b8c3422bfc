import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usageOf } from '../../../src/adapters/cli/args.js';
import { operationNamed, operationsFor } from '../../../src/operations/index.js';
import { Memory } from '../../../src/index.js';
import { readEvents } from '../../support/events.js';
import { assertFreshBuild, createHost, FIXTURES, type Host, REPO_ROOT, tempDir } from './harness.js';

const run = promisify(execFile);
const PI_CLI = join(REPO_ROOT, 'node_modules/@earendil-works/pi-coding-agent/dist/cli.js');

/** `/gcc …` output entries, which the person sees and the model does not. */
const outputs = (h: Host) =>
  h
    .session()
    .sessionManager.getEntries()
    .flatMap((e) =>
      e.type === 'custom' && e.customType === 'gcc-output' ? [e.data as { title: string; text: string }] : [],
    );

const usage = (name: string) => usageOf(operationNamed(name)!, '/gcc');

/** One host for the whole file: each `/gcc` line is typed into it in turn. */
let h: Host;
let dir: string;
beforeAll(async () => {
  dir = tempDir('gcc-pi-project-');
  (await Memory.open(dir, { create: true })).close();
  h = await createHost({ cwd: dir });
});
afterAll(async () => {
  await h.dispose();
});

/** Type one line; the output it adds. */
async function gcc(line: string): Promise<{ title: string; text: string }> {
  const before = outputs(h).length;
  await h.session().prompt(line);
  const out = outputs(h);
  expect(out.length, line).toBe(before + 1);
  return out.at(-1)!;
}

describe('the /gcc command on the real host', () => {
  it("takes the command line's own words, for the person, out of the model's context", async () => {
    expect((await gcc('/gcc roadmap add Parse the config format')).text).toBe(
      'Added objective 1: Parse the config format',
    );
    expect((await gcc('/gcc branch try-toml --purpose "see whether TOML fits" --hypothesis simpler')).text).toBe(
      'Created branch try-toml from main and switched to it',
    );
    const commit = await gcc('/gcc commit "two words" --next "x"');
    expect(commit).toMatchObject({ title: 'gcc commit' });
    expect(commit.text).toMatch(/^Committed C001 \([0-9a-f]{7}\) on try-toml: two words$/);
    await gcc("/gcc commit TOML parser drafted --title 'TOML draft'");

    const status = await gcc('/gcc status');
    expect(status.text).toContain('On memory branch try-toml (from main): see whether TOML fits');
    expect(status.text).toContain('Parse the config format');
    expect(status.text).toMatch(/Memory session: pi:/);
    const branch = (await gcc('/gcc context --branch')).text;
    expect(branch).toMatch(/Hypotheses: simpler[^]*earlier: C001 two words[^]*TOML parser drafted/);

    // A cut list says how to get the older part in /gcc's own words.
    const log = await gcc('/gcc context --log 2');
    expect(log.text).toMatch(/^Log of try-toml, newest first: entries 3 to 2 of 3\n/);
    expect(log.text).toContain('… 1 older entry: /gcc context --log 2 --on try-toml --page 2');
    expect((await gcc('/gcc context --log 2 --on try-toml --page 2')).text).toMatch(
      /Branch try-toml started from main: see whether TOML fits$/,
    );

    expect((await gcc('/gcc search TOML draft')).text).toMatch(/match(es)? for "TOML draft"[^]*try-toml C002/);
    expect((await gcc('/gcc graph')).text).toMatch(/^gitGraph/m);

    const recorded = (await readEvents(dir)).flatMap((e) =>
      e.type === 'commit.recorded' ? [[e.branch, e.data.contribution, e.data.title, e.data.next]] : [],
    );
    expect(recorded).toEqual([
      ['try-toml', 'two words', 'two words', 'x'],
      ['try-toml', 'TOML parser drafted', 'TOML draft', undefined],
    ]);
    // The model was never called and saw none of it.
    expect(h.requests).toEqual([]);
    expect(h.visible().some((m) => m.text.includes('TOML parser drafted'))).toBe(false);
  });

  it('answers mistakes with the code, what is wrong and the usage', async () => {
    expect((await gcc('/gcc switch no-such-branch')).text).toMatch(/^E_BRANCH_NOT_FOUND: /);
    const bare = await gcc('/gcc commit');
    expect(bare.text).toBe(
      `E_INVALID_ARGUMENT: missing contribution Fix: ${usage('commit')} (required: contribution; optional: title, next, check, files)`,
    );
    expect((await gcc('/gcc branch try-x')).text).toBe(
      `E_INVALID_ARGUMENT: missing purpose Fix: ${usage('branch')} (required: name, purpose; optional: hypotheses)`,
    );
    expect((await gcc('/gcc context --log many')).text).toBe(
      `E_INVALID_ARGUMENT: --log takes a whole number above 0 Fix: ${usage('context')}`,
    );
    expect((await gcc('/gcc switch main extra')).text).toBe(
      `E_INVALID_ARGUMENT: unexpected word: "extra" Fix: ${usage('switch')}`,
    );
    // An unknown subcommand lists what there is.
    const unknown = await gcc('/gcc frobnicate');
    expect(unknown.text).toMatch(/^unknown subcommand "frobnicate"/);
    for (const op of operationsFor('slash')) expect(unknown.text).toContain(usageOf(op, '/gcc'));
    expect(h.requests).toEqual([]);
  });

  it('help lists every operation offered to /gcc with the usage generated for it', async () => {
    const help = await gcc('/gcc help');
    const ops = operationsFor('slash');
    expect(ops.map((op) => op.name)).toEqual(
      expect.arrayContaining(['status', 'commit', 'branch', 'context', 'search', 'log']),
    );
    for (const op of ops) expect(help.text).toContain(`${usageOf(op, '/gcc')}\n    ${op.summary}`);
    expect([...help.text.matchAll(/^\/gcc (\S+)/gm)].map((m) => m[1])).toEqual(ops.map((op) => op.name));
  });

  it('helps with one command, suggests the nearest name, and says fixes in /gcc words', async () => {
    const one = await gcc('/gcc help commit');
    expect(one.text).toContain(`Usage: /gcc commit <contribution…>`);
    expect(one.text).toContain(`Example:\n  /gcc ${operationNamed('commit')!.example}`);
    expect((await gcc('/gcc comit x')).text).toMatch(/^unknown subcommand "comit" \(did you mean commit\?\)/);
    expect((await gcc('/gcc switch no-such-branch')).text).toContain('Fix: see the branches with `/gcc status`');
  });
});

describe('`pi -p "/gcc …"` (print mode, the real pi CLI)', () => {
  it('prints the answer on stdout', async () => {
    assertFreshBuild();
    const agentDir = tempDir('gcc-pi-print-agent-');
    const script = join(agentDir, 'script.json');
    writeFileSync(script, JSON.stringify([{ content: [{ type: 'text', text: 'unused' }] }]));
    const child = run(
      process.execPath,
      [
        PI_CLI,
        '-p',
        '--no-session',
        '--no-context-files',
        '--no-skills',
        '-e',
        join(FIXTURES, 'fake-llm.ts'),
        '-e',
        REPO_ROOT,
        '--model',
        'fake/fake-1',
        '--thinking',
        'off',
        '/gcc status',
      ],
      {
        cwd: dir,
        env: { ...process.env, PI_CODING_AGENT_DIR: agentDir, FAKE_LLM_SCRIPT: script },
        timeout: 300_000,
      },
    );
    // Print mode reads piped stdin into the prompt: end it, or pi waits for it forever.
    child.child.stdin?.end();
    const { stdout, stderr } = await child;
    expect(stdout, stderr).toMatch(/^On memory branch \S+/);
    expect(stdout).toContain('Memory session: ');
  });
});
