/**
 * `npm start`: a short scripted tour in a temporary folder. It runs the command line's own
 * calls against the real engine, the way an agent would over a working session, and prints
 * each under the command that gives it; what a hook records is said as such.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs, splitWords } from './adapters/cli/args.js';
import { CLI } from './adapters/cli/main.js';
import { writeOut } from './adapters/cli/write-out.js';
import { Memory } from './engine/memory.js';
import { operationNamed } from './operations/index.js';
import { check, perform } from './operations/runner.js';

/** A heading: bold at a terminal, plain in a pipe or a file. */
const heading = (title: string): string => (process.stdout.isTTY ? `\u001b[1m${title}\u001b[0m` : title);

const CALLS = [
  'roadmap add "Parse config files"',
  'roadmap add "Cache parsed results"',
  'log --observation "Config files are TOML, up to 2 MB" --thought "A streaming parser avoids loading the whole file"',
  '# a hook records an edit of src/tokenizer.ts',
  'commit "Streaming TOML tokenizer with tests for tables and arrays" --title Tokenizer --check 1',
  'branch try-lru --purpose "See whether an LRU cache beats re-parsing" ' +
    '--hypothesis "most files are re-read within a minute"',
  '# a hook records a write of src/cache.ts',
  'commit "LRU cache keyed by path+mtime; hit rate 92% on the fixture corpus"',
  'merge try-lru --synthesis "LRU cache kept: 92% hit rate, 11x faster warm loads"',
  'roadmap check 2',
  'branch try-mmap --purpose "Memory-map large files"',
  'abandon try-mmap --reason "No gain below 10 MB; our files are at most 2 MB"',
  'status',
  'context --log 3',
  'verify',
];

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'gcc-tour-'));
  try {
    const m = await Memory.open(dir, { create: true });
    writeOut(`${heading('$ gctx init')}\nMemory ready in ${m.gccDir}.\n`);
    for (const line of CALLS) {
      if (line.startsWith('# ')) {
        const path = line.endsWith('tokenizer.ts') ? 'src/tokenizer.ts' : 'src/cache.ts';
        await m.execute({
          type: 'record-tool',
          tool: 'Edit',
          input: path,
          result: 'ok',
          isError: false,
          files: [{ path, added: 64, removed: 0 }],
        });
        writeOut(`\n(${line.slice(2)})\n`);
        continue;
      }
      const [name = '', ...words] = splitWords(line);
      const op = operationNamed(name)!;
      const args = await check(op, parseArgs(op, words).args, CLI);
      const a = await perform(op, args, CLI, { dir, session: undefined, budget: undefined, memory: async () => m });
      writeOut(`\n${heading(`$ gctx ${line}`)}\n${a.text.trimEnd()}\n`);
    }
    writeOut(`\n${heading('The briefing an agent sees when a session starts')}\n${m.briefing().trimEnd()}\n`);
    m.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`tour failed: ${String(err)}\n`);
  process.exitCode = 1;
});
