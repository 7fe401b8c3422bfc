/** What the store's tests share: a fresh store, an append as the engine makes one, an event. */
import { execFileSync } from 'node:child_process';
import type { GccEvent, Placed } from '../../src/events/types.js';
import { layout } from '../../src/store/paths.js';
import { Store } from '../../src/store/store.js';
import { tempProject } from '../support/tmp.js';

export const ota = (text: string, branch = 'main'): Placed => ({
  type: 'ota.logged',
  data: { observation: text, thought: '', action: '' },
  branch,
});
export const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

export async function fresh(dir = tempProject()): Promise<Store> {
  const s = new Store(layout(dir));
  s.check(Date.now());
  return s;
}

/** Append under the lock after catching up, as the engine does. */
export async function append(s: Store, events: Placed[], where: 'shared' | 'local' = 'shared'): Promise<GccEvent[]> {
  return s.withLock(() => {
    let last = '';
    for (const f of s.logs.values()) if (f.meta.lastId > last) last = f.meta.lastId;
    s.catchUp(last);
    return s.append(events, where, last, new Date());
  });
}
