/**
 * The roadmap's cap: a command past it is refused with a fix, a hand edit past it is not
 * adopted, and a log holding more adds (written by hand, or forged in a pull request) folds
 * to the first MAX_OBJECTIVES, in bounded time — the fold stays total.
 */
import { describe, expect, it } from 'vitest';
import { decide } from '../../src/decider/decide.js';
import { replay } from '../../src/decider/evolve.js';
import { DEFAULT_CONFIG, type GccEvent } from '../../src/events/types.js';
import { MAX_OBJECTIVES } from '../../src/events/rules.js';
import { adoptMain } from '../../src/projections/adopt.js';
import { renderMain } from '../../src/projections/render-main.js';

const id = (n: number) => (1_700_000_000_000 + n).toString(16).padStart(12, '0') + n.toString(16).padStart(10, '0');
function history(adds: number): GccEvent[] {
  const at = new Date(1_700_000_000_000).toISOString();
  const init = {
    id: id(0),
    seq: 1,
    at,
    branch: 'main',
    type: 'memory.initialized',
    data: { format: 2, config: DEFAULT_CONFIG },
  } as GccEvent;
  return [
    init,
    ...Array.from(
      { length: adds },
      (_, i) =>
        ({
          id: id(i + 1),
          seq: i + 2,
          at,
          branch: 'main',
          type: 'objective.added',
          data: { id: `o-${i}`, text: `goal ${i}` },
        }) as GccEvent,
    ),
  ];
}

describe('the roadmap cap', () => {
  it('a log with more adds than the cap folds to the first MAX_OBJECTIVES', () => {
    const s = replay(history(MAX_OBJECTIVES * 6));
    expect(s.objectives).toHaveLength(MAX_OBJECTIVES);
    expect(s.objectives.at(-1)!.text).toBe(`goal ${MAX_OBJECTIVES - 1}`);
  });

  it('roadmap add at the cap is refused with a fix', () => {
    const s = replay(history(MAX_OBJECTIVES));
    const d = decide(s, { type: 'roadmap', action: 'add', target: 'one more' }, { nonce: '0123456789abcdef' });
    expect(d.ok).toBe(false);
    if (!d.ok) {
      expect(d.error.code).toBe('E_INVALID_ARGUMENT');
      expect(d.error.fix).toMatch(/roadmap remove/);
    }
  });

  it('a hand edit of main.md past the cap changes no objective, and says why', () => {
    const s = replay(history(2));
    const base = renderMain(s);
    const many = Array.from({ length: MAX_OBJECTIVES + 1 }, (_, i) => `- [ ] extra ${i}`).join('\n');
    const disk = base.replace('- [ ] goal 1', `- [ ] goal 1\n${many}`);
    const a = adoptMain(
      s,
      base,
      disk,
      () => '0123456789abcdef',
      (t) => t,
    );
    expect(a.events.filter((e) => e.type.startsWith('objective.'))).toEqual([]);
    expect(a.unadopted.join(' ')).toMatch(/more than the 500 a roadmap holds/);
  });
});
