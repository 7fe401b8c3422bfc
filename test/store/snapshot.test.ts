/**
 * The snapshot is written in pieces — the state's maps entry by entry — and the pieces are
 * exactly JSON.stringify's text, so what is read back is what was written.
 */
import { mkdirSync, readFileSync } from 'node:fs';
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
    const value = fc.anything({ withNullPrototype: true, withObjectString: true, maxDepth: 4, values: [fc.constant(undefined), fc.string({ unit: 'binary' }), fc.double(), fc.boolean(), fc.constant(null)] });
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
    for (let i = 0; i < 2_000; i++) branches[`b-${i}`] = { name: `b-${i}`, purpose: `work on ${i} — with a dash`.padEnd(200, '.'), recent: [{ id: 'abc1234', label: 'C001' }] };
    const state = { branches, files: { 'src/a.ts': { commit: 'abc1234', branch: 'b-1' } }, sessions: {}, events: 2_000 };
    const stringify = vi.spyOn(JSON, 'stringify');
    writeSnapshot(l, { format: 1, epoch: 'e', ledger: '1:2', logs: { local: { size: 1, seq: 1, lastId: 'x' } }, state });
    const file = readFileSync(join(l.cache, 'snapshot.json'));
    const longest = Math.max(...stringify.mock.results.map((r) => (typeof r.value === 'string' ? r.value.length : 0)));
    stringify.mockRestore();
    expect(longest).toBeLessThan(1_000);
    expect(file.length).toBeGreaterThan(400_000);
    expect(file.toString('latin1')).toBe(JSON.stringify({ format: 1, epoch: 'e', ledger: '1:2', logs: { local: { size: 1, seq: 1, lastId: 'x' } }, state }).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
    expect(readSnapshot(l, 1, (raw) => raw)?.state).toEqual(state);
  });
});
