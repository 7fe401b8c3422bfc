import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { Memory } from '../../../src/index.js';
import { readEvents } from '../../support/events.js';
import { assertFreshBuild, FIXTURES, REPO_ROOT, tempDir } from './harness.js';

const run = promisify(execFile);
const PI_CLI = join(REPO_ROOT, 'node_modules/@earendil-works/pi-coding-agent/dist/cli.js');

describe('the real `pi` CLI (print mode) with this package loaded', () => {
  it('runs a scripted session: memory tool on the first turn, tool calls logged, session boundaries recorded', async () => {
    assertFreshBuild();
    const dir = tempDir('gcc-pi-cli-');
    (await Memory.open(dir, { create: true })).close();
    const agentDir = tempDir('gcc-pi-cli-agent-');
    const script = join(agentDir, 'script.json');
    const llmLog = join(agentDir, 'llm.jsonl');
    writeFileSync(
      script,
      JSON.stringify([
        {
          content: [{ type: 'toolCall', name: 'gcc_commit', arguments: { contribution: 'Committed from the pi CLI' } }],
        },
        { content: [{ type: 'toolCall', name: 'bash', arguments: { command: 'echo from-cli-bash' } }] },
        { content: [{ type: 'toolCall', name: 'write', arguments: { path: '.GCC/log.md', content: 'forged' } }] },
        { content: [{ type: 'text', text: 'All done.' }] },
      ]),
    );
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
        'please commit',
      ],
      {
        cwd: dir,
        env: { ...process.env, PI_CODING_AGENT_DIR: agentDir, FAKE_LLM_SCRIPT: script, FAKE_LLM_LOG: llmLog },
        timeout: 300_000,
      },
    );
    // Print mode reads piped stdin into the prompt: end it, or pi waits for it forever.
    child.child.stdin?.end();
    const { stdout } = await child;
    expect(stdout.trim()).toBe('All done.');
    const firstRequest = JSON.parse(readFileSync(llmLog, 'utf8').split('\n')[0] as string) as { tools: string[] };
    expect(firstRequest.tools).toEqual(expect.arrayContaining(['gcc_commit', 'gcc_context']));
    expect(readFileSync(join(dir, '.GCC/log.md'), 'utf8')).not.toBe('forged');

    const events = await readEvents(dir);
    expect(events.find((e) => e.type === 'commit.recorded')?.data).toMatchObject({
      contribution: 'Committed from the pi CLI',
    });
    const tools = events.flatMap((e) =>
      e.type === 'tool.recorded' ? [`${e.data.tool}:${e.data.isError ? 'error' : 'ok'}`] : [],
    );
    expect(tools).toEqual(['bash:ok', 'write:error']);
    const sessions = events.flatMap((e) =>
      e.type === 'session.started' || e.type === 'session.ended' ? [`${e.type}:${e.data.reason}`] : [],
    );
    expect(sessions).toEqual(['session.started:startup', 'session.ended:quit']);
  });
});
