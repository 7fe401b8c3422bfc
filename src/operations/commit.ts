import { operation } from './operation.js';
import { execute, write } from './answers.js';

export default operation({
  name: 'commit',
  summary: 'record a milestone on the current branch: what changed and why (files touched are filled in)',
  describe: 'Record a milestone: what changed and why (files touched are filled in).',
  args: {
    contribution: { kind: 'string', required: true, min: 1, help: 'What changed and why, in one to three sentences.' },
    title: { kind: 'string', help: 'Short title (default: from the contribution).' },
    next: { kind: 'string', help: 'Next step, for whoever resumes.' },
    check: { kind: 'strings', help: 'Objectives this completes (number or text).' },
    files: { kind: 'strings', help: 'Files changed, when no hook or git saw them.' },
  },
  cli: [
    { field: 'contribution', as: 'rest' },
    { field: 'title', as: 'flag' },
    { field: 'next', as: 'flag' },
    { field: 'check', as: 'flag' },
    { field: 'files', as: 'flag', flag: 'files' },
  ],
  fronts: ['cli', 'mcp', 'pi', 'slash'],
  example: 'commit "Parser handles empty files" --next "Wire it in" --check 1',
  answer: 'result',
  library: (a) => execute({ type: 'commit', ...a }),
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
