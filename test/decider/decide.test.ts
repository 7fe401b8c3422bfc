/** Given events, when a command, then events or an error code: the decider's rules one by one. */
import { describe, expect, it } from 'vitest';
import { type Command } from '../../src/decider/commands.js';
import { decide } from '../../src/decider/decide.js';
import type { GccEvent, NewEvent } from '../../src/events/types.js';
import { DEFAULT_CONFIG } from '../../src/events/types.js';
import { evolve } from '../../src/projections/evolve.js';
import { initialState } from '../../src/projections/state.js';

let seq = 0;
function stamp(branch: string, events: NewEvent[]): GccEvent[] {
  return events.map((e) => ({ ...e, id: String(++seq).padStart(12, '0'), seq, at: '2026-01-01T00:00:00.000Z', branch }) as GccEvent);
}

const INIT: NewEvent = { type: 'memory.initialized', data: { format: 1, config: DEFAULT_CONFIG } };

/** given(...) builds state by running commands through decide + evolve, like the engine. */
function given(...cmds: Command[]) {
  let state = evolve(initialState(), stamp('main', [INIT]));
  for (const c of cmds) {
    const d = decide(state, c, { nonce: `n${++seq}00000000` });
    if (!d.ok) throw d.error;
    state = evolve(state, stamp(d.log, d.events));
  }
  return {
    when(cmd: Command, session?: string) {
      const d = decide(state, cmd, { nonce: 'abcdef0123456789', session });
      return {
        then(log: string, types: NewEvent['type'][], check?: (events: NewEvent[]) => void) {
          if (!d.ok) throw d.error;
          expect(d.log).toBe(log);
          expect(d.events.map((e) => e.type)).toEqual(types);
          check?.(d.events);
        },
        thenFails(code: string, fix?: RegExp) {
          expect(d.ok).toBe(false);
          if (d.ok) return;
          expect(d.error.code).toBe(code);
          if (fix) expect(d.error.fix).toMatch(fix);
        },
      };
    },
  };
}

const branch = (name: string, purpose = 'try it'): Command => ({ type: 'branch', name, purpose });

describe('decide', () => {
  it('commit goes to the current branch with purpose, rolling previous progress and files', () => {
    given(
      branch('exp', 'test sqlite'),
      { type: 'record-tool', tool: 'Edit', input: 'a.ts', result: 'ok', isError: false, files: [{ path: 'a.ts', added: 3, removed: 1 }] },
      { type: 'commit', contribution: 'first step' },
    )
      .when({ type: 'commit', contribution: 'second step\nmore detail', files: [{ path: 'b.ts', added: 1, removed: 0 }] })
      .then('exp', ['commit.recorded'], ([e]) => {
        if (e!.type !== 'commit.recorded') throw new Error();
        expect(e!.data.label).toBe('C002');
        expect(e!.data.title).toBe('second step');
        expect(e!.data.purpose).toBe('test sqlite');
        expect(e!.data.previous).toMatch(/1 earlier commit: C001 first step/);
        expect(e!.data.files).toEqual([{ path: 'b.ts', added: 1, removed: 0 }]);
        expect(e!.data.id).toMatch(/^[0-9a-f]{7}$/);
      });
  });

  it('commit fills Files touched from edits logged since the last commit', () => {
    given({ type: 'record-tool', tool: 'Edit', input: 'x', result: 'ok', isError: false, files: [{ path: 'src/x.ts', added: 2, removed: 2 }] })
      .when({ type: 'commit', contribution: 'done' })
      .then('main', ['commit.recorded'], ([e]) => expect((e as Extract<NewEvent, { type: 'commit.recorded' }>).data.files).toEqual([{ path: 'src/x.ts', added: 2, removed: 2 }]));
  });

  it('commit can tick objectives in the same batch', () => {
    given({ type: 'roadmap', action: 'add', target: 'ship it' }).when({ type: 'commit', contribution: 'shipped', check: ['1'] }).then('main', ['commit.recorded', 'objective.checked']);
  });

  it('branch is logged in the parent and switches the session', () => {
    given(branch('a')).when(branch('a/b'), 's1').then('a', ['branch.created'], ([e]) => expect(e!.data).toMatchObject({ name: 'a/b', parent: 'a', session: 's1' }));
  });

  it('refuses branch names that escape the tree, naming the rule', () => {
    for (const bad of ['../x', '/abs', 'a/../b', 'nul', 'x\u0000', 'trail.', 'a//b', 'C:evil', 'a\\b', 'log.md', ''])
      given().when(branch(bad)).thenFails('E_BRANCH_NAME', /pick a name/);
  });

  it('refuses a branch that exists, in any case', () => {
    given(branch('Exp')).when(branch('exp')).thenFails('E_BRANCH_EXISTS', /gctx switch Exp/);
  });

  it('merge writes a synthesis commit and the merge on the target, and surfaces what was tried', () => {
    given(branch('exp', 'try sqlite'), { type: 'commit', contribution: 'bench done' })
      .when({ type: 'merge', branch: 'exp', synthesis: 'sqlite is fast enough' })
      .then('main', ['commit.recorded', 'branch.merged'], ([c]) => {
        const d = (c as Extract<NewEvent, { type: 'commit.recorded' }>).data;
        expect(d.merge?.tried).toMatch(/try sqlite[\s\S]*C001 bench done/);
        expect(d.title).toBe('Merge exp: sqlite is fast enough');
      });
  });

  it('merge rules: not main, not itself, not closed', () => {
    given().when({ type: 'merge', branch: 'main', synthesis: 's' }).thenFails('E_MERGE_MAIN');
    given(branch('a')).when({ type: 'merge', branch: 'a', into: 'a', synthesis: 's' }).thenFails('E_MERGE_SELF');
    given(branch('a'), { type: 'merge', branch: 'a', synthesis: 's' }).when({ type: 'merge', branch: 'a', synthesis: 's' }).thenFails('E_BRANCH_CLOSED');
    given(branch('a'), { type: 'switch', name: 'main' }, branch('b'), { type: 'abandon', branch: 'a', reason: 'no' })
      .when({ type: 'merge', branch: 'b', into: 'a', synthesis: 's' })
      .thenFails('E_BRANCH_CLOSED');
  });

  it('abandon records why in the branch log; main cannot be abandoned', () => {
    given(branch('a')).when({ type: 'abandon', branch: 'a', reason: 'too slow' }).then('a', ['branch.abandoned']);
    given().when({ type: 'abandon', branch: 'main', reason: 'x' }).thenFails('E_ABANDON_MAIN');
    given(branch('a')).when({ type: 'abandon', branch: 'a', reason: ' ' }).thenFails('E_INVALID_ARGUMENT');
  });

  it('commit to a closed branch is impossible: the session falls back to main', () => {
    given(branch('a'), { type: 'abandon', branch: 'a', reason: 'no' }).when({ type: 'commit', contribution: 'x' }).then('main', ['commit.recorded']);
    given(branch('a'), { type: 'abandon', branch: 'a', reason: 'no' }).when({ type: 'switch', name: 'a' }).thenFails('E_BRANCH_CLOSED', /context --branch a/);
  });

  it('roadmap finds objectives by number, text or unique part', () => {
    const g = () => given({ type: 'roadmap', action: 'add', target: 'Write  the\nparser' }, { type: 'roadmap', action: 'add', target: 'Write docs' });
    g().when({ type: 'roadmap', action: 'check', target: '2' }).then('main', ['objective.checked']);
    g().when({ type: 'roadmap', action: 'remove', target: 'Write the parser' }).then('main', ['objective.removed']);
    g().when({ type: 'roadmap', action: 'uncheck', target: 'docs' }).then('main', ['objective.unchecked']);
    g().when({ type: 'roadmap', action: 'check', target: 'write' }).thenFails('E_OBJECTIVE_NOT_FOUND');
    g().when({ type: 'roadmap', action: 'check', target: '3' }).thenFails('E_OBJECTIVE_NOT_FOUND');
  });

  it('config coerces values and refuses unknown keys', () => {
    given().when({ type: 'config', key: 'proactive_commits', value: 'off' }).then('main', ['config.set'], ([e]) => expect(e!.data).toEqual({ key: 'proactive_commits', value: false }));
    given().when({ type: 'config', key: 'shell', value: '/bin/sh' }).thenFails('E_CONFIG_KEY');
    given().when({ type: 'config', key: 'commit_after_edits', value: 'many' }).thenFails('E_INVALID_ARGUMENT');
  });

  it('refuses unknown commands and over-long text with a clear error', () => {
    given().when({ type: 'nope' } as unknown as Command).thenFails('E_INVALID_ARGUMENT');
    given().when({ type: 'commit', contribution: 'x'.repeat(1_048_577) }).thenFails('E_INVALID_ARGUMENT');
  });

  it('sessions keep their own branch; a session-less call moves the default', () => {
    let state = evolve(initialState(), stamp('main', [INIT]));
    const run = (cmd: Command, session?: string) => {
      const d = decide(state, cmd, { nonce: `n${++seq}00000000`, session });
      if (!d.ok) throw d.error;
      state = evolve(state, stamp(d.log, d.events));
      return d.log;
    };
    run(branch('a'), 's1');
    expect(run({ type: 'commit', contribution: 'x' }, 's2')).toBe('main');
    expect(run({ type: 'commit', contribution: 'y' }, 's1')).toBe('a');
    run(branch('b'));
    expect(run({ type: 'commit', contribution: 'z' }, 's3')).toBe('b');
    expect(run({ type: 'commit', contribution: 'w' }, 's1')).toBe('a');
  });
});
