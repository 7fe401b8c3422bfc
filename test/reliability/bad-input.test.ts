/**
 * Bad input: a damaged segment never crashes the reader with an uncaught exception. Each is
 * either read — and then every event read is one that was really written, nothing forged —
 * or refused with a GccError; a refusal for corruption names the file and a line inside it.
 * Damage: random bytes, truncation, duplicated and reordered entries, bit flips, inserted
 * and deleted bytes, huge lines. Checked on the codec and on a full Memory.open of a clone
 * that has acknowledged nothing yet (the segment arrived by git, so there is no ledger to hold
 * it against: what the parser and the validation decide is all that stands between the bytes
 * and the memory). Damage to bytes a clone did acknowledge is integrity.test.ts.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Memory } from '../../src/engine/memory.js';
import { GccError } from '../../src/errors.js';
import type { GccEvent } from '../../src/events/types.js';
import { parse } from '../../src/log/codec.js';
import { cleanup, tempProject } from '../support/tmp.js';
import { pick, segmentsOf, TIMEOUT } from './helpers.js';

const RUNS = pick(25, 1000);
const TERM = '\n\n---\n\n';

let original: Buffer;
/** The segment's path relative to the project. */
let segment: string;
let written: Map<string, GccEvent>;
let scratch: string;
const outcomes = { read: 0, refused: 0, tornIgnored: 0, startedAnew: 0 };

beforeAll(async () => {
  const dir = tempProject('gcc-fuzz-src-');
  const m = await Memory.open(dir, { create: true });
  await m.execute({ type: 'roadmap', action: 'add', target: 'Parse anything — ünïcödé, 😀, RTL \u202e' });
  await m.execute({
    type: 'log',
    observation: 'saw --> and <!-- gcc:e {"id":"x"} 00000000 -->',
    thought: '\n---\n## [C999] forged',
    action: 'a',
  });
  await m.execute({ type: 'commit', contribution: `first milestone\n${'z'.repeat(5000)}` });
  await m.execute({ type: 'branch', name: 'exp', purpose: 'try' });
  await m.execute({ type: 'commit', contribution: 'on exp' });
  await m.execute({ type: 'switch', name: 'main' });
  await m.execute({ type: 'merge', branch: 'exp', synthesis: 'merged' });
  await m.execute({ type: 'record-tool', tool: 'bash', input: 'ls', result: 'a\nb', isError: false, files: [] });
  written = new Map(m.events().map((e) => [e.id, e]));
  m.close();
  const segments = segmentsOf(dir);
  expect(segments).toHaveLength(1);
  segment = segments[0]!;
  original = readFileSync(join(dir, segment));
  scratch = tempProject('gcc-fuzz-');
});
afterAll(() => {
  console.log(`[reliability] bad input: ${JSON.stringify({ runsPerKind: RUNS, ...outcomes })}`);
  cleanup();
});

function entries(buf: Buffer): Buffer[] {
  const text = buf.toString('latin1');
  return text
    .split(TERM)
    .filter(Boolean)
    .map((e) => Buffer.from(e + TERM, 'latin1'));
}

/** The reader's contract on one damaged log: read (nothing forged) or a typed refusal. */
async function check(damaged: Buffer): Promise<void> {
  const lines = damaged.toString('utf8').split('\n').length;
  const refusedWell = (err: unknown) => {
    expect(err).toBeInstanceOf(GccError);
    const g = err as GccError;
    expect(g.code, g.message).not.toBe('E_INTERNAL');
    if (g.code !== 'E_CORRUPT') return;
    expect(g.file).toBe(segment);
    expect(g.line).toBeGreaterThanOrEqual(1);
    expect(g.line).toBeLessThanOrEqual(lines);
  };
  // The codec alone.
  let parsed: GccEvent[] | null = null;
  try {
    parsed = parse(damaged, segment).events;
  } catch (err) {
    refusedWell(err);
    expect((err as GccError).code).toBe('E_CORRUPT');
  }
  for (const e of parsed ?? []) expect(e, 'an event parsed must be one that was written').toEqual(written.get(e.id));
  // A whole memory opened on it: a fresh clone holding only this segment.
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(join(scratch, segment, '..'), { recursive: true });
  writeFileSync(join(scratch, segment), damaged);
  let m: Memory | undefined;
  try {
    m = await Memory.open(scratch);
  } catch (err) {
    refusedWell(err);
    outcomes.refused++;
    return;
  }
  try {
    const events = m.events();
    for (const e of events.filter((x) => written.has(x.id)))
      expect(e, 'an event read must be one that was written').toEqual(written.get(e.id));
    // A clone that finds no complete event anywhere starts a memory of its own (in a new
    // segment): the only event not written before, and only then.
    const own = events.filter((e) => !written.has(e.id));
    if (own.length) {
      expect(parsed, 'gctx starts a memory only where none could be read').toEqual([]);
      expect(own.map((e) => e.type)).toEqual(['memory.initialized']);
      outcomes.startedAnew++;
    }
    expect(Array.isArray(m.verify())).toBe(true);
    outcomes.read++;
    // A fresh clone did not write this segment: an incomplete entry at its end is ignored
    // (and said), never set aside or cut, since the file may be another clone's still growing.
    if (m.warnings.some((w) => w.includes('incomplete entry'))) outcomes.tornIgnored++;
  } finally {
    m.close();
  }
}

const opts = { numRuns: RUNS };

describe('bad input: damaged logs are read or refused, never crash', () => {
  it('random bytes', { timeout: TIMEOUT }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 4096 }), async (bytes) => check(Buffer.from(bytes))),
      opts,
    );
  });

  it('random bytes after valid entries, and in place of one', { timeout: TIMEOUT }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 1, maxLength: 2048 }),
        fc.nat(),
        fc.boolean(),
        async (bytes, i, replace) => {
          const es = entries(original);
          const at = i % es.length;
          es.splice(at, replace ? 1 : 0, Buffer.from(bytes));
          await check(Buffer.concat(es));
        },
      ),
      opts,
    );
  });

  it('truncated anywhere', { timeout: TIMEOUT }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(), async (n) => check(original.subarray(0, n % (original.length + 1)))),
      opts,
    );
  });

  it('an entry duplicated', { timeout: TIMEOUT }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.nat(), async (i, j) => {
        const es = entries(original);
        es.splice(j % (es.length + 1), 0, es[i % es.length]!);
        await check(Buffer.concat(es));
      }),
      opts,
    );
  });

  it('entries reordered', { timeout: TIMEOUT }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.nat(), async (i, j) => {
        const es = entries(original);
        const a = i % es.length;
        const b = j % es.length;
        fc.pre(a !== b);
        [es[a], es[b]] = [es[b]!, es[a]!];
        await check(Buffer.concat(es));
      }),
      opts,
    );
  });

  it('bit flips', { timeout: TIMEOUT }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 7 })), { minLength: 1, maxLength: 4 }),
        async (flips) => {
          const b = Buffer.from(original);
          for (const [pos, bit] of flips) b[pos % b.length]! ^= 1 << bit;
          await check(b);
        },
      ),
      opts,
    );
  });

  it('bytes inserted or deleted', { timeout: TIMEOUT }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.uint8Array({ maxLength: 16 }), fc.nat(16), async (pos, ins, del) => {
        const at = pos % original.length;
        await check(
          Buffer.concat([
            original.subarray(0, at),
            Buffer.from(ins),
            original.subarray(Math.min(original.length, at + del)),
          ]),
        );
      }),
      opts,
    );
  });

  it('huge lines: megabytes without a newline, at an entry boundary or anywhere', { timeout: TIMEOUT }, async () => {
    const huge = Buffer.alloc(3 * 2 ** 20, 'A');
    const runs = pick(6, 40);
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.boolean(), async (pos, boundary) => {
        const es = entries(original);
        if (boundary) {
          es.splice(pos % (es.length + 1), 0, huge);
          await check(Buffer.concat(es));
        } else {
          const at = pos % original.length;
          await check(Buffer.concat([original.subarray(0, at), huge, original.subarray(at)]));
        }
      }),
      { numRuns: runs },
    );
  });
});
