import { afterEach, describe, expect, it } from 'vitest';
import { Memory } from '../../../src/index.js';
import { createHost, type Host, tempDir } from './harness.js';

const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.dispose();
});

/** `/gcc …` output entries, which the person sees and the model does not. */
const outputs = (h: Host) =>
  h
    .session()
    .sessionManager.getEntries()
    .flatMap((e) => (e.type === 'custom' && e.customType === 'gcc-output' ? [(e.data as { title: string; text: string })] : []));

describe('the /gcc command on the real host', () => {
  it('runs memory operations for the person, out of the model\'s context', async () => {
    const dir = tempDir('gcc-pi-project-');
    (await Memory.open(dir, { create: true })).close();
    const h = await createHost({ cwd: dir });
    hosts.push(h);
    await h.session().prompt('/gcc roadmap add Parse the config format');
    await h.session().prompt('/gcc branch try-toml see whether TOML fits');
    await h.session().prompt('/gcc commit TOML parser drafted');
    await h.session().prompt('/gcc status');
    await h.session().prompt('/gcc context branch');
    await h.session().prompt('/gcc graph');
    await h.session().prompt('/gcc switch no-such-branch');
    const out = outputs(h);
    expect(out.map((o) => o.title)).toEqual(['gcc roadmap', 'gcc branch', 'gcc commit', 'gcc status', 'gcc context', 'gcc graph', 'gcc switch']);
    expect(out[3]?.text).toContain('Parse the config format');
    expect(out[3]?.text).toMatch(/Memory session: pi:/);
    expect(out[4]?.text).toContain('TOML parser drafted');
    expect(out[5]?.text).toMatch(/^gitGraph/m);
    expect(out[6]?.text).toMatch(/^E_BRANCH_NOT_FOUND/);
    // The model was never called and saw none of it.
    expect(h.requests).toEqual([]);
    expect(h.visible().some((m) => m.text.includes('TOML parser drafted'))).toBe(false);
    const m = await Memory.open(dir);
    const commit = m.events().find((e) => e.type === 'commit.recorded');
    m.close();
    expect(commit?.branch).toBe('try-toml');
  });
});
