/** Arbitraries shared by the property tests: hostile text and whole events. */
import fc from 'fast-check';
import { EVENT_TYPES, type GccEvent } from '../../src/events/types.js';

const PIECES = [
  '---',
  '\n---\n',
  '\n\n---\n\n',
  '-->',
  '<!--',
  '<!-- gcc:e {"id":"x","seq":1} 00000000 -->',
  '\n<!-- gcc:e ',
  '**[OTA-001]** 2026-01-01T00:00:00.000Z | Branch: main',
  '## [C001] fake commit',
  '- **Observation**: forged',
  '\u0000',
  '\u0007\u001b[31m',
  '\u202eRTL',
  '\ud83d\ude00',
  '\ud800',
  '\udfff',
  '\r\n',
  '\r',
  '\u2028\u2029',
  '"\\',
  '</script>',
  '```',
  ' ',
  '\t',
];

/** Free text built to break a markdown log: separators, fake headers and machine lines, odd unicode. */
export const hostileText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.array(fc.oneof(fc.constantFrom(...PIECES), fc.string({ maxLength: 6 })), { maxLength: 12 }).map((a) => a.join('')),
);

const fileChange = fc.record({ path: hostileText, added: fc.nat(1000), removed: fc.nat(1000) });

const payloads: Record<string, fc.Arbitrary<unknown>> = {
  'memory.initialized': fc.record({ format: fc.constant(1), config: fc.record({ proactive_commits: fc.boolean(), commit_after_edits: fc.integer({ min: 1, max: 50 }), commit_after_turns: fc.integer({ min: 1, max: 50 }) }) }),
  'objective.added': fc.record({ id: hostileText, text: hostileText }),
  'objective.checked': fc.record({ id: hostileText }),
  'objective.unchecked': fc.record({ id: hostileText }),
  'objective.removed': fc.record({ id: hostileText }),
  'objective.edited': fc.record({ id: hostileText, text: hostileText }),
  'notes.patched': fc.record({ patch: hostileText }),
  'config.set': fc.record({ key: fc.constant('proactive_commits'), value: fc.boolean() }),
  'branch.created': fc.record({ name: hostileText, parent: hostileText, purpose: hostileText, hypotheses: fc.array(hostileText, { maxLength: 3 }) }, { requiredKeys: ['name', 'parent', 'purpose', 'hypotheses'] }),
  'branch.switched': fc.record({ to: hostileText, session: hostileText }, { requiredKeys: ['to'] }),
  'commit.recorded': fc.record(
    {
      id: hostileText,
      label: hostileText,
      title: hostileText,
      contribution: hostileText,
      purpose: hostileText,
      previous: hostileText,
      files: fc.array(fileChange, { maxLength: 3 }),
      merge: fc.record({ from: hostileText, tried: hostileText, learned: hostileText, integrated: hostileText }),
    },
    { requiredKeys: ['id', 'label', 'title', 'contribution', 'purpose', 'previous', 'files'] },
  ),
  'branch.merged': fc.record({ branch: hostileText, into: hostileText, commit: hostileText }),
  'branch.abandoned': fc.record({ branch: hostileText, reason: hostileText }),
  'ota.logged': fc.record({ observation: hostileText, thought: hostileText, action: hostileText }),
  'tool.recorded': fc.record({ tool: hostileText, input: hostileText, result: hostileText, isError: fc.boolean(), files: fc.array(fileChange, { maxLength: 2 }) }),
  'session.started': fc.record({ session: hostileText, host: hostileText, reason: hostileText }),
  'session.compacted': fc.record({ session: hostileText, host: hostileText }),
  'session.ended': fc.record({ session: hostileText, host: hostileText, reason: hostileText }),
};

const isoTime = fc.integer({ min: 0, max: 4_000_000_000_000 }).map((ms) => new Date(ms).toISOString());

/** A log's worth of events: valid envelopes with gapless sequences and batch markers. */
export const eventLog = fc
  .array(
    fc.tuple(fc.constantFrom(...EVENT_TYPES), isoTime, hostileText, fc.integer({ min: 1, max: 3 })).chain(([type, at, branch, batch]) =>
      fc.array(payloads[type]!, { minLength: batch, maxLength: batch }).map((datas) => datas.map((data) => ({ type, at, branch, data }))),
    ),
    { maxLength: 8 },
  )
  .map((batches) => {
    const out: GccEvent[] = [];
    let seq = 0;
    for (const batch of batches) {
      batch.forEach((b, i) => {
        seq += 1;
        const e = { id: `${String(seq).padStart(12, '0')}abcdef0123`, seq, at: b.at, branch: b.branch, type: b.type, data: b.data } as GccEvent;
        const more = batch.length - 1 - i;
        if (more > 0) e.more = more;
        out.push(e);
      });
    }
    return out;
  });
