/**
 * Session briefing size against history size: memories of 1 to 10,000 commits (with
 * objectives and open branches, so every section of the briefing has content). Tokens are
 * the engine's own estimate (4 characters a token), plus a BPE count when the optional
 * `gpt-tokenizer` package is installed.
 */
import { MAIN } from '../dist/events/types.js';
import { estimateTokens, Memory } from '../dist/index.js';
import { buildHistory, removeDir, tempDir } from './lib.js';

export const title = 'Session briefing size vs history size';

async function bpe() {
  try {
    const mod = await import('gpt-tokenizer');
    return (text) => mod.encode(text).length;
  } catch {
    return null;
  }
}

export async function run({ quick = false } = {}) {
  const sizes = quick ? [1, 10, 100, 1_000] : [1, 10, 100, 1_000, 10_000];
  const count = await bpe();
  const rows = [];
  const json = [];
  for (const commits of sizes) {
    const dir = tempDir('gcc-bench-brief-');
    await buildHistory(dir, { events: commits, commitsOnly: true, objectives: 12 });
    const m = await Memory.open(dir);
    // Open branches with long purposes, and work logged since the last commit.
    for (let i = 0; i < 7; i++) {
      await m.execute({
        type: 'branch',
        name: `try-${i}`,
        purpose: `Try approach ${i}: ${'a long purpose that goes on and on '.repeat(8)}`,
      });
      await m.execute({ type: 'switch', name: MAIN });
    }
    await m.execute({
      type: 'record-tool',
      tool: 'edit',
      input: '{}',
      result: 'ok',
      isError: false,
      files: [{ path: 'src/a.ts', added: 1, removed: 0 }],
    });
    const text = m.briefing();
    const n = m.state.branches[MAIN].commits;
    m.close();
    removeDir(dir);
    const row = {
      commits: n,
      chars: text.length,
      tokens: estimateTokens(text),
      ...(count ? { bpeTokens: count(text) } : {}),
    };
    json.push(row);
    rows.push([
      n.toLocaleString('en-US'),
      row.chars.toLocaleString('en-US'),
      String(row.tokens),
      count ? String(row.bpeTokens) : 'n/a',
    ]);
  }
  const toks = json.map((r) => r.tokens);
  const max = Math.max(...toks);
  const flat = max - Math.min(...toks);
  return {
    title,
    columns: ['commits on main', 'briefing chars', 'tokens (chars/4)', 'tokens (o200k BPE)'],
    rows,
    summary: `Briefing: ${Math.min(...toks)}–${max} tokens from ${sizes[0]} to ${sizes[sizes.length - 1].toLocaleString('en-US')} commits (spread ${flat}); target flat and < 1,000`,
    pass: max < 1000,
    json: {
      sizes: json,
      maxTokens: max,
      spread: flat,
      tokenizer: count ? 'gpt-tokenizer (o200k_base)' : 'chars/4 only',
    },
  };
}
