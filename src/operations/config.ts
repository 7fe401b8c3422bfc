import { gccError } from '../errors.js';
import { operation } from './operation.js';
import { execute, write } from './answers.js';

export default operation({
  name: 'config',
  summary: 'read or change configuration (proactive_commits, commit_after_edits, commit_after_turns)',
  args: {
    verb: { kind: 'enum', required: true, values: ['get', 'set'], help: 'get or set.' },
    key: { kind: 'string', help: 'The setting.' },
    value: { kind: 'string', help: 'set: the new value.' },
  },
  cli: [
    { field: 'verb', as: 'positional' },
    { field: 'key', as: 'positional' },
    { field: 'value', as: 'positional' },
  ],
  fronts: ['cli', 'slash'],
  example: 'config set commit_after_edits 10',
  answer: 'result',
  library: (a) => execute({ type: 'config', key: a.key, value: a.value }),
  readOnly: false,
  needs: 'memory',
  run: (a, ctx) => {
    const cfg = ctx.memory.config as unknown as Record<string, unknown>;
    if (a.verb === 'get') {
      if (a.key && !Object.hasOwn(cfg, a.key))
        throw gccError(
          'E_CONFIG_KEY',
          `unknown config key ${JSON.stringify(a.key)}`,
          `use one of: ${Object.keys(cfg).join(', ')}`,
        );
      const shown = a.key ? { [a.key]: cfg[a.key] } : { ...cfg };
      return {
        text: Object.entries(shown)
          .map(([k, v]) => `${k}: ${String(v)}`)
          .join('\n'),
        data: shown,
      };
    }
    if (!a.key || a.value === undefined)
      throw gccError('E_INVALID_ARGUMENT', 'set needs a key and a value', 'gctx config set commit_after_edits 10');
    return write(ctx, { type: 'config', key: a.key, value: a.value });
  },
});
