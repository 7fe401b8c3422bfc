/**
 * Where a session stands, as specs over folded events: a new session resumes where the clone
 * last moved; a session that has begun is not moved by another session; a command naming no
 * session (a person, or an agent driving gctx through the CLI) moves the clone's default and
 * every session that never chose a branch itself; a closed branch lands on where it went.
 */
import { describe, expect, it } from 'vitest';
import { replay } from '../../src/decider/evolve.js';
import { currentBranch } from '../../src/decider/state.js';
import { DEFAULT_CONFIG, type GccEvent, type Placed } from '../../src/events/types.js';

let clock = 1_700_000_000_000;
const given = (events: Placed[]): GccEvent[] =>
  events.map(
    (e, i) =>
      ({
        id: `${(clock++).toString(16).padStart(12, '0')}0000000000`,
        seq: i + 1,
        at: new Date(clock).toISOString(),
        branch: e.branch,
        type: e.type,
        data: e.data,
      }) as GccEvent,
  );

const init: Placed = { type: 'memory.initialized', data: { format: 2, config: DEFAULT_CONFIG }, branch: 'main' };
const created = (name: string, parent = 'main'): Placed => ({
  type: 'branch.created',
  data: { name, parent, purpose: `try ${name}`, hypotheses: [] },
  branch: name,
});
const switched = (to: string, session?: string): Placed => ({
  type: 'branch.switched',
  data: session ? { to, session } : { to },
  branch: to,
});
const began = (session: string): Placed => ({
  type: 'session.started',
  data: { session, host: 'test', reason: 'startup' },
  branch: 'main',
});
const abandoned = (branch: string): Placed => ({
  type: 'branch.abandoned',
  data: { branch, reason: 'no gain' },
  branch,
});

describe('where a session stands', () => {
  it('a new session resumes where the clone last moved, whoever moved it', () => {
    const s = replay(given([init, began('a'), created('exp'), switched('exp', 'a')]));
    expect(currentBranch(s, 'a')).toBe('exp');
    expect(currentBranch(s, 'next-conversation')).toBe('exp');
    // A command naming no session keeps the clone's default.
    expect(currentBranch(s)).toBe('main');
  });

  it('a session that has begun is not moved by another session', () => {
    const s = replay(given([init, began('a'), began('b'), created('exp'), switched('exp', 'a')]));
    expect(currentBranch(s, 'a')).toBe('exp');
    expect(currentBranch(s, 'b')).toBe('main');
  });

  it('a switch naming no session moves the default and the sessions that never chose, not those that did', () => {
    const s = replay(
      given([
        init,
        began('hooks'),
        began('chooser'),
        created('x'),
        created('y'),
        switched('y', 'chooser'),
        switched('x'),
      ]),
    );
    expect(currentBranch(s)).toBe('x');
    expect(currentBranch(s, 'hooks')).toBe('x');
    expect(currentBranch(s, 'chooser')).toBe('y');
  });

  it('a session on a branch that closed lands where the branch went', () => {
    const s = replay(given([init, began('a'), created('exp'), switched('exp', 'a'), abandoned('exp')]));
    expect(currentBranch(s, 'a')).toBe('main');
    expect(currentBranch(s, 'someone-new')).toBe('main');
  });
});
