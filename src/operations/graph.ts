import { operation } from './operation.js';

export default operation({
  name: 'graph',
  summary: "the memory's history as a Mermaid gitGraph: branches, commits, merges, abandoned branches",
  args: (z) => z.object({ format: z.enum(['mermaid', 'json']).optional().describe('mermaid (default) or json.') }),
  cli: [{ field: 'format', as: 'flag' }],
  fronts: ['cli', 'slash'],
  readOnly: true,
  needs: 'memory',
  run: async (a, ctx) => {
    const { gitGraphMermaid, gitGraphModel } = await import('../diagrams/gitgraph.js');
    const events = ctx.memory.historyEvents();
    const model = gitGraphModel(events);
    return { text: a.format === 'json' ? JSON.stringify(model, null, 2) : gitGraphMermaid(events), data: { ok: true, graph: model } };
  },
});
