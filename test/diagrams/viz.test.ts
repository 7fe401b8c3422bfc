/**
 * The state diagrams have no grammar in @mermaid-js/parser, so they are checked structurally:
 * every line has a known shape, every state is declared once, every edge joins declared states,
 * braces balance, and every transition of the machine definition is on the diagram.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { AnyStateNode } from 'xstate';
import { runViz } from '../../src/diagrams/cli.js';
import { machineDocsMarkdown } from '../../scripts/machine-docs.js';
import { inspectorFromEnv } from '../../src/diagrams/inspect.js';
import { MACHINE_NAMES, MACHINES, machineJson, machineMermaid } from '../../src/diagrams/mermaid.js';
import { GccError } from '../../src/errors.js';

const LINE = [
  /^stateDiagram-v2$/,
  /^ {2}direction LR$/,
  /^ {2}state "[\w ]+" as \w+$/,
  /^ {2}\[\*\] --> \w+$/,
  /^ {2}\w+ --> \w+ : [\w .,/[\]()-]+$/,
  /^ {2}classDef \w+ [\w:#,-]+$/,
  /^ {2}class \w+ active$/,
];

function structure(text: string) {
  const lines = text.trimEnd().split('\n');
  const bad = lines.filter((l) => !LINE.some((re) => re.test(l)));
  const declared = lines.flatMap((l) => /state "[^"]*" as (\w+)/.exec(l)?.[1] ?? []);
  const edges = lines.flatMap((l) => {
    const m = /^ {2}(\w+) --> (\w+) : (.*)$/.exec(l);
    return m ? [{ from: m[1]!, to: m[2]!, label: m[3]! }] : [];
  });
  return { bad, declared, edges };
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
      expect(new Set(s.declared).size).toBe(s.declared.length);
      for (const e of s.edges) {
        expect(s.declared).toContain(e.from);
        expect(s.declared).toContain(e.to);
      }
      const alias = (id: string) => id.replace(/[^A-Za-z0-9_]/g, '_');
      for (const t of allTransitions(MACHINES[name]().root)) {
        const ev = t.event;
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

  it('highlights the active state', () => {
    const text = machineMermaid('session', { active: 'compacting' });
    expect(text).toContain('class session_compacting active');
    expect(structure(text).bad).toEqual([]);
  });

  it('the JSON form carries the same nodes and edges', () => {
    const g = machineJson('session');
    expect(g.nodes.map((n) => n.id)).toContain('session.compacting');
    expect(g.edges).toContainEqual(
      expect.objectContaining({ source: 'session.ready', target: 'session.compacting', event: 'COMPACT' }),
    );
  });
});

describe('CLI entry points', () => {
  it('runViz prints one or all machines, in mermaid or json', () => {
    expect(runViz({ machine: 'session' })).toMatch(/^stateDiagram-v2\n/);
    expect(runViz({}).match(/stateDiagram-v2/g)).toHaveLength(2);
    expect(JSON.parse(runViz({ machine: 'branch', format: 'json', active: 'merged' })).active).toEqual([
      'branch.merged',
    ]);
    expect(Object.keys(JSON.parse(runViz({ format: 'json' })))).toEqual(['branch', 'session']);
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
    expect(inspectorFromEnv({}).step).toBeUndefined();
  });
});
