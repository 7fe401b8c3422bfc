/**
 * The resume benchmark's long shape (bench/resume-long.js), trimmed to a few ordinary tool
 * calls, played as Claude Code plays it: each hook event through the command `gctx hook
 * install` registered for it, each memory operation through the MCP SDK client on `gctx mcp`.
 * After the compaction every key fact is in the briefing, within 1,000 tokens with the
 * follow-up CONTEXT call.
 */
import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { estimateTokens } from '../../src/context/budget.js';
import { cleanup, tempProject } from '../support/tmp.js';

afterEach(cleanup);

interface Fact {
  name: string;
}
interface View {
  briefing: string;
  context: string;
  identical: boolean;
}
interface ResumeBench {
  shapeLong(dir: string, seed: number, kind: 'flaky', reads: number): { facts: Fact[]; session: string };
  playLong(dir: string, shape: unknown): Promise<{ view: View; turns: { mcpCalls: number; events: number } }>;
  found(f: Fact, text: string): boolean;
}

// The benchmark is plain JavaScript over the built package (dist/, which `npm test` builds first).
const bench = (await import(new URL('../../bench/resume.js', import.meta.url).href)) as ResumeBench;

describe('a long session with a merged investigation, resumed after a compaction', () => {
  it('keeps every key fact through the installed hooks and the MCP tools, in 1,000 tokens', async () => {
    const dir = tempProject('gcc-resume-long-');
    execFileSync('git', ['init', '-q'], { cwd: dir });
    const shape = bench.shapeLong(dir, 2, 'flaky', 0.1);
    const { view, turns } = await bench.playLong(dir, shape);
    expect(turns.mcpCalls).toBe(4);
    expect(shape.facts.filter((f) => !bench.found(f, view.briefing)).map((f) => f.name)).toEqual([]);
    expect(estimateTokens(view.briefing) + estimateTokens(view.context)).toBeLessThanOrEqual(1_000);
    expect(view.identical).toBe(true);
  }, 180_000);
});
