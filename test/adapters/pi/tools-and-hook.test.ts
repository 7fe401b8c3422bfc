import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Memory } from '../../../src/index.js';
import { call, createHost, type Host, say, tempDir } from './harness.js';

const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.dispose();
});

async function project(config?: Record<string, number | boolean>): Promise<string> {
  const dir = tempDir('gcc-pi-project-');
  const m = await Memory.open(dir, { create: true });
  for (const [key, value] of Object.entries(config ?? {})) await m.execute({ type: 'config', key, value });
  m.close();
  return dir;
}

async function host(cwd: string): Promise<Host> {
  const h = await createHost({ cwd });
  hosts.push(h);
  expect(h.loadErrors).toEqual([]);
  return h;
}

async function events(dir: string) {
  const m = await Memory.open(dir);
  try {
    return m.events();
  } finally {
    m.close();
  }
}

describe('Pi extension on the real host: tools and hook bridge', () => {
  it('runs on Node 22', () => {
    expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(22);
  });

  it('lets the model commit on the first turn of a new session', async () => {
    const dir = await project();
    const h = await host(dir);
    await h.turn('do the thing', [call('gcc_commit', { contribution: 'Set up the parser skeleton', title: 'Parser skeleton' }), say('done')]);
    expect(h.requests[0]?.tools).toEqual(expect.arrayContaining(['gcc_commit', 'gcc_branch', 'gcc_context', 'gcc_search']));
    const [r] = h.toolResults();
    expect(r?.isError, r?.text).toBe(false);
    expect(readFileSync(join(dir, '.GCC/commit.md'), 'utf8')).toContain('Set up the parser skeleton');
    expect(h.errors).toEqual([]);
  });
});
