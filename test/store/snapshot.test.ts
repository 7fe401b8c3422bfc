/**
 * The snapshot is written in pieces — the state's maps entry by entry — and the pieces are
 * exactly JSON.stringify's text, so what is read back is what was written. It ends in a CRC-32
 * of its bytes: a snapshot edited in place is not used.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { layout } from '../../src/store/paths.js';
import { jsonPieces, readSnapshot, writeSnapshot } from '../../src/store/snapshot.js';
import { cleanup, tempProject } from '../support/tmp.js';

afterAll(cleanup);
afterEach(() => vi.restoreAllMocks());

describe('jsonPieces', () => {
  it('joins to JSON.stringify of the value at any depth, undefined members and all', () => {
    const value = fc.anything({
      withNullPrototype: true,
      withObjectString: true,
      maxDepth: 4,
      values: [fc.constant(undefined), fc.string({ unit: 'binary' }), fc.double(), fc.boolean(), fc.constant(null)],
    });
    fc.assert(
      fc.property(value, fc.integer({ min: 0, max: 5 }), (v, depth) => {
        expect([...jsonPieces(v, depth)].join('')).toBe(JSON.stringify(v) ?? '');
      }),
      { numRuns: 500 },
    );
  });
});

describe('writeSnapshot', () => {
  it('never makes one string of the state: its maps go entry by entry, and the file reads back whole', () => {
    const l = layout(tempProject());
    mkdirSync(l.local, { recursive: true });
    const branches = Object.create(null) as Record<string, object>;
    for (let i = 0; i < 2_000; i++)
      branches[`b-${i}`] = {
        name: `b-${i}`,
        purpose: `work on ${i} — with a dash`.padEnd(200, '.'),
        recent: [{ id: 'abc1234', label: 'C001' }],
      };
    const state = {
      branches,
      files: { 'src/a.ts': { commit: 'abc1234', branch: 'b-1' } },
      sessions: {},
      events: 2_000,
    };
    const stringify = vi.spyOn(JSON, 'stringify');
    writeSnapshot(l, {
      format: 1,
      epoch: 'e',
      ledger: '1:2',
      logs: { local: { size: 1, seq: 1, lastId: 'x' } },
      state,
    });
    const file = readFileSync(join(l.cache, 'snapshot.json'));
    const longest = Math.max(...stringify.mock.results.map((r) => (typeof r.value === 'string' ? r.value.length : 0)));
    stringify.mockRestore();
    expect(longest).toBeLessThan(1_000);
    expect(file.length).toBeGreaterThan(400_000);
    const json = JSON.stringify({
      format: 1,
      epoch: 'e',
      ledger: '1:2',
      logs: { local: { size: 1, seq: 1, lastId: 'x' } },
      state,
    }).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    expect(file.toString('latin1')).toBe(`${json.slice(0, -1)},"crc":${crc32(json.slice(0, -1))}}`);
    expect(readSnapshot(l, 1, (raw) => raw)?.state).toEqual(state);
  });
});

describe('readSnapshot', () => {
  const snapshot = {
    format: 1,
    epoch: 'e',
    ledger: '1:2',
    logs: { local: { size: 10, seq: 2, lastId: 'x' } },
    state: { branches: { main: { purpose: 'p — q' } }, events: 2 },
  };
  const file = (l: ReturnType<typeof layout>) => join(l.cache, 'snapshot.json');

  it('does not use a snapshot one of whose bytes changed, and says so while its checksum can be read', () => {
    const l = layout(tempProject());
    mkdirSync(l.local, { recursive: true });
    writeSnapshot(l, snapshot);
    const bytes = readFileSync(file(l));
    const tail = bytes.lastIndexOf(',"crc":');
    fc.assert(
      fc.property(fc.nat(bytes.length - 1), fc.integer({ min: 1, max: 255 }), (at, flip) => {
        const edited = Buffer.from(bytes);
        edited[at] = edited[at]! ^ flip;
        writeFileSync(file(l), edited);
        let damaged = 0;
        expect(
          readSnapshot(
            l,
            1,
            (raw) => raw,
            undefined,
            () => damaged++,
          ),
        ).toBeNull();
        // An edit of the checksum member itself may leave none to read: another format, said nothing of.
        if (at < tail) expect(damaged).toBe(1);
      }),
      { numRuns: 300 },
    );
    writeFileSync(file(l), bytes);
    expect(readSnapshot(l, 1, (raw) => raw)?.state).toEqual(snapshot.state);
  });

  it('takes a parseable edit for one: parsed, changed and written back, the old checksum no longer holds', () => {
    const l = layout(tempProject());
    mkdirSync(l.local, { recursive: true });
    writeSnapshot(l, snapshot);
    const raw = JSON.parse(readFileSync(file(l), 'latin1')) as typeof snapshot;
    raw.state.branches.main.purpose = 'forged';
    writeFileSync(file(l), JSON.stringify(raw));
    let damaged = 0;
    expect(
      readSnapshot(
        l,
        1,
        (r) => r,
        undefined,
        () => damaged++,
      ),
    ).toBeNull();
    expect(damaged).toBe(1);
  });

  it('ignores, without a word, a snapshot with no checksum (an older gctx wrote it)', () => {
    const l = layout(tempProject());
    mkdirSync(l.cache, { recursive: true });
    writeFileSync(file(l), JSON.stringify(snapshot));
    let damaged = 0;
    expect(
      readSnapshot(
        l,
        1,
        (r) => r,
        undefined,
        () => damaged++,
      ),
    ).toBeNull();
    expect(damaged).toBe(0);
  });
});
