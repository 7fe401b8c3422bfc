import { operation } from './operation.js';
import { read } from './answers.js';

export default operation({
  name: 'search',
  summary: 'ranked full-text search over commits, purposes, syntheses, reasons and log entries',
  args: {
    text: { kind: 'string', required: true, min: 1, help: 'Words to find (all of them ranks first).' },
    limit: { kind: 'number', help: 'Hits per page (default 10).' },
    page: { kind: 'number', help: 'Page; 2 and on rank lower.' },
  },
  cli: [
    { field: 'text', as: 'rest' },
    { field: 'limit', as: 'flag' },
    { field: 'page', as: 'flag' },
  ],
  fronts: ['cli', 'slash'],
  example: 'search "retry logic" --limit 5',
  answer: 'memory',
  library: (a) => `memory.context(${JSON.stringify({ level: 'search', ...a })})`,
  readOnly: true,
  needs: 'memory',
  run: (a, ctx) =>
    read(ctx, {
      level: 'search',
      text: a.text,
      ...(a.limit ? { limit: a.limit } : {}),
      ...(a.page ? { page: a.page } : {}),
    }),
});
