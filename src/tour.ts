/**
 * `npm start`: a short scripted tour in a temporary folder. It drives the real engine the
 * way an agent would over a working session and prints what a person would look at.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Memory } from './engine/memory.js';

function show(title: string, body: string): void {
  process.stdout.write(`\n\u001b[1m== ${title} ==\u001b[0m\n${body.trimEnd()}\n`);
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'gcc-tour-'));
  try {
    const m = await Memory.open(dir, { create: true });
    const say = async (cmd: Parameters<Memory['execute']>[0]) => process.stdout.write(`• ${(await m.execute(cmd)).message}\n`);
    show('init', `memory created in ${m.gccDir}`);
    await say({ type: 'roadmap', action: 'add', target: 'Parse config files' });
    await say({ type: 'roadmap', action: 'add', target: 'Cache parsed results' });
    await say({ type: 'roadmap', action: 'add', target: 'Document the config format' });
    await say({ type: 'log', observation: 'Config files are TOML, up to 2 MB', thought: 'A streaming parser avoids loading the whole file', action: 'Sketch the tokenizer' });
    await say({ type: 'record-tool', tool: 'Edit', input: 'src/tokenizer.ts', result: 'ok', isError: false, files: [{ path: 'src/tokenizer.ts', added: 120, removed: 0 }] });
    await say({ type: 'commit', contribution: 'Streaming TOML tokenizer with tests for tables and arrays', title: 'Tokenizer', check: ['1'] });
    await say({ type: 'branch', name: 'try-lru', purpose: 'See whether an LRU cache beats re-parsing', hypotheses: ['most files are re-read within a minute'] });
    await say({ type: 'record-tool', tool: 'Write', input: 'src/cache.ts', result: 'ok', isError: false, files: [{ path: 'src/cache.ts', added: 64, removed: 0 }] });
    await say({ type: 'commit', contribution: 'LRU cache keyed by path+mtime; hit rate 92% on the fixture corpus' });
    await say({ type: 'merge', branch: 'try-lru', synthesis: 'LRU cache kept: 92% hit rate, 11x faster warm loads; invalidation by mtime is enough' });
    await say({ type: 'branch', name: 'try-mmap', purpose: 'Memory-map large files' });
    await say({ type: 'abandon', branch: 'try-mmap', reason: 'No gain below 10 MB; our files are at most 2 MB' });
    await say({ type: 'roadmap', action: 'check', target: 'Cache' });
    show('gctx status', m.context({ level: 'status' }).text);
    show('gctx context --branch try-lru', m.context({ level: 'branch', name: 'try-lru' }, { budget: 500 }).text);
    show('gctx context --log 3', m.context({ level: 'log', n: 3 }).text);
    show('session briefing (what an agent sees at start)', m.briefing());
    show('.GCC/main.md', readFileSync(join(m.gccDir, 'main.md'), 'utf8'));
    const problems = m.verify();
    show('gctx verify', problems.length ? problems.map((p) => `${p.file}: ${p.message}`).join('\n') : `OK: ${m.state.events} events; every projection equals its replay`);
    m.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`tour failed: ${String(err)}\n`);
  process.exitCode = 1;
});
