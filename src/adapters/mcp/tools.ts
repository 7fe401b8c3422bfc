/**
 * The MCP tools: one entry per memory operation, each with an exact input schema, an output
 * schema and a handler that turns the engine's answer into compact text plus structured data.
 * Descriptions are short on purpose: they ride in every request the host makes.
 */
// Not `{ z }`: a namespace import lets the bundle leave out unused zod (scripts/bundle.mjs).
import * as z from 'zod';
import type { ContextQuery } from '../../context/query.js';
import type { Command } from '../../decider/commands.js';
import type { ExecResult, Memory } from '../../engine/memory.js';
import { gccError } from '../../errors.js';
import { asProjectData } from '../../observer/framing.js';
import { readOutput, writeOutput, type ReadOutput, type WriteOutput } from './schemas.js';

export interface ToolRun {
  memory: Memory;
  session: string;
  /** Token budget when the call names none. */
  budget: number | undefined;
}

export interface ToolAnswer {
  text: string;
  structured: WriteOutput | ReadOutput;
}

export interface ToolSpec {
  name: string;
  title: string;
  description: string;
  input: z.ZodObject<Record<string, z.ZodType>>;
  output: typeof writeOutput | typeof readOutput;
  readOnly: boolean;
  run(args: Record<string, unknown>, ctx: ToolRun): Promise<ToolAnswer> | ToolAnswer;
}

const text = (d: string) => z.string().describe(d);
const nonEmpty = (d: string) => z.string().min(1).describe(d);
const count = (d: string) => z.number().int().min(1).describe(d);
const list = (d: string) => z.array(z.string()).describe(d);
const session = z.string().min(1).optional().describe("Memory session (default: this server's session; see docs/agents.md).");
const budget = count('Token budget of the answer (default about 2000).').optional();

type Args = Record<string, unknown>;
const str = (a: Args, k: string): string | undefined => (typeof a[k] === 'string' && a[k] !== '' ? (a[k] as string) : undefined);
const num = (a: Args, k: string): number | undefined => (typeof a[k] === 'number' ? (a[k] as number) : undefined);
const strs = (a: Args, k: string): string[] | undefined => (Array.isArray(a[k]) && (a[k] as unknown[]).length ? (a[k] as string[]) : undefined);
const some = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

async function write(ctx: ToolRun, cmd: Command): Promise<ToolAnswer> {
  const r: ExecResult = await ctx.memory.execute(cmd, { session: ctx.session });
  return {
    text: `${r.message}\n(memory branch: ${r.branch})`,
    structured: { ok: true, message: r.message, branch: r.branch, events: r.events.map((e) => ({ id: e.id, seq: e.seq, type: e.type, branch: e.branch })) },
  };
}

function read(ctx: ToolRun, q: ContextQuery, args: Args): ToolAnswer {
  const b = num(args, 'budget') ?? ctx.budget;
  const a = ctx.memory.context(q, some({ session: ctx.session, budget: b }));
  const more = a.truncated ? `\n\n(cut to about ${b ?? 2000} tokens: ask for the next page, a narrower level or a larger budget)` : '';
  // Memory is text other people and agents wrote: hand it over framed as data, not instructions.
  return { text: asProjectData(a.text + more), structured: { ok: true, level: q.level, text: a.text, truncated: a.truncated, tokens: a.tokens, data: a.data ?? null } };
}

function contextQuery(a: Args): ContextQuery {
  const level = str(a, 'level') ?? 'status';
  switch (level) {
    case 'status':
    case 'full':
      return { level };
    case 'branch':
      return some({ level, name: str(a, 'name'), page: num(a, 'page'), k: num(a, 'k') });
    case 'commit': {
      const id = str(a, 'id');
      if (!id) throw gccError('E_INVALID_ARGUMENT', 'level "commit" needs id', '{"level":"commit","id":"C003"} (a label, or a hash from level "branch")');
      return { level, id };
    }
    case 'log':
      return some({ level, n: num(a, 'n'), page: num(a, 'page'), branch: str(a, 'name') });
    case 'metadata':
      return some({ level, segment: str(a, 'segment') });
    case 'search': {
      const t = str(a, 'text');
      if (!t) throw gccError('E_INVALID_ARGUMENT', 'level "search" needs text', '{"level":"search","text":"retry"}');
      return some({ level, text: t, limit: num(a, 'limit') });
    }
    default:
      throw gccError('E_INVALID_ARGUMENT', `unknown level ${JSON.stringify(level)}`, 'use status, branch, commit, log, metadata, full or search');
  }
}

export const TOOLS: ToolSpec[] = [
  {
    name: 'commit',
    title: 'Memory: commit',
    description:
      'Record a milestone on the current memory branch: what this step achieved and why. Branch purpose, previous progress and files touched are filled in automatically.',
    input: z.object({
      contribution: nonEmpty('What this step changed and why, in one to three sentences.'),
      title: text('Short title (optional; derived from the contribution otherwise).').optional(),
      check: list('Roadmap objectives this step completes (number or text), to tick them.').optional(),
      session,
    }),
    output: writeOutput,
    readOnly: false,
    run: (a, ctx) => write(ctx, some({ type: 'commit', contribution: a.contribution as string, title: str(a, 'title'), check: strs(a, 'check') })),
  },
  {
    name: 'branch',
    title: 'Memory: branch',
    description: 'Start an isolated line of work (an experiment or alternative) from the current memory branch and switch to it.',
    input: z.object({
      name: nonEmpty('Branch name, e.g. "try-sqlite" or "feat/parser".'),
      purpose: nonEmpty('What this branch explores.'),
      hypotheses: list('Hypotheses to test (optional).').optional(),
      session,
    }),
    output: writeOutput,
    readOnly: false,
    run: (a, ctx) => write(ctx, some({ type: 'branch', name: a.name as string, purpose: a.purpose as string, hypotheses: strs(a, 'hypotheses') })),
  },
  {
    name: 'switch',
    title: 'Memory: switch',
    description: 'Make another open memory branch the current one for this session.',
    input: z.object({ name: nonEmpty('Branch to switch to.'), session }),
    output: writeOutput,
    readOnly: false,
    run: (a, ctx) => write(ctx, { type: 'switch', name: a.name as string }),
  },
  {
    name: 'merge',
    title: 'Memory: merge',
    description:
      'Fold a finished branch back (into its parent, or `into`) with a synthesis commit: what was tried, learned and integrated. The answer shows the branch as it stood first.',
    input: z.object({
      branch: nonEmpty('Branch to merge.'),
      synthesis: nonEmpty('What was tried and what is integrated into the target.'),
      learned: text('What was learned (optional).').optional(),
      into: text('Target branch (default: the parent).').optional(),
      session,
    }),
    output: writeOutput,
    readOnly: false,
    run: async (a, ctx) => {
      const branch = a.branch as string;
      // The paper's MERGE surfaces the source's context first; the engine records the merge.
      const before = ctx.memory.context({ level: 'branch', name: branch, k: 5 }, { session: ctx.session, budget: 600 });
      const out = await write(ctx, some({ type: 'merge', branch, synthesis: a.synthesis as string, learned: str(a, 'learned'), into: str(a, 'into') }));
      return { text: `${asProjectData(before.text)}\n\n${out.text}`, structured: { ...(out.structured as WriteOutput), merged: before.text } };
    },
  },
  {
    name: 'abandon',
    title: 'Memory: abandon',
    description: 'Close a branch that did not work out, recording why; sessions on it move back to its parent.',
    input: z.object({ branch: nonEmpty('Branch to abandon.'), reason: nonEmpty('Why (what was learned).'), session }),
    output: writeOutput,
    readOnly: false,
    run: (a, ctx) => write(ctx, { type: 'abandon', branch: a.branch as string, reason: a.reason as string }),
  },
  {
    name: 'roadmap',
    title: 'Memory: roadmap',
    description: 'Edit the roadmap objectives in main.md: add one, or check, uncheck or remove one by number or text.',
    input: z.object({
      action: z.enum(['add', 'check', 'uncheck', 'remove']).describe('What to do.'),
      target: nonEmpty('Objective text (add), or its number or text (others).'),
      session,
    }),
    output: writeOutput,
    readOnly: false,
    run: (a, ctx) => write(ctx, { type: 'roadmap', action: a.action as 'add' | 'check' | 'uncheck' | 'remove', target: a.target as string }),
  },
  {
    name: 'log',
    title: 'Memory: log',
    description: 'Append one Observation–Thought–Action entry to the current branch (tool calls are logged automatically by hooks, where the host has them).',
    input: z.object({
      observation: text('What was observed.').optional(),
      thought: text('What it means / what to do.').optional(),
      action: text('What was done.').optional(),
      session,
    }),
    output: writeOutput,
    readOnly: false,
    run: (a, ctx) => write(ctx, { type: 'log', observation: str(a, 'observation') ?? '', thought: str(a, 'thought') ?? '', action: str(a, 'action') ?? '' }),
  },
  {
    name: 'context',
    title: 'Memory: context',
    description:
      'Recall project memory inside a token budget. level: status (overview, default), branch (purpose + recent commits; name, page, k), commit (id: hash or C003), log (entries; n, page, name), metadata (segment), full (roadmap), search (text).',
    input: z.object({
      level: z.enum(['status', 'branch', 'commit', 'log', 'metadata', 'full', 'search']).optional().describe('Granularity (default status).'),
      name: text('branch/log: branch name (default: current).').optional(),
      id: text('commit: a hash prefix, or a label such as C003 or feat/x@C003.').optional(),
      n: count('log: entries per page.').optional(),
      page: count('branch/log: page, 1 = most recent.').optional(),
      k: count('branch: commits per page.').optional(),
      segment: text('metadata: one segment, such as branches or config.').optional(),
      text: text('search: text to find.').optional(),
      limit: count('search: maximum hits.').optional(),
      budget,
      session,
    }),
    output: readOutput,
    readOnly: true,
    run: (a, ctx) => read(ctx, contextQuery(a), a),
  },
  {
    name: 'search',
    title: 'Memory: search',
    description: 'Full-text search over commits, branch purposes, objectives and logged steps, newest first.',
    input: z.object({ text: nonEmpty('Text to find.'), limit: count('Maximum hits (default 20).').optional(), budget, session }),
    output: readOutput,
    readOnly: true,
    run: (a, ctx) => read(ctx, some({ level: 'search' as const, text: a.text as string, limit: num(a, 'limit') }), a),
  },
];
