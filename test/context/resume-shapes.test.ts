/**
 * The resume benchmark's facts (bench/resume.js), kept true by `npm test`: shapes A (a long
 * single-branch session) and B (experiments merged and abandoned) run through the library — the
 * real hook logic on the real Memory, no child processes — and every fact a resuming agent
 * needs must be in the briefing as hosts hand it over plus the default CONTEXT call, the
 * briefing under 1,000 tokens; the branch facts in a default branch view. The benchmark runs
 * the same scripts through the real processes, and shape C on the real Pi host.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { estimateTokens } from '../../src/context/budget.js';
import type { Memory } from '../../src/engine/memory.js';
import { asProjectData } from '../../src/observer/framing.js';
import { ERROR_LIMIT, RESULT_LIMIT } from '../../src/observer/bound.js';
import { cleanup, tempProject } from '../support/tmp.js';

afterEach(cleanup);

interface Fact {
  name: string;
  branchView: boolean;
}
interface Shape {
  steps: unknown[];
  facts: Fact[];
  session: string;
}
interface ResumeBench {
  shapeA(dir: string): Shape;
  shapeB(dir: string): Shape;
  shapeLong(dir: string, seed: number, kind: 'flaky' | 'migration'): Shape & { toolCalls: number };
  replayWithBound(dir: string, steps: unknown[], bound: { result: number; error: number }): Promise<Memory>;
  found(f: Fact, text: string): boolean;
}

// The benchmark is plain JavaScript over the built library (dist/, which `npm test` builds first).
const bench = (await import(new URL('../../bench/resume.js', import.meta.url).href)) as ResumeBench;

describe('resume shapes through the library: every fact in briefing + default context', () => {
  for (const name of ['A', 'B'] as const) {
    it(`shape ${name}`, async () => {
      const dir = tempProject(`gcc-resume-${name}-`);
      const shape = name === 'A' ? bench.shapeA(dir) : bench.shapeB(dir);
      const m = await bench.replayWithBound(dir, shape.steps, { result: RESULT_LIMIT, error: ERROR_LIMIT });
      try {
        const briefing = asProjectData(m.briefing({ session: shape.session }));
        const status = m.context({ level: 'status' }, { session: shape.session }).text;
        const missing = shape.facts.filter((f) => !bench.found(f, `${briefing}\n${status}`)).map((f) => f.name);
        expect(missing).toEqual([]);
        expect(estimateTokens(briefing)).toBeLessThanOrEqual(1_000);
        expect(m.briefing({ session: shape.session })).toBe(briefing.split('\n').slice(2, -1).join('\n'));
        const branchView = m.context({ level: 'branch' }, { session: shape.session }).text;
        expect(shape.facts.filter((f) => f.branchView && !bench.found(f, branchView)).map((f) => f.name)).toEqual([]);
      } finally {
        m.close();
      }
    });
  }
});

describe('long sessions from templates, after a compaction: every key fact in the briefing alone, under 1,000 tokens', () => {
  for (const kind of ['flaky', 'migration'] as const) {
    for (const seed of [1, 2, 3, 4]) {
      it(`${kind}, wording ${seed}`, async () => {
        const dir = tempProject(`gcc-resume-long-${kind}-`);
        const shape = bench.shapeLong(dir, seed, kind);
        expect(shape.toolCalls).toBeGreaterThanOrEqual(60);
        const m = await bench.replayWithBound(dir, shape.steps, { result: RESULT_LIMIT, error: ERROR_LIMIT });
        try {
          const briefing = asProjectData(m.briefing({ session: shape.session }));
          expect(shape.facts.filter((f) => !bench.found(f, briefing)).map((f) => f.name)).toEqual([]);
          expect(estimateTokens(briefing)).toBeLessThanOrEqual(1_000);
          // Nothing changed: the same bytes, which a host's prompt cache keeps.
          expect(asProjectData(m.briefing({ session: shape.session }))).toBe(briefing);
        } finally {
          m.close();
        }
      });
    }
  }
});
