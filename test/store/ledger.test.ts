/**
 * The ledger's two files read back as written (the views' checkpoint with them), and what the
 * store reads of another process's checkpoint follows the file, never a link in its place.
 */
import { mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { emptyLedger, type Ledger, type LedgerEntry, readLedger, writeLedger } from '../../src/store/ledger.js';
import { LOCAL } from '../../src/store/segments.js';
import { cleanup, tempProject } from '../support/tmp.js';
import { append, fresh, ota } from './support.js';

afterAll(cleanup);

const count = fc.nat({ max: 1e9 });
const text = fc.string({ maxLength: 20 });
const entry: fc.Arbitrary<LedgerEntry> = fc.record({
  size: count,
  seq: count,
  crc: fc.nat({ max: 0xffffffff }),
  firstId: text,
  lastId: text,
  sig: text,
  branches: fc
    .dictionary(fc.constantFrom('main', 'exp', 'a/b'), count)
    .map((d) => Object.assign(Object.create(null) as Record<string, number>, d)),
});
const segment = fc.constantFrom(
  '2026-11/20261130T101010Z-abcdef.md',
  '2026-12/20261201T000000Z-012345.md',
  '2026-12/20261202T010203Z-fedcba.md',
);
const ledger: fc.Arbitrary<Ledger> = fc
  .record({
    head: fc.option(text, { nil: null }),
    index: fc.option(text, { nil: null }),
    open: fc.option(segment, { nil: null }),
    lastId: text,
    epoch: text,
    logs: fc.dictionary(fc.oneof(segment, fc.constant(LOCAL)), entry),
    views: fc.option(
      fc.record({ stamp: text, seen: fc.dictionary(fc.constantFrom('main.md', 'metadata.yaml'), text) }),
      { nil: null },
    ),
  })
  .map((l) => ({
    ...emptyLedger(),
    ...l,
    logs: Object.assign(Object.create(null) as Record<string, LedgerEntry>, l.logs),
  }));

describe('the ledger', () => {
  it('reads back as written, whichever logs are live, the views’ checkpoint with it', () => {
    const dir = tempProject('gcc-ledger-');
    const path = join(dir, 'ledger.json');
    fc.assert(
      fc.property(ledger, (l) => {
        writeLedger(path, l, new Set([LOCAL, ...(l.open ? [l.open] : [])]), true);
        expect(readLedger(path)).toEqual(l);
      }),
    );
  });

  it('written before it held the checkpoint, reads with none', () => {
    const dir = tempProject('gcc-ledger-');
    const path = join(dir, 'ledger.json');
    writeLedger(path, emptyLedger(), new Set([LOCAL]), true);
    const raw = JSON.parse(readFileSync(path, 'utf8'));
    delete raw.views;
    writeFileSync(path, JSON.stringify(raw));
    expect(readLedger(path)!.views).toBeNull();
  });

  it("another process's checkpoint is read when the file changed; a link in its place is not followed", async () => {
    const dir = tempProject('gcc-ledger-');
    const s = await fresh(dir);
    await append(s, [ota('one')]);
    await s.withLock(() => s.saveViews({ stamp: 'mine', seen: {} }));
    expect(s.views()).toEqual({ stamp: 'mine', seen: {} });
    const raw = JSON.parse(readFileSync(s.layout.ledger, 'utf8'));
    raw.views = { stamp: 'theirs', seen: {} };
    writeFileSync(s.layout.ledger, JSON.stringify(raw));
    expect(s.views()).toEqual({ stamp: 'theirs', seen: {} });
    const outside = join(tempProject('gcc-outside-'), 'ledger.json');
    mkdirSync(join(outside, '..'), { recursive: true });
    writeFileSync(outside, JSON.stringify({ ...raw, views: { stamp: 'outside', seen: {} } }));
    renameSync(s.layout.ledger, `${s.layout.ledger}.moved`);
    symlinkSync(outside, s.layout.ledger);
    expect(s.views()).toBeNull();
  });
});
