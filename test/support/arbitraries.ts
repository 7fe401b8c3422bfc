/** Arbitraries shared by the property tests: hostile text, branch names, and whole valid events. */
import fc from 'fast-check';
import { branchNameProblem } from '../../src/events/rules.js';
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
  '<<<<<<< HEAD',
  '=======',
  '>>>>>>> theirs',
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

/** Names people choose that a careless map would confuse with its prototype. */
export const PROTOTYPE_NAMES = [
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
];

/**
 * Valid branch names, prototype-named ones and nested ones included; what the rules refuse
 * (a name Windows reserves, such as `aux` or `com1`, which the patterns can make) is left out,
 * as a log holding one does not read.
 */
export const branchName = fc
  .oneof(
    fc.constantFrom('main', 'exp', 'try-lru', 'feat/parser', 'a.b', ...PROTOTYPE_NAMES),
    fc.stringMatching(/^[a-z0-9][a-z0-9_-]{0,12}$/),
    fc
      .tuple(fc.stringMatching(/^[a-z][a-z0-9]{0,5}$/), fc.stringMatching(/^[a-z][a-z0-9-]{0,5}$/))
      .map(([a, b]) => `${a}/${b}`),
  )
  .filter((name) => branchNameProblem(name) === null);

const blob = fc.oneof(fc.stringMatching(/^[0-9a-f]{40}$/), fc.stringMatching(/^[0-9a-f]{64}$/));
/** A file a commit cites; events written before blobs were recorded have none. */
const fileChange = fc.record(
  { path: hostileText.filter((p) => p.length > 0), added: fc.nat(1000), removed: fc.nat(1000), blob },
  { requiredKeys: ['path', 'added', 'removed'] },
);
const hash = fc.stringMatching(/^[0-9a-f]{7}$/);
const label = fc.integer({ min: 1, max: 999 }).map((n) => `C${String(n).padStart(3, '0')}`);
const objectiveId = fc.stringMatching(/^o-[0-9a-f]{8}$/);
const shortText = hostileText.map((t) => t.slice(0, 200));

const payloads: Record<string, fc.Arbitrary<unknown>> = {
  'memory.initialized': fc.record({
    format: fc.constant(2),
    config: fc.record({
      proactive_commits: fc.boolean(),
      commit_after_edits: fc.integer({ min: 1, max: 50 }),
      commit_after_turns: fc.integer({ min: 1, max: 50 }),
    }),
  }),
  'objective.added': fc.record({ id: objectiveId, text: hostileText }),
  'objective.checked': fc.record({ id: objectiveId, text: hostileText }, { requiredKeys: ['id'] }),
  'objective.unchecked': fc.record({ id: objectiveId }),
  'objective.removed': fc.record({ id: objectiveId, text: hostileText }, { requiredKeys: ['id'] }),
  'objective.edited': fc.record({ id: objectiveId, text: hostileText }),
  'notes.patched': fc.record({ patch: hostileText }),
  'config.set': fc.record({ key: fc.constant('proactive_commits'), value: fc.boolean() }),
  'branch.created': fc.record({
    name: branchName,
    parent: branchName,
    purpose: hostileText,
    hypotheses: fc.array(hostileText, { maxLength: 3 }),
  }),
  'branch.switched': fc.record({ to: branchName, session: shortText }, { requiredKeys: ['to'] }),
  'commit.recorded': fc.record(
    {
      id: hash,
      label,
      title: hostileText,
      contribution: hostileText,
      purpose: hostileText,
      previous: hostileText,
      files: fc.array(fileChange, { maxLength: 3 }),
      next: hostileText,
      merge: fc.record({ from: branchName, tried: hostileText, learned: hostileText, integrated: hostileText }),
    },
    { requiredKeys: ['id', 'label', 'title', 'contribution', 'purpose', 'previous', 'files'] },
  ),
  'branch.merged': fc.record({ branch: branchName, into: branchName, commit: hash }),
  'branch.abandoned': fc.record({ branch: branchName, reason: hostileText }),
  'ota.logged': fc.record({ observation: hostileText, thought: hostileText, action: hostileText }),
  'tool.recorded': fc.record({
    tool: hostileText,
    input: hostileText,
    result: hostileText,
    isError: fc.boolean(),
    files: fc.array(fileChange, { maxLength: 2 }),
  }),
  'memory.repaired': fc.record({ segment: shortText, kept: fc.nat(100), lost: fc.nat(100), reason: hostileText }),
  'session.started': fc.record({ session: shortText, host: shortText, reason: shortText }),
  'session.compacted': fc.record({ session: shortText, host: shortText }),
  'session.ended': fc.record({ session: shortText, host: shortText, reason: shortText }),
  'prompt.recorded': fc.record({ session: shortText, host: shortText, text: hostileText.map((t) => t.slice(0, 4000)) }),
};

const isoTime = fc.integer({ min: 0, max: 1_700_000_000_000 }).map((ms) => new Date(ms).toISOString());

/** A log's worth of valid events: growing ids, gapless sequences and batch markers, hostile text. */
export const eventLog = fc
  .array(
    fc
      .tuple(fc.constantFrom(...EVENT_TYPES), isoTime, branchName, fc.integer({ min: 1, max: 3 }))
      .chain(([type, at, branch, batch]) =>
        fc
          .array(payloads[type]!, { minLength: batch, maxLength: batch })
          .map((datas) => datas.map((data) => ({ type, at, branch, data }))),
      ),
    { maxLength: 8 },
  )
  .map((batches) => {
    const out: GccEvent[] = [];
    let seq = 0;
    for (const batch of batches) {
      batch.forEach((b, i) => {
        seq += 1;
        const e = {
          id: `${(1_600_000_000_000 + seq).toString(16).padStart(12, '0')}abcdef0123`,
          seq,
          at: b.at,
          branch: b.branch,
          type: b.type,
          data: b.data,
        } as GccEvent;
        const more = batch.length - 1 - i;
        if (more > 0) e.more = more;
        out.push(e);
      });
    }
    return out;
  });
