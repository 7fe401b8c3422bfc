import { operation } from './operation.js';
import { execute, write } from './answers.js';

export default operation({
  name: 'log',
  summary: 'append one Observation–Thought–Action entry to the current branch',
  describe: 'Append one Observation–Thought–Action entry (hooks log tool calls by themselves).',
  args: {
    observation: { kind: 'string', help: 'What was observed.' },
    thought: { kind: 'string', help: 'What it means.' },
    action: { kind: 'string', help: 'What was done.' },
  },
  cli: [
    { field: 'observation', as: 'flag' },
    { field: 'thought', as: 'flag' },
    { field: 'action', as: 'flag' },
  ],
  fronts: ['cli', 'mcp', 'pi', 'slash'],
  example: 'log --observation "Tests time out" --thought "The lock is held"',
  answer: 'result',
  library: (a) => execute({ type: 'log', ...a }),
  readOnly: false,
  needs: 'memory',
  run: (a, ctx) =>
    write(ctx, { type: 'log', observation: a.observation ?? '', thought: a.thought ?? '', action: a.action ?? '' }),
});
