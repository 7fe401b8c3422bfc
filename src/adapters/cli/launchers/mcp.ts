import { operation } from '../../../operations/operation.js';
import { keepHeapSmall } from '../heap-flags.js';

export default operation({
  name: 'mcp',
  summary: "serve this project's memory over MCP on stdio (creates .GCC/ on the first tool call)",
  args: {},
  cli: [],
  fronts: ['cli'],
  example: 'mcp',
  answer: 'result',
  readOnly: false,
  needs: 'none',
  run: async (_a, ctx) => {
    // Before the server's modules load: the SDK's own loading would grow the young generation.
    keepHeapSmall();
    const { serveMcp } = await import('../../mcp/server.js');
    await serveMcp({ dir: ctx.dir, session: ctx.session, budget: ctx.budget });
    // stdout belongs to the protocol: nothing more is printed after the client leaves.
    return { text: '', data: {} };
  },
});
