/**
 * The incremental plan skips rendering main.md and metadata.yaml when the fields they are
 * made from did not change. Whatever the events, the plan must still rewrite either file
 * exactly when its rendering changed.
 */
import { createPatch } from 'diff';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evolve, replayer } from '../../src/decider/evolve.js';
import { incrementalPlan } from '../../src/projections/files.js';
import { renderMain } from '../../src/projections/render-main.js';
import { renderMetadata } from '../../src/projections/render-metadata.js';
import { layout } from '../../src/store/paths.js';
import { eventLog } from '../support/arbitraries.js';
import { runs } from '../support/runs.js';

const l = layout('/project');

describe('incremental plan for main.md and metadata.yaml', () => {
  it('rewrites each file exactly when its rendering changes', () => {
    fc.assert(
      fc.property(eventLog, (events) => {
        let before = replayer().state();
        for (const generated of events) {
          // A patch that applies, as adoption writes one, so notes do change.
          const e =
            generated.type === 'notes.patched'
              ? {
                  ...generated,
                  data: {
                    patch: createPatch(
                      'main.md#notes',
                      before.notes,
                      `${before.notes}${generated.data.patch.slice(0, 40)}\n`,
                    ),
                  },
                }
              : generated;
          const after = evolve(before, [e]);
          const plan = incrementalPlan(l, before, after, [e]);
          for (const [path, render] of [
            [l.mainMd, renderMain],
            [l.metadata, renderMetadata],
          ] as const) {
            const write = plan.writes.get(path);
            if (e.type === 'memory.initialized' || render(after) !== render(before))
              expect(write).toEqual({ kind: 'write', content: render(after) });
            else expect(write).toBeUndefined();
          }
          before = after;
        }
      }),
      { numRuns: runs(100, 1000) },
    );
  });
});
