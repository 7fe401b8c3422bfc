import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Memory } from '../../../src/index.js';
import { lifecycle, localEvents, readEvents } from '../../support/events.js';
import { call, createHost, type Host, say, tempDir } from './harness.js';

const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.dispose();
});

async function project(): Promise<string> {
  const dir = tempDir('gcc-pi-project-');
  const m = await Memory.open(dir, { create: true });
  await m.execute({ type: 'roadmap', action: 'add', target: 'Ship the streaming parser' });
  m.close();
  return dir;
}

const briefings = (h: Host) => h.visible().filter((m) => m.customType === 'gcc-briefing');
const notices = (h: Host) => h.visible().filter((m) => m.customType === 'gcc-notice');

async function sessionEvents(dir: string) {
  return (await readEvents(dir))
    .filter((e) => e.type.startsWith('session.'))
    .map((e) => `${e.type}:${'reason' in e.data ? e.data.reason : ''}`);
}

describe('Pi extension on the real host: session lifecycle', () => {
  it('stores the briefing once as hidden project data, and keeps it single across reload and resume', async () => {
    const dir = await project();
    const h = await createHost({ cwd: dir, persist: true });
    hosts.push(h);
    expect(briefings(h)).toHaveLength(1);
    const [b] = briefings(h);
    expect(b?.text).toContain('Ship the streaming parser');
    expect(b?.text).toMatch(/^<gcc-memory source="\.GCC\/">/);
    expect(b?.text).toMatch(/not instructions/);
    // Not in the system prompt: prefix caching holds.
    expect(h.session().systemPrompt).not.toContain('Ship the streaming parser');

    await h.turn('hello', [say('hi')]);
    // The model saw it on the first request.
    expect(h.requests[0]?.messages.some((m) => m.text.includes('Ship the streaming parser'))).toBe(true);

    await h.session().reload();
    expect(briefings(h)).toHaveLength(1);

    const file = h.session().sessionFile as string;
    await h.runtime.newSession();
    expect(briefings(h)).toHaveLength(1); // a new session gets its own
    await h.runtime.switchSession(file);
    expect(briefings(h)).toHaveLength(1); // resume: still one
    await h.turn('again', [say('hi again')]);
    expect(briefings(h)).toHaveLength(1);

    expect(await sessionEvents(dir)).toEqual([
      'session.started:startup',
      'session.ended:reload',
      'session.started:reload',
      'session.ended:new',
      'session.started:new',
      'session.ended:resume',
      'session.started:resume',
    ]);
  });

  it('sends the briefing again after a compaction dropped it; start, compaction and shutdown are logged once each, locally, as host pi', async () => {
    const dir = await project();
    const h = await createHost({
      cwd: dir,
      persist: true,
      settings: { compaction: { enabled: false, keepRecentTokens: 10, reserveTokens: 16384 } },
    });
    hosts.push(h);
    for (let i = 0; i < 3; i++) await h.turn(`question ${i} `.repeat(30), [say(`answer ${i} `.repeat(30))]);
    expect(briefings(h)).toHaveLength(1);
    h.script([say('## Goal\nsummary of the conversation'), say('## Goal\nsummary of the conversation')]);
    await h.session().compact();
    const visible = h.visible();
    expect(visible.filter((m) => m.customType === 'gcc-briefing')).toHaveLength(1);
    // It comes after the compaction summary, i.e. it was re-sent, not kept.
    const summaryAt = visible.findIndex((m) => m.role === 'compactionSummary');
    const briefingAt = visible.findIndex((m) => m.customType === 'gcc-briefing');
    expect(summaryAt).toBeGreaterThanOrEqual(0);
    expect(briefingAt).toBeGreaterThan(summaryAt);
    const session = `pi:${h.session().sessionManager.getSessionId()}`;
    await h.dispose();
    hosts.splice(hosts.indexOf(h), 1);
    // The same lifecycle a Claude Code session records through its hooks, from the same machine.
    const local = localEvents(dir);
    expect(lifecycle(local)).toEqual(['session.started:pi:startup', 'session.compacted:pi:', 'session.ended:pi:quit']);
    for (const e of local.filter((x) => x.type.startsWith('session.'))) expect(e.data).toMatchObject({ session });
    expect(await sessionEvents(dir)).toEqual(['session.started:startup', 'session.compacted:', 'session.ended:quit']);
    // The user's words are memory: each prompt once, locally; before the cut, the agent's last words were kept.
    const prompts = local
      .filter((e) => e.type === 'prompt.recorded')
      .map((e) => (e.type === 'prompt.recorded' ? e.data : null));
    expect(prompts.map((p) => p?.text.trim().slice(0, 10))).toEqual(['question 0', 'question 1', 'question 2']);
    expect(prompts.every((p) => p?.host === 'pi' && p.session === session)).toBe(true);
    const checkpoint = (await readEvents(dir)).find((e) => e.type === 'ota.logged');
    // Pi keeps the newest turn in context: the checkpoint holds the newest of what it cut.
    expect(checkpoint?.data).toMatchObject({
      observation: 'Checkpoint before a compaction',
      thought: expect.stringMatching(/^answer 1/),
    });
    expect(briefingAt >= 0 && visible[briefingAt]!.text).toMatch(/The user's last request \([^)]*\): "question 2/);
  });

  it('keeps a session on a corrupt .GCC/ working, and tells the first turn what is wrong and how to fix it', async () => {
    const dir = await project();
    const segments = readdirSync(join(dir, '.GCC/events'), { recursive: true, encoding: 'utf8' }).filter((f) =>
      f.endsWith('.md'),
    );
    expect(segments).toHaveLength(1);
    const log = join(dir, '.GCC/events', segments[0]!);
    // Damage an acknowledged entry of the segment (not a torn tail).
    const text = readFileSync(log, 'utf8');
    // Damage the event itself (its machine line), which the integrity check covers.
    const damaged = text.replace('"text":"Ship the streaming parser"', '"text":"Ship the streaming PARSER"');
    expect(damaged).not.toBe(text);
    writeFileSync(log, damaged);
    const h = await createHost({ cwd: dir });
    hosts.push(h);
    expect(h.loadErrors).toEqual([]);
    await h.turn('work', [
      call('bash', { command: 'echo still working' }),
      call('gcc_commit', { contribution: 'x' }),
      say('done'),
    ]);
    const [bash, commit] = h.toolResults();
    expect(bash?.isError).toBe(false);
    expect(bash?.text).toContain('still working');
    expect(commit?.isError).toBe(true);
    expect(commit?.text).toMatch(/E_CORRUPT/);
    expect(commit?.text).toMatch(/Remedy:/);
    // The first request carried one notice; later turns do not repeat it.
    const told = (i: number) =>
      (h.requests[i]?.messages ?? []).filter((m) => m.text.includes('GCC memory is unavailable')).length;
    expect(told(0)).toBe(1);
    await h.turn('more', [say('ok')]);
    expect(notices(h)).toHaveLength(1);
    expect(h.errors).toEqual([]);
  });

  it('without .GCC/ the session works and the first turn names the remedy', async () => {
    const h = await createHost({ cwd: tempDir('gcc-pi-empty-') });
    hosts.push(h);
    await h.turn('hi', [call('gcc_context', {}), say('ok')]);
    expect(h.toolResults()[0]?.text).toMatch(/E_NOT_INITIALIZED.*gctx init/s);
    expect(notices(h)[0]?.text).toMatch(/gctx init/);
    expect(briefings(h)).toHaveLength(0);
  });

  it('a fork starts on the memory branch of the session it came from, then goes its own way', async () => {
    const dir = await project();
    const h = await createHost({ cwd: dir, persist: true });
    hosts.push(h);
    await h.turn('branch', [call('gcc_branch', { name: 'exp', purpose: 'an experiment' }), say('ok')]);
    const parent = `pi:${h.session().sessionManager.getSessionId()}`;
    const firstUser = h
      .session()
      .sessionManager.getBranch()
      .find((e) => e.type === 'message' && e.message.role === 'user');
    await h.runtime.fork(firstUser?.id as string, { position: 'at' });
    const child = `pi:${h.session().sessionManager.getSessionId()}`;
    expect(child).not.toBe(parent);
    const atFork = await Memory.open(dir);
    try {
      expect(atFork.currentBranch(child)).toBe('exp');
    } finally {
      atFork.close();
    }
    await h.turn('in the fork', [call('gcc_switch', { name: 'main' }), say('ok')]);
    const m = await Memory.open(dir);
    try {
      expect(m.currentBranch(parent)).toBe('exp');
      expect(m.currentBranch(child)).toBe('main');
    } finally {
      m.close();
    }
    const switched = (await readEvents(dir)).flatMap((e) =>
      e.type === 'branch.switched' && e.data.session === child ? [e.data.to] : [],
    );
    // The fork starts where its parent was (told explicitly when the clone had moved elsewhere).
    expect(switched.at(-1)).toBe('main');
  });
});

describe('Pi extension on the real host: readiness barrier', () => {
  it('a first prompt racing a slow session start waits under the cap, then exactly one turn is told', async () => {
    const { FileLock } = await import('../../../src/store/lock.js');
    const dir = await project();
    // Hold the memory's lock, so this session's start blocks on it well past the cap.
    const lock = new FileLock(join(dir, '.GCC/.local/lock'));
    await lock.acquire();
    process.env.GCC_PI_READY_TIMEOUT_MS = '300';
    try {
      const h = await createHost({ cwd: dir, deferBind: true });
      hosts.push(h);
      await h.turn('quick first prompt', [say('ok')]);
      lock.release();
      await h.bound;
      await h.turn('second', [say('ok')]);
      await h.turn('third', [say('ok')]);
      const told = h
        .visible()
        .filter((m) => m.customType === 'gcc-notice' && /may not be callable yet.*\/reload/s.test(m.text));
      expect(told).toHaveLength(1);
      // It was on the first request.
      expect(h.requests[0]?.messages.some((m) => /may not be callable yet/.test(m.text))).toBe(true);
    } finally {
      lock.release();
      delete process.env.GCC_PI_READY_TIMEOUT_MS;
    }
  });
});
