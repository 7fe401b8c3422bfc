/** How operations turn the engine's results into answers: one way for every front end. */
import type { ContextQuery } from '../context/query.js';
import type { Command } from '../decider/commands.js';
import { countInjection } from '../observer/token-ledger.js';
import type { Answer, RunContext } from './operation.js';

/** What a model reads (an MCP or Pi tool's answer) is counted in the token ledger; a person's CLI output is not. */
function counted(ctx: RunContext, text: string): string {
  if (ctx.front === 'mcp' || ctx.front === 'pi') countInjection(ctx.memory.gccDir, ctx.session ?? 'default', ctx.front, 'tool-answer', text);
  return text;
}

export async function write(ctx: RunContext, cmd: Command): Promise<Answer> {
  const r = await ctx.memory.execute(cmd, { session: ctx.session });
  return { text: counted(ctx, r.message), data: { ok: true, branch: r.branch, message: r.message, events: r.events.map((e) => ({ id: e.id, type: e.type, branch: e.branch })) } };
}

export async function read(ctx: RunContext, q: ContextQuery, budget?: number): Promise<Answer> {
  if (q.level === 'search') await ctx.memory.loadSearch();
  const a = ctx.memory.context(q, { session: ctx.session, budget: budget ?? ctx.budget, spell: ctx.spell });
  return { text: counted(ctx, a.text), data: { ok: true, level: q.level, truncated: a.truncated, tokens: a.tokens, next: a.next, data: a.data } };
}

/** Words of free text: several positionals joined, as a shell splits them. */
export const words = (v: unknown): string => (Array.isArray(v) ? v.join(' ') : String(v ?? ''));
