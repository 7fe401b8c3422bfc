/**
 * Diagrams generated from the machine definitions (machine.root), never hand-written, so a
 * diagram cannot drift from the code. One walk builds a plain JSON graph; the Mermaid
 * stateDiagram-v2 is rendered from that graph.
 */
import type { AnyStateMachine, AnyStateNode, StateValue } from 'xstate';
import { branchMachine } from '../machines/branch-machine.js';
import { readinessMachine } from '../machines/readiness.js';
import { sessionMachine } from '../machines/session.js';

/** Each machine by name, defined when first asked for. */
export const MACHINES = { branch: branchMachine, session: sessionMachine, readiness: readinessMachine } as const;
export type MachineName = keyof typeof MACHINES;
export const MACHINE_NAMES = Object.keys(MACHINES) as MachineName[];

export interface GraphNode {
  id: string;
  key: string;
  parent: string | null;
  type: 'atomic' | 'compound' | 'parallel' | 'final' | 'history';
  initial: string | null;
}

export interface GraphEdge {
  source: string;
  /** Same as source for a targetless (internal) transition. */
  target: string;
  /** The event, or `after <delay>` for a delayed transition. */
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
  /** Ids of the active states (leaf and ancestors), when a state value was given. */
  active: string[];
}

function actionLabel(a: unknown): string {
  if (typeof a === 'string') return a;
  if (a && typeof a === 'object' && 'type' in a) {
    const { type, params } = a as { type: string; params?: { code?: unknown; step?: unknown } };
    // The reject action's code is the interesting part: show the error, not "reject".
    if (type === 'reject' && typeof params?.code === 'string') return params.code;
    if (typeof params?.step === 'string') return `${type}(${params.step})`;
    return type;
  }
  return 'action';
}

function eventLabel(eventType: string): string {
  // xstate.after.<delay>.<state id>: delay names never contain dots.
  const after = 'xstate.after.';
  return eventType.startsWith(after) ? `after ${eventType.slice(after.length).split('.')[0]}` : eventType;
}

/** Ids of the state nodes a state value names, ancestors included. */
export function activeIds(machine: AnyStateMachine, value: StateValue): string[] {
  const out: string[] = [];
  const walk = (prefix: string, v: StateValue): void => {
    if (typeof v === 'string') {
      out.push(`${prefix}.${v}`);
      return;
    }
    for (const [k, sub] of Object.entries(v)) {
      out.push(`${prefix}.${k}`);
      if (sub !== undefined) walk(`${prefix}.${k}`, sub);
    }
  };
  walk(machine.id, value);
  return out.filter((id) => {
    try {
      machine.getStateNodeById(id);
      return true;
    } catch {
      return false;
    }
  });
}

export function machineGraph(machine: AnyStateMachine, opts: { active?: StateValue } = {}): MachineGraph {
  const nodes: GraphNode[] = [];
  const edges: GraphEdge[] = [];
  const visit = (node: AnyStateNode): void => {
    for (const child of Object.values(node.states) as AnyStateNode[]) {
      const init = child.type === 'compound' ? (child.initial.target[0]?.id ?? null) : null;
      nodes.push({
        id: child.id,
        key: child.key,
        parent: node === machine.root ? null : node.id,
        type: child.type,
        initial: init,
      });
      visit(child);
    }
    if (node === machine.root) return;
    for (const [eventType, ts] of node.transitions) {
      for (const t of ts) {
        const json = t.toJSON();
        const targets = t.target?.map((s) => s.id) ?? [node.id];
        for (const target of targets) {
          edges.push({
            source: node.id,
            target,
            event: eventLabel(eventType),
            guard: typeof json.guard === 'string' ? json.guard : json.guard ? actionLabel(json.guard) : null,
            actions: json.actions.map(actionLabel),
            internal: t.target === undefined,
          });
        }
      }
    }
  };
  visit(machine.root);
  return {
    machine: machine.id,
    initial: machine.root.initial.target[0]?.id ?? null,
    nodes,
    edges,
    active: opts.active === undefined ? [] : activeIds(machine, opts.active),
  };
}

const alias = (id: string): string => id.replace(/[^A-Za-z0-9_]/g, '_');
const clean = (s: string): string => s.replace(/[^\w .,/[\]()-]/g, '');

export function graphToMermaid(g: MachineGraph): string {
  const lines = ['stateDiagram-v2', '  direction LR'];
  const children = (parent: string | null) => g.nodes.filter((n) => n.parent === parent);
  const decl = (parent: string | null, indent: string): void => {
    for (const n of children(parent)) lines.push(`${indent}state "${clean(n.key)}" as ${alias(n.id)}`);
    const init = parent === null ? g.initial : g.nodes.find((n) => n.id === parent)?.initial;
    if (init) lines.push(`${indent}[*] --> ${alias(init)}`);
    for (const n of children(parent)) {
      if (children(n.id).length === 0) continue;
      lines.push(`${indent}state ${alias(n.id)} {`);
      decl(n.id, `${indent}  `);
      lines.push(`${indent}}`);
    }
  };
  decl(null, '  ');
  for (const n of g.nodes) if (n.type === 'final') lines.push(`  ${alias(n.id)} --> [*]`);
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
  if (g.active.length > 0) {
    lines.push(
      '  classDef active fill:#f96,stroke:#333,stroke-width:2px',
      '  classDef activeParent stroke:#f60,stroke-width:3px',
    );
    const leaves = g.active.filter((id) => !g.active.some((o) => o.startsWith(`${id}.`)));
    for (const id of g.active) lines.push(`  class ${alias(id)} ${leaves.includes(id) ? 'active' : 'activeParent'}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Parses `--active` text: a dotted path (`active.current.idle`) or a JSON state value. */
export function parseStateValue(text: string): StateValue {
  if (text.trim().startsWith('{') || text.trim().startsWith('"')) return JSON.parse(text) as StateValue;
  const parts = text.split('.').filter(Boolean);
  const last = parts.pop() ?? '';
  return parts.reduceRight<StateValue>((acc, p) => ({ [p]: acc }), last);
}

export function machineMermaid(name: MachineName, opts: { active?: StateValue } = {}): string {
  return graphToMermaid(machineGraph(MACHINES[name](), opts));
}

export function machineJson(name: MachineName, opts: { active?: StateValue } = {}): MachineGraph {
  return machineGraph(MACHINES[name](), opts);
}
