/**
 * Settings read from a log get the rules `gctx config set` applies: a known key takes its
 * default's type (numbers whole, 1 to 10,000); a key this version does not know is left to
 * the version that wrote it, and never reaches the state.
 */
import { describe, expect, it } from 'vitest';
import { replay } from '../../src/decider/evolve.js';
import type { GccEvent } from '../../src/events/types.js';
import { eventProblem } from '../../src/events/validate.js';

const init = (config: Record<string, unknown>) => ({
  id: '0190000000000abcdef012',
  seq: 1,
  at: '2026-01-01T00:00:00.000Z',
  branch: 'main',
  type: 'memory.initialized',
  data: { format: 2, config },
});
const set = (key: string, value: unknown) => ({
  id: '0190000000001abcdef012',
  seq: 2,
  at: '2026-01-01T00:00:00.000Z',
  branch: 'main',
  type: 'config.set',
  data: { key, value },
});

describe('settings in events', () => {
  it('are refused with a wrong type or out of range, as commands are', () => {
    expect(eventProblem(init({ commit_after_edits: 'abc' }))).toMatch(/commit_after_edits takes a number/);
    expect(eventProblem(init({ proactive_commits: 'no' }))).toMatch(/proactive_commits takes a boolean/);
    expect(eventProblem(init({ commit_after_turns: -5 }))).toMatch(/from 1 to 10000/);
    expect(eventProblem(init({ commit_after_turns: 2.5 }))).toMatch(/whole number/);
    expect(eventProblem(set('commit_after_edits', 0))).toMatch(/config.set: commit_after_edits takes a whole number/);
    expect(eventProblem(set('proactive_commits', 1))).toMatch(/takes a boolean/);
    expect(
      eventProblem(init({ proactive_commits: false, commit_after_edits: 3, commit_after_turns: 10_000 })),
    ).toBeNull();
  });

  it('with keys this version does not know are kept in the log and left out of the state', () => {
    const e = init({ commit_after_edits: 4, later_setting: 'x', constructor: 'y', toString: 1 });
    expect(eventProblem(e)).toBeNull();
    const s = replay([e as unknown as GccEvent]);
    expect(Object.keys(s.config).sort()).toEqual(['commit_after_edits', 'commit_after_turns', 'proactive_commits']);
    expect(s.config.commit_after_edits).toBe(4);
  });

  it(
    'named __proto__ or constructor, as a forged log parses them, are kept in the log and ' +
      'reach neither the state nor its prototype',
    () => {
      const e = {
        ...init({}),
        data: {
          format: 2,
          config: JSON.parse('{"commit_after_edits":4,"__proto__":"x","constructor":"y"}') as Record<string, unknown>,
        },
      };
      expect(eventProblem(e)).toBeNull();
      const s = replay([e, set('__proto__', 'x'), set('constructor', 'y')] as unknown as GccEvent[]);
      expect(Object.keys(s.config).sort()).toEqual(['commit_after_edits', 'commit_after_turns', 'proactive_commits']);
      expect(Object.getPrototypeOf(s.config)).toBe(Object.prototype);
      expect(Object.hasOwn(s.config, '__proto__') || Object.hasOwn(s.config, 'constructor')).toBe(false);
    },
  );
});
