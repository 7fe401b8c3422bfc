/**
 * gctx viz and gctx graph: the state machines and the memory's history as Mermaid. The
 * machine modules are imported on use, so other commands never load xstate.
 */
import { gccError } from '../../errors.js';
import { has, one } from './args.js';
import type { CommandSpec } from './commands.js';

function format(value: string | undefined): 'mermaid' | 'json' {
  if (value === undefined || value === 'mermaid' || value === 'json') return value ?? 'mermaid';
  throw gccError('E_INVALID_ARGUMENT', `unknown format ${JSON.stringify(value)}`, 'use `--format mermaid` or `--format json`');
}

export const MACHINE_COMMANDS: Record<string, CommandSpec> = {
  viz: {
    usage: 'gctx viz [branch|session|readiness] [--format mermaid|json] [--active <state>]',
    summary: 'draw a state machine as a Mermaid state diagram, generated from its definition',
    flags: { format: 'one', active: 'one' },
    memory: 'none',
    run: async (p) => {
      const { runViz } = await import('../../diagrams/cli.js');
      const machine = p.positionals[0];
      const active = one(p, 'active');
      const text = runViz({ ...(machine ? { machine } : {}), format: format(one(p, 'format')), ...(active ? { active } : {}) });
      return { text, json: has(p, 'json') ? JSON.parse(runViz({ ...(machine ? { machine } : {}), format: 'json' })) : text };
    },
  },
  graph: {
    usage: 'gctx graph [--format mermaid|json]',
    summary: "the memory's history as a Mermaid gitGraph: branches, commits (C### labels), merges, abandoned branches",
    flags: { format: 'one' },
    memory: 'open',
    run: async (p, ctx) => {
      const { runGraph } = await import('../../diagrams/cli.js');
      const events = ctx.memory.events();
      const text = runGraph(events, format(one(p, 'format')));
      return { text, json: has(p, 'json') ? JSON.parse(runGraph(events, 'json')) : text };
    },
  },
};
