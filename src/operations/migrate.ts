import { operation } from './operation.js';

export default operation({
  name: 'migrate',
  summary: 'move a .GCC/ of the first layout into writer-owned segments (any command does it too)',
  args: (z) => z.object({}),
  cli: [],
  fronts: ['cli'],
  readOnly: false,
  needs: 'memory',
  run: (_a, ctx) => {
    const said = ctx.memory.warnings.filter((w) => w.startsWith('moved '));
    return { text: said.length ? said.join('\n') : 'Nothing to migrate: .GCC/ is already in the writer-owned layout.', data: { ok: true, migrated: said.length > 0 } };
  },
});
