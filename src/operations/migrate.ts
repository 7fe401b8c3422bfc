import { operation } from './operation.js';

export default operation({
  name: 'migrate',
  summary: 'move a .GCC/ of the first layout into writer-owned segments and stage the change (the first write on a branch does it too)',
  args: {},
  cli: [],
  fronts: ['cli'],
  example: 'migrate',
  answer: 'result',
  library: () => 'await memory.migrate()',
  readOnly: false,
  needs: 'memory',
  run: async (_a, ctx) => {
    const said = await ctx.memory.migrate();
    return { text: said ?? 'Nothing to migrate: .GCC/ is already in the writer-owned layout.', data: { ok: true, migrated: said !== null } };
  },
});
