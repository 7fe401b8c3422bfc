/**
 * log.md is trimmed once every LOG_WINDOW events of its branch, read back from the logs.
 * Whatever mix of writers, the views must equal a rebuild.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Memory } from '../../src/engine/memory.js';
import { cleanup, tempProject } from '../support/tmp.js';

afterAll(cleanup);

describe('two writers of one clone, trimming in turn', () => {
  it('leave log.md equal to a rebuild at every trim', async () => {
    const dir = tempProject();
    const a = await Memory.open(dir, { create: true });
    const b = await Memory.open(dir);
    for (let i = 0; i < 130; i++) {
      const m = i % 3 === 0 ? b : a;
      await m.execute({ type: 'log', observation: `call ${i}`, thought: 't', action: 'a' });
      if (i % 25 === 24) expect(a.verify()).toEqual([]);
    }
    expect(a.verify()).toEqual([]);
    expect(readFileSync(join(dir, '.GCC', 'log.md'), 'utf8')).toMatch(/call 129/);
    a.close();
    b.close();
  });
});
