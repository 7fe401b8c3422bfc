/**
 * Views written by another gctx (an upgrade changed a render) are rebuilt at the next open, so
 * verify does not find them differing; a hand edit among them is kept aside, never lost.
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Memory } from '../../src/engine/memory.js';
import { cleanup, tempProject } from '../support/tmp.js';

afterAll(cleanup);

/** The views' checkpoint (kept in the ledger) says an older gctx wrote them. */
function olderFormat(dir: string, editViews: (gcc: string) => void): void {
  const ledger = join(dir, '.GCC', '.local', 'ledger.json');
  const l = JSON.parse(readFileSync(ledger, 'utf8')) as { views: { stamp: string } };
  l.views.stamp = l.views.stamp.replace(/ \S+$/, ' 0.0.1/1');
  editViews(join(dir, '.GCC'));
  writeFileSync(ledger, JSON.stringify(l));
}

describe('views of another format', () => {
  it('are rebuilt at the next open, and verify is clean', async () => {
    const dir = tempProject('gcc-views-format-');
    const m = await Memory.open(dir, { create: true });
    await m.execute({ type: 'commit', contribution: 'first' });
    m.close();
    olderFormat(dir, (gcc) =>
      writeFileSync(
        join(gcc, 'metadata.yaml'),
        // As an older gctx wrote it: with this clone's default branch, now main.md's line of its own.
        readFileSync(join(gcc, 'metadata.yaml'), 'utf8').replace('\nbranches:', '\ndefault_branch: main\nbranches:'),
      ),
    );
    const again = await Memory.open(dir);
    expect(again.verify()).toEqual([]);
    again.close();
  });

  it('a hand edit of main.md made meanwhile is kept aside, with a warning', async () => {
    const dir = tempProject('gcc-views-format-');
    const m = await Memory.open(dir, { create: true });
    await m.execute({ type: 'commit', contribution: 'first' });
    m.close();
    olderFormat(dir, (gcc) =>
      writeFileSync(join(gcc, 'main.md'), `${readFileSync(join(gcc, 'main.md'), 'utf8')}\nA note written by hand.\n`),
    );
    const again = await Memory.open(dir);
    expect(again.warnings.join('\n')).toMatch(/aside/);
    const aside = join(dir, '.GCC', 'aside');
    expect(
      existsSync(aside) &&
        readdirSync(aside).some((f) => readFileSync(join(aside, f), 'utf8').includes('A note written by hand.')),
    ).toBe(true);
    expect(again.verify()).toEqual([]);
    again.close();
  });

  it('with no checkpoint at all (a ledger written before it held one), a hand edit of main.md is kept aside, never overwritten', async () => {
    const dir = tempProject('gcc-views-format-');
    const m = await Memory.open(dir, { create: true });
    await m.execute({ type: 'commit', contribution: 'first' });
    m.close();
    const gcc = join(dir, '.GCC');
    writeFileSync(
      join(gcc, 'main.md'),
      `${readFileSync(join(gcc, 'main.md'), 'utf8')}\nA note written before the upgrade.\n`,
    );
    const ledger = join(gcc, '.local', 'ledger.json');
    const l = JSON.parse(readFileSync(ledger, 'utf8')) as { views?: unknown };
    delete l.views;
    writeFileSync(ledger, JSON.stringify(l));
    const again = await Memory.open(dir);
    expect(again.warnings.join('\n')).toMatch(/no record says which state/);
    const aside = join(gcc, 'aside');
    expect(
      readdirSync(aside).some((f) =>
        readFileSync(join(aside, f), 'utf8').includes('A note written before the upgrade.'),
      ),
    ).toBe(true);
    expect(again.verify()).toEqual([]);
    again.close();
  });

  for (const [what, lose] of [
    ['.GCC/.local removed', (gcc: string) => rmSync(join(gcc, '.local'), { recursive: true, force: true })],
    [
      'the ledger and the cache removed',
      (gcc: string) => {
        for (const f of ['ledger.json', 'ledger.json.sealed', 'cache'])
          rmSync(join(gcc, '.local', f), { recursive: true, force: true });
      },
    ],
  ] as const) {
    it(`${what}: a hand edit of main.md is kept aside before the views are rebuilt, never lost`, async () => {
      const dir = tempProject('gcc-views-format-');
      const m = await Memory.open(dir, { create: true });
      await m.execute({ type: 'commit', contribution: 'first' });
      m.close();
      const gcc = join(dir, '.GCC');
      writeFileSync(
        join(gcc, 'main.md'),
        readFileSync(join(gcc, 'main.md'), 'utf8').replace('## Notes', '## Notes\nKeep ASCII only.'),
      );
      lose(gcc);
      const again = await Memory.open(dir);
      expect(again.warnings.join('\n')).toMatch(/main\.md: .*kept at/);
      const aside = join(gcc, 'aside');
      expect(readdirSync(aside).some((f) => readFileSync(join(aside, f), 'utf8').includes('Keep ASCII only.'))).toBe(
        true,
      );
      expect(again.verify()).toEqual([]);
      again.close();
    });
  }
});
