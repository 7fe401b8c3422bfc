/**
 * Diagrams generated from the machine definitions (machine.root), never hand-written, so a
 * diagram cannot drift from the code. One walk builds a plain JSON graph; the Mermaid
 * stateDiagram-v2 is rendered from that graph. Both machines are flat: states and their edges.
 */
import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { branchMachine } from '../machines/branch-machine.js';
import { sessionMachine } from '../machines/session.js';

/** Each machine by name, defined when first asked for. */
export const MACHINES = { branch: branchMachine, session: sessionMachine } as const;
export type MachineName = keyof typeof MACHINES;
export const MACHINE_NAMES = Object.keys(MACHINES) as MachineName[];

interface GraphNode {
  id: string;
  key: string;
  parent: string | null;
  type: string;
  initial: string | null;
}

interface GraphEdge {
  source: string;
  /** Same as source for a targetless (internal) transition. */
  target: string;
  event: string;
  guard: string | null;
  actions: string[];
  internal: boolean;
}

export interface MachineGraph {
  machine: string;
  initial: string | null;
  nodes: GraphNode[];
  edges: GraphEdge[];
  /** Id of the active state, when one was given. */
  active: string[];
}

function actionLabel(a: unknown): string {
  if (typeof a === 'string') return a;
  if (a && typeof a === 'object' && 'type' in a) {
    const { type, params } = a as { type: string; params?: { code?: unknown } };
    // The reject action's code is the interesting part: show the error, not "reject".
    return type === 'reject' && typeof params?.code === 'string' ? params.code : type;
  }
  return 'action';
}

/** The id of the state `value` names, or null when the machine has no such state. */
export function stateId(machine: AnyStateMachine, value: string): string | null {
  return Object.hasOwn(machine.root.states, value) ? `${machine.id}.${value}` : null;
}

export function machineGraph(machine: AnyStateMachine, opts: { active?: string } = {}): MachineGraph {
  const nodes: GraphNode[] = [];
  const edges: GraphEdge[] = [];
  for (const node of Object.values(machine.root.states) as AnyStateNode[]) {
    nodes.push({ id: node.id, key: node.key, parent: null, type: node.type, initial: null });
    for (const [event, ts] of node.transitions) {
      for (const t of ts) {
        const json = t.toJSON();
        for (const target of t.target?.map((s) => s.id) ?? [node.id]) {
          edges.push({
            source: node.id,
            target,
            event,
            guard: typeof json.guard === 'string' ? json.guard : json.guard ? actionLabel(json.guard) : null,
            actions: json.actions.map(actionLabel),
            internal: t.target === undefined,
          });
        }
      }
    }
  }
  const active = opts.active === undefined ? null : stateId(machine, opts.active);
  return {
    machine: machine.id,
    initial: machine.root.initial.target[0]?.id ?? null,
    nodes,
    edges,
    active: active ? [active] : [],
  };
}

const alias = (id: string): string => id.replace(/[^A-Za-z0-9_]/g, '_');
const clean = (s: string): string => s.replace(/[^\w .,/[\]()-]/g, '');

export function graphToMermaid(g: MachineGraph): string {
  const lines = ['stateDiagram-v2', '  direction LR'];
  for (const n of g.nodes) lines.push(`  state "${clean(n.key)}" as ${alias(n.id)}`);
  if (g.initial) lines.push(`  [*] --> ${alias(g.initial)}`);
  // Edges with the same ends and outcome are merged, so rejection fans stay readable.
  const merged = new Map<string, { events: string[]; rest: string }>();
  for (const e of g.edges) {
    const rest = `${e.guard ? ` [${e.guard}]` : ''}${e.actions.length ? ` / ${e.actions.join(', ')}` : ''}`;
    const key = `${e.source}\u0000${e.target}\u0000${rest}`;
    const m = merged.get(key) ?? { events: [], rest };
    if (!m.events.includes(e.event)) m.events.push(e.event);
    merged.set(key, m);
  }
  for (const [key, m] of merged) {
    const [source = '', target = ''] = key.split('\u0000');
    lines.push(`  ${alias(source)} --> ${alias(target)} : ${clean(m.events.join(', ') + m.rest)}`);
  }
  if (g.active.length > 0) lines.push('  classDef active fill:#f96,stroke:#333,stroke-width:2px');
  for (const id of g.active) lines.push(`  class ${alias(id)} active`);
  return `${lines.join('\n')}\n`;
}

export function machineMermaid(name: MachineName, opts: { active?: string } = {}): string {
  return graphToMermaid(machineGraph(MACHINES[name](), opts));
}

export function machineJson(name: MachineName, opts: { active?: string } = {}): MachineGraph {
  return machineGraph(MACHINES[name](), opts);
}
