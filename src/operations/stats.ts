import { readTokenLedger, statsText } from '../observer/token-ledger.js';
import { operation } from './operation.js';

export default operation({
  name: 'stats',
  summary: 'tokens memory handed to models, per session and per kind (briefing, hook guidance, tool answers)',
  args: {},
  cli: [],
  fronts: ['cli'],
  example: 'stats',
  answer: 'report',
  library: () => 'readTokenLedger(gccDir)',
  readOnly: true,
  needs: 'memory',
  run: (_a, ctx) => {
    const ledger = readTokenLedger(ctx.memory.gccDir);
    return { text: statsText(ledger), data: { sessions: ledger.sessions } };
  },
});
