import { operation } from './operation.js';
import { write } from './answers.js';

export default operation({
  name: 'commit',
  summary: 'record a milestone on the current branch: what changed and why (files touched are filled in)',
  describe: 'Record a milestone: what changed and why (files touched are filled in).',
  args: (z) => z.object({
    contribution: z.string().min(1).describe('What changed and why, in one to three sentences.'),
    title: z.string().optional().describe('Short title (default: from the contribution).'),
    next: z.string().optional().describe('Next step, for whoever resumes.'),
    check: z.array(z.string()).optional().describe('Objectives this completes (number or text).'),
    files: z.array(z.string()).optional().describe('Files changed, when no hook or git saw them.'),
  }),
  cli: [
    { field: 'contribution', as: 'rest' },
    { field: 'title', as: 'flag' },
    { field: 'next', as: 'flag' },
    { field: 'check', as: 'flag' },
    { field: 'files', as: 'flag', flag: 'files' },
  ],
  fronts: ['cli', 'mcp', 'pi', 'slash'],
  readOnly: false,
  needs: 'memory',
  run: (a, ctx) =>
    write(ctx, {
      type: 'commit',
      contribution: a.contribution,
      ...(a.title ? { title: a.title } : {}),
      ...(a.next ? { next: a.next } : {}),
      ...(a.check?.length ? { check: a.check } : {}),
      ...(a.files?.length ? { files: a.files.map((path) => ({ path, added: 0, removed: 0 })) } : {}),
    }),
});
