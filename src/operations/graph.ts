import { operation } from './operation.js';

export default operation({
  name: 'graph',
  summary: "the memory's history as a Mermaid gitGraph: branches, commits, merges, abandoned branches (the last 50 commits unless asked)",
  args: (z) => z.object({
    format: z.enum(['mermaid', 'json']).optional().describe('mermaid (default) or json.'),
    last: z.number().int().min(1).optional().describe('Draw the last n commits (default 50).'),
    all: z.boolean().optional().describe('Draw every commit (a long history makes a diagram too large to render).'),
  }),
  cli: [{ field: 'format', as: 'flag' }, { field: 'last', as: 'flag' }, { field: 'all', as: 'flag' }],
  fronts: ['cli', 'slash'],
  readOnly: true,
  needs: 'memory',
  run: async (a, ctx) => {
    const { GitGraph } = await import('../diagrams/gitgraph.js');
    const json = a.format === 'json';
    if (a.all && ctx.print) {
      // The whole history is printed as it streams: nothing of it is held.
      const printing = GitGraph.printing(json ? 'json' : 'mermaid', ctx.print);
      ctx.memory.eachHistoryEvent((e) => printing.add(e));
      printing.finish();
      return { text: '', data: { ok: true } };
    }
    const graph = new GitGraph(a.all ? 'all' : a.last);
    ctx.memory.eachHistoryEvent((e) => graph.add(e));
    const model = graph.model();
    return { text: json ? JSON.stringify(model, null, 2) : graph.mermaid(), data: { ok: true, graph: model } };
  },
});
