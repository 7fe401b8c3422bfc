/**
 * When git (checkout, merge, rebase, reset) replaces the logs under a memory, the
 * projection files on disk belong to other logs: they are rebuilt, never read as a person's
 * edits — whether the memory is opened afresh or was open all along.
 */
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { unionLogs } from '../../src/adapters/git/union.js';
import { writeTextAtomic as writeAtomic } from '../../src/store/text-file.js';
import { Memory } from '../../src/engine/memory.js';
import { cleanup, tempProject } from '../support/tmp.js';

const files = (dir: string) => ({ log: join(dir, '.GCC', 'log.md'), main: join(dir, '.GCC', 'main.md'), aside: join(dir, '.GCC', 'aside') });
const read = (p: string) => readFileSync(p, 'utf8');

/** Two clones of one memory that diverged; ours added the newest event of all. */
async function diverged() {
  const a = tempProject();
  const m = await Memory.open(a, { create: true });
  await m.execute({ type: 'roadmap', action: 'add', target: 'Shared goal' });
  m.close();
  const b = tempProject();
  cpSync(join(a, '.GCC'), join(b, '.GCC'), { recursive: true });
  const mb = await Memory.open(b);
  await mb.execute({ type: 'roadmap', action: 'add', target: 'Their goal' });
  mb.close();
  const ma = await Memory.open(a);
  await ma.execute({ type: 'roadmap', action: 'add', target: 'Our goal' });
  ma.close();
  const union = unionLogs(read(files(a).log), read(files(b).log));
  return { a, b, union };
}

describe('logs replaced underneath gctx', () => {
  afterAll(cleanup);

  it('a rebase that leaves their main.md: rebuilt from the union, nothing adopted, their file kept aside', async () => {
    const { a, b, union } = await diverged();
    writeAtomic(files(a).log, union.text);
    writeAtomic(files(a).main, read(files(b).main));
    const m = await Memory.open(a);
    expect(m.state.objectives.map((o) => o.text)).toEqual(['Shared goal', 'Their goal', 'Our goal']);
    expect(m.eventsOf('main').length).toBe(union.events.length); // no adoption events appended
    expect(m.verify()).toEqual([]);
    expect(m.warnings.join('\n')).toMatch(/main\.md .*kept at/);
    expect(readdirSync(files(a).aside)).toHaveLength(1);
    m.close();
  });

  it('the same, when git vouches the file is what it checked out: no copy kept aside', async () => {
    const { a, b, union } = await diverged();
    writeAtomic(files(a).log, union.text);
    writeAtomic(files(a).main, read(files(b).main));
    const m = await Memory.open(a, { checkedOut: () => true });
    expect(m.eventsOf('main').length).toBe(union.events.length);
    expect(m.verify()).toEqual([]);
    expect(m.warnings).toEqual([]);
    expect(existsSync(files(a).aside)).toBe(false);
    m.close();
  });

  it('a merge that keeps our main.md: rebuilt quietly', async () => {
    const { a, union } = await diverged();
    writeAtomic(files(a).log, union.text);
    const m = await Memory.open(a);
    expect(m.eventsOf('main').length).toBe(union.events.length);
    expect(m.verify()).toEqual([]);
    expect(m.warnings).toEqual([]);
    m.close();
  });

  it('a memory that stays open: the next operation adopts nothing from the replaced files', async () => {
    const { a, b, union } = await diverged();
    const m = await Memory.open(a);
    writeAtomic(files(a).log, union.text);
    writeAtomic(files(a).main, read(files(b).main));
    await m.execute({ type: 'commit', contribution: 'after the pull' });
    expect(m.state.objectives.map((o) => o.text)).toEqual(['Shared goal', 'Their goal', 'Our goal']);
    expect(m.eventsOf('main').slice(union.events.length).map((e) => e.type)).toEqual(['commit.recorded']);
    expect(m.verify()).toEqual([]);
    m.close();
  });

  it('checking out an older state: that state, consistent, no warnings', async () => {
    const { a, b } = await diverged();
    // b's files are a complete older-and-different memory: stand in for an older commit.
    rmSync(join(a, '.GCC', 'log.md'));
    writeFileSync(files(a).log, read(files(b).log));
    writeAtomic(files(a).main, read(files(b).main));
    const m = await Memory.open(a);
    expect(m.state.objectives.map((o) => o.text)).toEqual(['Shared goal', 'Their goal']);
    expect(m.verify()).toEqual([]);
    expect(m.warnings).toEqual([]);
    m.close();
  });

  it('a real hand edit with the logs unchanged is still adopted', async () => {
    const { a } = await diverged();
    writeFileSync(files(a).main, read(files(a).main).replace('- [ ] Our goal', '- [x] Our goal'));
    const m = await Memory.open(a);
    expect(m.state.objectives.find((o) => o.text === 'Our goal')?.done).toBe(true);
    m.close();
  });
});
