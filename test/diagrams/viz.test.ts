/**
 * The state diagrams have no grammar in @mermaid-js/parser, so they are checked structurally:
 * every line has a known shape, every state is declared once, every edge joins declared states,
 * braces balance, and every transition of the machine definition is on the diagram.
 */
import { readFileSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AnyStateNode } from 'xstate';
import { createReadinessBarrier } from '../../src/machines/readiness.js';
import { runViz } from '../../src/diagrams/cli.js';
import { machineDocsMarkdown } from '../../src/diagrams/docs.js';
import { inspectorFromEnv } from '../../src/diagrams/inspect.js';
import { MACHINE_NAMES, MACHINES, machineJson, machineMermaid } from '../../src/diagrams/mermaid.js';
import { GccError } from '../../src/errors.js';
import { SimulatedClock } from 'xstate';

const LINE = [
  /^stateDiagram-v2$/,
  /^ {2}direction LR$/,
  /^\s+state "[\w ]+" as \w+$/,
  /^\s+state \w+ \{$/,
  /^\s+\}$/,
  /^\s+\[\*\] --> \w+$/,
  /^ {2}\w+ --> \[\*\]$/,
  /^ {2}\w+ --> \w+ : [\w .,/[\]()-]+$/,
  /^ {2}classDef \w+ [\w:#,-]+$/,
  /^ {2}class \w+ (active|activeParent)$/,
];

function structure(text: string) {
  const lines = text.trimEnd().split('\n');
  const bad = lines.filter((l) => !LINE.some((re) => re.test(l)));
  const declared = lines.flatMap((l) => /state "[^"]*" as (\w+)/.exec(l)?.[1] ?? []);
  const edges = lines.flatMap((l) => {
    const m = /^ {2}(\w+) --> (\w+) : (.*)$/.exec(l);
    return m ? [{ from: m[1]!, to: m[2]!, label: m[3]! }] : [];
  });
  const depth = lines.reduce((d, l) => d + (l.endsWith('{') ? 1 : 0) - (l.trim() === '}' ? 1 : 0), 0);
  return { bad, declared, edges, depth };
}

function allTransitions(node: AnyStateNode): Array<{ source: string; event: string }> {
  const own = [...node.transitions.keys()].map((event) => ({ source: node.id, event }));
  return [...own, ...(Object.values(node.states) as AnyStateNode[]).flatMap(allTransitions)];
}

describe('machineMermaid', () => {
  for (const name of MACHINE_NAMES) {
    it(`${name}: well-formed and complete`, () => {
      const text = machineMermaid(name);
      const s = structure(text);
      expect(s.bad).toEqual([]);
      expect(s.depth).toBe(0);
      expect(new Set(s.declared).size).toBe(s.declared.length);
      for (const e of s.edges) {
        expect(s.declared).toContain(e.from);
        expect(s.declared).toContain(e.to);
      }
      const alias = (id: string) => id.replace(/[^A-Za-z0-9_]/g, '_');
      for (const t of allTransitions(MACHINES[name]().root)) {
        const ev = t.event.startsWith('xstate.after.') ? `after ${t.event.split('.')[2]}` : t.event;
        expect(
          s.edges.some(
            (e) =>
              e.from === alias(t.source) &&
              e.label
                .split(/ \[| \//)[0]!
                .split(', ')
                .includes(ev),
          ),
          `${t.source} ${ev}`,
        ).toBe(true);
      }
    });
  }

  it('highlights the active state and outlines its ancestors', () => {
    const text = machineMermaid('readiness', { active: { timedOut: 'reported' } });
    expect(text).toContain('class readiness_timedOut_reported active');
    expect(text).toContain('class readiness_timedOut activeParent');
    expect(structure(text).bad).toEqual([]);
  });

  it('the JSON form carries the same nodes and edges', () => {
    const g = machineJson('readiness');
    expect(g.nodes.map((n) => n.id)).toContain('readiness.timedOut.reported');
    expect(g.edges).toContainEqual(
      expect.objectContaining({ source: 'readiness.waiting', target: 'readiness.timedOut', event: 'after cap' }),
    );
  });
});

describe('CLI entry points', () => {
  it('runViz prints one or all machines, in mermaid or json', () => {
    expect(runViz({ machine: 'session' })).toMatch(/^stateDiagram-v2\n/);
    expect(runViz({}).match(/stateDiagram-v2/g)).toHaveLength(3);
    expect(JSON.parse(runViz({ machine: 'branch', format: 'json', active: 'merged' })).active).toEqual([
      'branch.merged',
    ]);
    expect(Object.keys(JSON.parse(runViz({ format: 'json' })))).toEqual(['branch', 'session', 'readiness']);
  });

  it('runViz refuses unknown machines and states with a fix', () => {
    for (const args of [{ machine: 'nope' }, { machine: 'branch', active: 'nowhere' }, { active: 'ready' }]) {
      try {
        runViz(args);
        expect.unreachable();
      } catch (e) {
        expect(e).toBeInstanceOf(GccError);
        expect((e as GccError).code).toBe('E_INVALID_ARGUMENT');
        expect((e as GccError).fix).toBeTruthy();
      }
    }
  });
});

describe('docs/machines.md', () => {
  it('is up to date with the machines (regenerate: npx tsx scripts/gen-docs.ts)', () => {
    const committed = readFileSync(new URL('../../docs/machines.md', import.meta.url), 'utf8');
    expect(committed).toBe(machineDocsMarkdown());
  });
});

describe('inspection', () => {
  it('is off unless the environment asks', () => {
    expect(inspectorFromEnv({}).inspect).toBeUndefined();
  });

  it('GCC_INSPECT_FILE records the inspection stream as JSON lines', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gcc-inspect-'));
    try {
      const file = join(dir, 'inspect.jsonl');
      const handle = inspectorFromEnv({ GCC_INSPECT_FILE: file });
      const clock = new SimulatedClock();
      const barrier = createReadinessBarrier({
        capMs: 100,
        clock,
        ...(handle.inspect ? { inspect: handle.inspect } : {}),
      });
      barrier.sessionHookRan();
      clock.increment(100);
      handle.stop();
      barrier.stop();
      const records = readFileSync(file, 'utf8')
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as { type: string; value?: unknown; event?: { type: string } });
      expect(records[0]).toMatchObject({ type: '@xstate.actor', machine: 'readiness' });
      expect(records.some((r) => r.type === '@xstate.event' && r.event?.type === 'SESSION_HOOK_RAN')).toBe(true);
      expect(records.filter((r) => r.type === '@xstate.snapshot').at(-1)?.value).toEqual({ timedOut: 'unreported' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
