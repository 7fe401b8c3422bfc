import { operation } from './operation.js';

export default operation({
  name: 'viz',
  summary: 'draw a state machine (branch, session) as a Mermaid state diagram from its definition',
  args: {
    machine: { kind: 'string', help: 'branch or session (default: all).' },
    format: { kind: 'enum', values: ['mermaid', 'json'], help: 'mermaid (default) or json.' },
    active: { kind: 'string', help: 'Highlight this state.' },
  },
  cli: [
    { field: 'machine', as: 'positional' },
    { field: 'format', as: 'flag' },
    { field: 'active', as: 'flag' },
  ],
  fronts: ['cli'],
  example: 'viz branch --active merged',
  answer: 'result',
  readOnly: true,
  needs: 'none',
  run: async (a) => {
    const { runViz } = await import('../diagrams/cli.js');
    const opts = { ...(a.machine ? { machine: a.machine } : {}), ...(a.active ? { active: a.active } : {}) };
    const text = runViz({ ...opts, format: a.format ?? 'mermaid' });
    return { text, data: { ok: true, machines: JSON.parse(runViz({ ...opts, format: 'json' })) as unknown } };
  },
});
