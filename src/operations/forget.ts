import { count } from '../context/lines.js';
import { operation } from './operation.js';

export default operation({
  name: 'forget',
  summary:
    'remove memory on purpose: the named segments (or those deleted by hand) go, ' +
    'with the copy that would bring them back',
  args: {
    segments: {
      kind: 'strings',
      help: 'Segments to forget (paths under .GCC/events/); none: those already deleted from the work tree.',
    },
  },
  cli: [{ field: 'segments', as: 'rest' }],
  fronts: ['cli'],
  example: 'forget .GCC/events/2026-12/20261201T123432Z-ee39d9.md',
  answer: 'result',
  library: (a) => `await forgetSegments(dir, ${JSON.stringify(a.segments ?? [])})`,
  readOnly: false,
  needs: 'none',
  run: async (a, ctx) => {
    const { forgetSegments } = await import('../engine/forget.js');
    const r = await forgetSegments(ctx.dir, a.segments ?? [], () => new Date());
    if (r.files.length === 0)
      return {
        text:
          'Nothing to forget: no segment was named, and none was deleted from the work tree. ' +
          'Name one: `gctx forget .GCC/events/<month>/<segment>.md`',
        data: { ok: true, ...r },
      };
    const git = r.inGit.length
      ? ` Git still holds ${r.inGit.join(', ')}: commit the removal ` +
        `(\`git rm --cached ${r.inGit.join(' ')}\`, then \`git commit\`) so that teammates' clones drop it too.`
      : '';
    return {
      text: `Forgot ${r.files.join(', ')} (${count(r.events, 'event')}); the loss is recorded.${git}`,
      data: { ok: true, ...r },
    };
  },
});
