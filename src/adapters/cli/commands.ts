/**
 * The gctx command table: each entry names its usage, options and what it does with an
 * open memory. Handlers return text for people and data for `--json`.
 */
import type { Command } from '../../decider/commands.js';
import type { ContextQuery } from '../../context/query.js';
import { gccError } from '../../errors.js';
import type { Memory } from '../../engine/memory.js';
import { type Arity, has, intFlag, one, type Parsed, required } from './args.js';
import { installGit } from '../git/install.js';
import { describeInstall } from './git-commands.js';

export interface Output {
  text: string;
  json: unknown;
  /** Exit code when not 0 (verify failures). */
  exit?: number;
}

export interface CliContext {
  memory: Memory;
  session: string | undefined;
  budget: number | undefined;
}

/** What a command that opens no memory gets: where it runs and who asks. */
export interface BareContext {
  dir: string;
  session: string | undefined;
  budget: number | undefined;
}

interface SpecBase {
  usage: string;
  summary: string;
  flags: Record<string, Arity>;
}

/** 'create' opens or creates the memory; 'none' runs without one (and opens what it needs itself). */
export type CommandSpec =
  | (SpecBase & { memory: 'open' | 'create'; run(p: Parsed, ctx: CliContext): Promise<Output> | Output })
  | (SpecBase & { memory: 'none'; run(p: Parsed, ctx: BareContext): Promise<Output> | Output });

async function exec(ctx: CliContext, cmd: Command): Promise<Output> {
  const r = await ctx.memory.execute(cmd, { session: ctx.session });
  return { text: r.message, json: { ok: true, message: r.message, branch: r.branch, events: r.events.map((e) => ({ id: e.id, seq: e.seq, type: e.type, branch: e.branch })) } };
}

function rest(p: Parsed, usage: string, what: string): string {
  const text = p.positionals.join(' ');
  if (!text.trim()) throw gccError('E_INVALID_ARGUMENT', `${what} is required`, usage);
  return text;
}

function context(ctx: CliContext, q: ContextQuery): Output {
  const a = ctx.memory.context(q, { ...(ctx.session ? { session: ctx.session } : {}), ...(ctx.budget ? { budget: ctx.budget } : {}) });
  return { text: a.text, json: { level: q.level, truncated: a.truncated, tokens: a.tokens, text: a.text, data: a.data } };
}

export const COMMANDS: Record<string, CommandSpec> = {
  init: {
    usage: 'gctx init [--git]',
    summary: 'create .GCC/ in this folder (with --git: set it up to be committed and merged)',
    flags: { git: 'flag' },
    memory: 'create',
    run: (p, ctx) => {
      const ready = `Memory ready in ${ctx.memory.gccDir}`;
      if (!has(p, 'git')) return { text: ready, json: { ok: true, dir: ctx.memory.gccDir } };
      const git = installGit(ctx.memory.root);
      return { text: `${ready}\n${describeInstall(git)}`, json: { ok: true, dir: ctx.memory.gccDir, git } };
    },
  },
  status: {
    usage: 'gctx status',
    summary: 'objectives, current branch and every branch with its last commit',
    flags: {},
    memory: 'open',
    run: (_p, ctx) => context(ctx, { level: 'status' }),
  },
  roadmap: {
    usage: 'gctx roadmap add|check|uncheck|remove <text-or-number>',
    summary: 'edit the objectives in main.md',
    flags: {},
    memory: 'open',
    run: (p, ctx) => {
      const usage = COMMANDS.roadmap!.usage;
      const [action, ...words] = p.positionals;
      if (action !== 'add' && action !== 'check' && action !== 'uncheck' && action !== 'remove') {
        throw gccError('E_INVALID_ARGUMENT', `unknown roadmap action ${JSON.stringify(action ?? '')}`, usage);
      }
      const target = words.join(' ');
      if (!target.trim()) throw gccError('E_INVALID_ARGUMENT', 'an objective text or number is required', usage);
      return exec(ctx, { type: 'roadmap', action, target });
    },
  },
  branch: {
    usage: 'gctx branch <name> --purpose <text> [--hypothesis <text>]...',
    summary: 'start an experiment branch from the current one and switch to it',
    flags: { purpose: 'one', hypothesis: 'many' },
    memory: 'open',
    run: (p, ctx) => {
      const usage = COMMANDS.branch!.usage;
      if (p.positionals.length !== 1) throw gccError('E_INVALID_ARGUMENT', 'give exactly one branch name', usage);
      return exec(ctx, { type: 'branch', name: p.positionals[0]!, purpose: required(p, 'purpose', usage), hypotheses: p.flags.get('hypothesis') ?? [] });
    },
  },
  switch: {
    usage: 'gctx switch <name>',
    summary: 'make another active branch the current one',
    flags: {},
    memory: 'open',
    run: (p, ctx) => exec(ctx, { type: 'switch', name: rest(p, COMMANDS.switch!.usage, 'a branch name') }),
  },
  abandon: {
    usage: 'gctx abandon <name> --reason <text>',
    summary: 'close an experiment that did not pan out, recording why',
    flags: { reason: 'one' },
    memory: 'open',
    run: (p, ctx) => exec(ctx, { type: 'abandon', branch: rest(p, COMMANDS.abandon!.usage, 'a branch name'), reason: required(p, 'reason', COMMANDS.abandon!.usage) }),
  },
  log: {
    usage: 'gctx log --observation <t> --thought <t> --action <t>',
    summary: 'append one Observation–Thought–Action entry to the current branch',
    flags: { observation: 'one', thought: 'one', action: 'one' },
    memory: 'open',
    run: (p, ctx) => exec(ctx, { type: 'log', observation: one(p, 'observation') ?? '', thought: one(p, 'thought') ?? '', action: one(p, 'action') ?? '' }),
  },
  commit: {
    usage: 'gctx commit <contribution> [--title <t>] [--check <objective>]...',
    summary: 'record a milestone on the current branch',
    flags: { title: 'one', check: 'many' },
    memory: 'open',
    run: (p, ctx) => {
      const cmd: Command = { type: 'commit', contribution: rest(p, COMMANDS.commit!.usage, 'the contribution') };
      const title = one(p, 'title');
      if (title !== undefined) cmd.title = title;
      const check = p.flags.get('check');
      if (check) cmd.check = check;
      return exec(ctx, cmd);
    },
  },
  merge: {
    usage: 'gctx merge <branch> [--into <target>] --synthesis <text> [--learned <text>]',
    summary: 'fold an experiment back with a synthesis commit; shows the branch first',
    flags: { into: 'one', synthesis: 'one', learned: 'one' },
    memory: 'open',
    run: async (p, ctx) => {
      const usage = COMMANDS.merge!.usage;
      const branch = rest(p, usage, 'the branch to merge');
      const before = ctx.memory.context({ level: 'branch', name: branch, k: 5 }, { budget: 600 });
      const cmd: Command = { type: 'merge', branch, synthesis: required(p, 'synthesis', usage) };
      const into = one(p, 'into');
      if (into) cmd.into = into;
      const learned = one(p, 'learned');
      if (learned) cmd.learned = learned;
      const out = await exec(ctx, cmd);
      return { text: `${before.text}\n\n${out.text}`, json: { ...(out.json as object), merged: before.data } };
    },
  },
  context: {
    usage: 'gctx context [--branch [name]] [--commit <id>] [--log [n]] [--metadata [segment]] [--full] [--page <n>] [--k <n>] [--budget <tokens>]',
    summary: 'recall memory at a chosen granularity, inside a token budget',
    flags: { branch: 'optional', commit: 'one', log: 'optional', metadata: 'optional', full: 'flag', page: 'one', k: 'one' },
    memory: 'open',
    run: (p, ctx) => {
      const usage = COMMANDS.context!.usage;
      const chosen = ['branch', 'commit', 'log', 'metadata', 'full'].filter((f) => has(p, f));
      if (chosen.length > 1) throw gccError('E_INVALID_ARGUMENT', `choose one of --${chosen.join(', --')}`, usage);
      const page = intFlag(p, 'page', usage);
      if (has(p, 'branch')) {
        const name = one(p, 'branch');
        const k = intFlag(p, 'k', usage);
        return context(ctx, { level: 'branch', ...(name ? { name } : {}), ...(page ? { page } : {}), ...(k ? { k } : {}) });
      }
      if (has(p, 'commit')) return context(ctx, { level: 'commit', id: required(p, 'commit', usage) });
      if (has(p, 'log')) {
        const n = intFlag(p, 'log', usage);
        return context(ctx, { level: 'log', ...(n ? { n } : {}), ...(page ? { page } : {}) });
      }
      if (has(p, 'metadata')) {
        const segment = one(p, 'metadata');
        return context(ctx, { level: 'metadata', ...(segment ? { segment } : {}) });
      }
      if (has(p, 'full')) return context(ctx, { level: 'full' });
      return context(ctx, { level: 'status' });
    },
  },
  search: {
    usage: 'gctx search <text>',
    summary: 'full-text search over commits and log entries, newest first',
    flags: {},
    memory: 'open',
    run: (p, ctx) => context(ctx, { level: 'search', text: rest(p, COMMANDS.search!.usage, 'search text') }),
  },
  config: {
    usage: 'gctx config get [key] | gctx config set <key> <value>',
    summary: 'read or change configuration (proactive_commits, commit_after_edits, commit_after_turns)',
    flags: {},
    memory: 'open',
    run: (p, ctx) => {
      const usage = COMMANDS.config!.usage;
      const [verb, key, value] = p.positionals;
      if (verb === 'get') {
        const cfg = ctx.memory.config as unknown as Record<string, unknown>;
        if (key && !(key in cfg)) throw gccError('E_CONFIG_KEY', `unknown config key ${JSON.stringify(key)}`, `use one of: ${Object.keys(cfg).join(', ')}`);
        const shown = key ? { [key]: cfg[key] } : cfg;
        return { text: Object.entries(shown).map(([k, v]) => `${k}: ${String(v)}`).join('\n'), json: shown };
      }
      if (verb === 'set' && key && value !== undefined) return exec(ctx, { type: 'config', key, value });
      throw gccError('E_INVALID_ARGUMENT', 'say get or set', usage);
    },
  },
  replay: {
    usage: 'gctx replay',
    summary: 'rebuild every projection from the logs (differing files are kept aside first)',
    flags: {},
    memory: 'open',
    run: async (_p, ctx) => {
      const r = await ctx.memory.replay();
      const text = r.written.length ? `Rewrote ${r.written.length} file(s): ${r.written.join(', ')}${r.kept.length ? `\nKept the previous versions in ${r.kept.join(', ')}` : ''}` : 'Every projection already equals its replay.';
      return { text, json: r };
    },
  },
  verify: {
    usage: 'gctx verify',
    summary: 'check every log entry and that every projection equals its replay',
    flags: {},
    memory: 'open',
    run: (_p, ctx) => {
      const problems = ctx.memory.verify();
      if (!problems.length) return { text: `OK: ${ctx.memory.state.events} events verified; projections equal their replay.`, json: { ok: true, problems } };
      return { text: problems.map((x) => `${x.file}${x.line ? `:${x.line}` : ''}: ${x.message}`).join('\n'), json: { ok: false, problems }, exit: 2 };
    },
  },
};
