// Makes <count> commits (and, with "mixed", an OTA entry before each) on a shared memory,
// printing each acknowledged commit's event id. Usage: committer.mjs <dir> <tag> <count> [mixed]
import { Memory } from '../../../dist/index.js';

const [dir, tag, countText, mode] = process.argv.slice(2);
const m = await Memory.open(dir, { lockTimeoutMs: 300_000 });
const lines = [];
for (let i = 1; i <= Number(countText); i++) {
  if (mode === 'mixed') await m.execute({ type: 'log', observation: `${tag}/${i} observed`, thought: 't', action: 'a' });
  const r = await m.execute({ type: 'commit', contribution: `${tag}/${i}` });
  lines.push(`ack ${r.events[0].id} ${tag}/${i}`);
}
m.close();
process.stdout.write(`${lines.join('\n')}\n`);
