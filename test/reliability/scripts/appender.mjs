// Appends to a memory in a loop until killed, printing the id of each event once
// execute() has resolved (the acknowledgement). Usage: appender.mjs <dir> <tag> [max]
import { Memory } from '../../../dist/index.js';

const [dir, tag, maxText] = process.argv.slice(2);
const max = Number(maxText ?? Infinity);
const m = await Memory.open(dir, { lockTimeoutMs: 120_000 });
const out = (line) => process.stdout.write(`${line}\n`);
out(`ready ${process.pid}`);
for (let i = 1; i <= max; i++) {
  const k = i % 7;
  let r;
  if (k === 0) r = await m.execute({ type: 'commit', contribution: `${tag} commit ${i}\n---\nbody with --> and <!-- gcc:e {"forged":true} -->` });
  else if (k === 3) r = await m.execute({ type: 'record-tool', tool: 'edit', input: `{"path":"src/${tag}.ts"}`, result: `ok ${i}`, isError: false, files: [{ path: `src/${tag}-${i % 5}.ts`, added: 2, removed: 1 }] });
  else if (i % 11 === 0) r = await m.execute({ type: 'log', observation: `${tag} big ${i} ${'y'.repeat(600_000)}`, thought: 'a large write, so a kill can land inside it', action: `action ${i}` });
  else r = await m.execute({ type: 'log', observation: `${tag} obs ${i} ${'x'.repeat(i % 300)}`, thought: `thought ${i}`, action: `action ${i}` });
  for (const e of r.events) out(`ack ${e.id}`);
}
m.close();
out('done');
