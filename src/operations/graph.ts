import { operation } from './operation.js';

export default operation({
  name: 'graph',
  summary:
    "the memory's history as a Mermaid gitGraph: branches, commits, merges, abandoned branches " +
    '(the last 50 commits unless asked)',
  args: {
    format: { kind: 'enum', values: ['mermaid', 'json'], help: 'mermaid (default) or json.' },
    last: { kind: 'number', help: 'Draw the last n commits (default 50).' },
    all: { kind: 'boolean', help: 'Draw every commit (a long history makes a diagram too large to render).' },
  },
  cli: [
    { field: 'format', as: 'flag' },
    { field: 'last', as: 'flag' },
    { field: 'all', as: 'flag' },
  ],
  fronts: ['cli', 'slash'],
  example: 'graph --last 20',
  answer: 'memory',
  readOnly: true,
  needs: 'memory',
  run: async (a, ctx) => {
    const { GitGraph, RECENT_COMMITS, knownHistory } = await import('../diagrams/gitgraph.js');
    const json = a.format === 'json';
    if (a.all && ctx.print) {
      // The whole history is printed as it streams: nothing of it is held.
      const printing = GitGraph.printing(json ? 'json' : 'mermaid', ctx.print);
      ctx.memory.eachHistoryEvent((e) => printing.add(e));
      printing.finish();
      return { text: '', data: { ok: true } };
    }
    let graph: InstanceType<typeof GitGraph>;
    if (a.all) {
      graph = new GitGraph('all');
      ctx.memory.eachHistoryEvent((e) => graph.add(e));
    } else {
      // The recent past alone: what the state knows of the rest, and the newest logs.
      const events = ctx.memory.recentHistoryEvents(a.last ?? RECENT_COMMITS);
      graph = GitGraph.recent(knownHistory(ctx.memory.state), a.last);
      for (const e of events) graph.add(e);
    }
    const model = graph.model();
    return { text: json ? JSON.stringify(model, null, 2) : graph.mermaid(), data: { ok: true, graph: model } };
  },
});
