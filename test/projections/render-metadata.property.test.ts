/**
 * metadata.yaml is rendered item by item (with a cache) so COMMIT stays flat as the branch
 * list and file tree grow; the bytes must be exactly those of rendering the whole object
 * through `yaml` at once, whatever the names, reasons and paths hold.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { METADATA_COMMENT, metadataObject, renderMetadata } from '../../src/projections/render-metadata.js';
import { yamlLib } from '../../src/runtime/lazy-deps.js';
import { dict, initialState, newBranch, type MemoryState } from '../../src/decider/state.js';
import { hostileText } from '../support/arbitraries.js';
import { runs } from '../support/runs.js';

/** The whole document through `yaml` in one go: the reference renderMetadata must equal. */
const renderMetadataWhole = (state: MemoryState): string =>
  METADATA_COMMENT + yamlLib().stringify(metadataObject(state), { lineWidth: 0 });

// Strings near the edge of what YAML writes unquoted (the direct path) as well as hostile ones.
const nearPlain = fc.string({ unit: fc.constantFrom(...'aZ_/09.+@ ,()=-:#\'"yn~'), maxLength: 12 });
const time = fc.date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true }).map((d) => d.toISOString());
const hash = fc.string({ unit: fc.constantFrom(...'0123456789abcdefe.x+-'), minLength: 1, maxLength: 9 });
const text = fc.oneof(
  nearPlain,
  time,
  hash,
  hostileText,
  fc.constantFrom(
    '',
    ' ',
    '- x',
    'a: b',
    '"q"',
    "'",
    '#c',
    '|',
    '>',
    '\n',
    ' lead',
    'trail ',
    'yes',
    'null',
    '0x1F',
    '1e3',
    '~',
    '*a',
    '&a',
    '!t',
    '%',
    '@',
    '`',
    '{',
    '[',
    'multi\nline\n\n  indented',
    '\t\ttabs',
  ),
);

const state = fc
  .record({
    created: text,
    defaultBranch: text,
    branches: fc.array(
      fc.record({
        name: text,
        parent: fc.option(text),
        status: fc.constantFrom('active', 'merged', 'abandoned'),
        created: text,
        reason: fc.option(text),
        mergedInto: fc.option(text),
      }),
      { maxLength: 6 },
    ),
    files: fc.dictionary(text, fc.record({ commit: text, branch: text }), { maxKeys: 8 }),
    config: fc.record({
      proactive_commits: fc.boolean(),
      commit_after_edits: fc.oneof(fc.integer(), fc.double()),
      commit_after_turns: fc.integer({ min: 0, max: 1e6 }),
    }),
  })
  .map((r) => {
    const files: MemoryState['files'] = dict(Object.entries(r.files));
    const s: MemoryState = {
      ...initialState(),
      created: r.created,
      defaultBranch: r.defaultBranch,
      branches: dict(Object.entries(initialState().branches)),
      files,
      config: r.config,
    };
    for (const b of r.branches)
      s.branches[b.name] = {
        ...newBranch(b.name, b.parent, b.created, 'p', []),
        life: b.status as 'active',
        reason: b.reason,
        mergedInto: b.mergedInto,
      };
    return s;
  });

describe('metadata.yaml rendering', () => {
  it('item by item equals the whole document through yaml', () => {
    fc.assert(
      fc.property(state, (s) => {
        expect(renderMetadata(s)).toBe(renderMetadataWhole(s));
        expect(renderMetadata(s)).toBe(renderMetadataWhole(s)); // and again, from the cache
      }),
      { numRuns: runs(200, 5000) },
    );
  });
});
