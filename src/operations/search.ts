import { operation } from './operation.js';
import { read } from './answers.js';

export default operation({
  name: 'search',
  summary: 'ranked full-text search over commits, purposes, syntheses, reasons and log entries',
  args: (z) => z.object({
    text: z.string().min(1).describe('Words to find (all of them ranks first).'),
    limit: z.number().int().min(1).optional().describe('Hits per page (default 10).'),
    page: z.number().int().min(1).optional().describe('Page; 2 and on rank lower.'),
  }),
  cli: [
    { field: 'text', as: 'rest' },
    { field: 'limit', as: 'flag' },
    { field: 'page', as: 'flag' },
  ],
  fronts: ['cli', 'slash'],
  readOnly: true,
  needs: 'memory',
  run: (a, ctx) => read(ctx, { level: 'search', text: a.text, ...(a.limit ? { limit: a.limit } : {}), ...(a.page ? { page: a.page } : {}) }),
});
