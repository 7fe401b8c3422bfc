import { MIN_BUDGET } from '../context/budget.js';
import { CONTEXT_LEVELS } from '../context/levels.js';
import type { ContextQuery } from '../context/query.js';
import { gccError } from '../errors.js';
import { type ArgsOf, operation } from './operation.js';
import { read } from './answers.js';

const args = {
  level: { kind: 'enum', values: CONTEXT_LEVELS },
  name: { kind: 'string', help: 'branch/log/commit: the branch (default: current).' },
  id: { kind: 'string', help: 'commit: hash or label (C003, feat/x@C003).' },
  text: { kind: 'string', help: 'search: words to find.' },
  n: { kind: 'number', help: 'log/search: entries per page.' },
  k: { kind: 'number', help: 'Per page: branch commits (1), full lines (60).' },
  page: { kind: 'number', help: 'Page; 2 and on are older.' },
  segment: { kind: 'string', help: 'metadata: branches, file_tree or config.' },
  budget: { kind: 'number', min: MIN_BUDGET, help: `Token budget (default 2000, min ${MIN_BUDGET}).` },
  at: { kind: 'string', help: 'A git ref: the memory committed in its history, not checked out.' },
} as const;

type Args = ArgsOf<typeof args>;

/** The fields each level reads (budget aside, which every level takes). */
const TAKES: Record<(typeof CONTEXT_LEVELS)[number], readonly (keyof Args)[]> = {
  status: [],
  full: ['page', 'k'],
  branch: ['name', 'page', 'k'],
  commit: ['id', 'name'],
  log: ['n', 'page', 'name'],
  metadata: ['segment'],
  search: ['text', 'n', 'page'],
};

/** How each field is spelled on the command line, for the message that refuses it. */
const SPELLED: Partial<Record<keyof Args, string>> = {
  name: '--on',
  id: '--commit',
  text: '--search',
  n: '--log <n>',
  k: '--k',
  page: '--page',
  segment: '--metadata',
};

/**
 * The CONTEXT query a call asks for; E_INVALID_ARGUMENT when a level lacks what it needs, or is
 * given what it does not read: a field quietly dropped answers another question than the one asked.
 */
export function queryOf(a: Args): ContextQuery {
  const given = (k: keyof Args) => a[k] !== undefined && a[k] !== '';
  if (!a.level && given('id') && given('text')) {
    throw gccError(
      'E_INVALID_ARGUMENT',
      'a commit (id) and a search (text) were both asked for',
      'ask for one: {"level":"commit","id":"C003"} / `gctx context --commit C003`, ' +
        'or {"level":"search","text":"retry"} / `gctx search retry`',
    );
  }
  const level = a.level ?? (a.id ? 'commit' : a.text ? 'search' : 'status');
  const extra = (Object.keys(SPELLED) as (keyof Args)[]).filter((k) => given(k) && !TAKES[level].includes(k));
  if (extra.length) {
    const them = extra.length === 1 ? 'it' : 'them';
    const takes = TAKES[level].length ? `; it reads ${TAKES[level].join(', ')}` : '';
    throw gccError(
      'E_INVALID_ARGUMENT',
      `level ${level} does not read ${extra.map((k) => `${k} (${SPELLED[k]})`).join(', ')}${takes}`,
      `leave ${them} out, or ask for the level that reads ${them}`,
    );
  }
  const some = <T extends object>(o: T): T =>
    Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== '')) as T;
  switch (level) {
    case 'status':
      // Asked with nothing named, CONTEXT adds to the briefing rather than restating it.
      return a.level ? { level } : { level, beyond: true };
    case 'full':
      return some({ level, page: a.page, k: a.k });
    case 'branch':
      return some({ level, name: a.name, page: a.page, k: a.k });
    case 'commit':
      if (!a.id)
        throw gccError(
          'E_INVALID_ARGUMENT',
          'level commit needs id',
          'give a hash or a label: {"level":"commit","id":"C003"} / `gctx context --commit C003`',
        );
      return { level, id: given('name') ? onBranch(a.id, a.name!) : a.id };
    case 'log':
      return some({ level, n: a.n, page: a.page, branch: a.name });
    case 'metadata':
      return some({ level, segment: a.segment });
    case 'search':
      if (!a.text)
        throw gccError(
          'E_INVALID_ARGUMENT',
          'level search needs text',
          '{"level":"search","text":"retry"} / `gctx search retry`',
        );
      return some({ level, text: a.text, limit: a.n, page: a.page });
  }
}

/**
 * A commit label read on a branch (`C002` on g1 is `g1@C002`); a hash, or a label naming another branch, is refused
 * with it.
 */
function onBranch(id: string, branch: string): string {
  const m = /^(?:(.+)[@:])?(C\d+(?:\.[0-9a-f]{4,})?)$/i.exec(id.trim());
  if (!m)
    throw gccError(
      'E_INVALID_ARGUMENT',
      `a hash names one commit on whatever branch: ${JSON.stringify(id)} takes no branch (${branch})`,
      `leave the branch (--on) out, or name the commit by its label: \`gctx context --commit C003 --on ${branch}\``,
    );
  if (m[1] !== undefined && m[1] !== branch)
    throw gccError(
      'E_INVALID_ARGUMENT',
      `${JSON.stringify(id)} names branch ${m[1]}, and the branch given (--on) is ${branch}`,
      `give the branch once: \`gctx context --commit ${m[2]} --on ${branch}\` or --commit ${m[1]}@${m[2]}`,
    );
  return `${branch}@${m[2]}`;
}

/**
 * A query as the context tool's own arguments (MCP, Pi), which is what a model sends back to
 * get it: the tool names a log's branch `name` and a search's page size `n`.
 */
export function toolArgsOf(q: ContextQuery): Record<string, unknown> {
  switch (q.level) {
    case 'log': {
      const { branch, ...rest } = q;
      return branch ? { ...rest, name: branch } : rest;
    }
    case 'search': {
      const { limit, ...rest } = q;
      return limit ? { level: rest.level, text: rest.text, n: limit, ...(rest.page ? { page: rest.page } : {}) } : rest;
    }
    default:
      return { ...q };
  }
}

/** How the command line (and /gcc) spells a query: for "how to see more" notes. */
export function spellCli(q: ContextQuery, prefix = 'gctx'): string {
  switch (q.level) {
    case 'status':
      return `${prefix} status`;
    case 'full':
      return `${prefix} context --full${q.k ? ` --k ${q.k}` : ''}${pageOf(q)}`;
    case 'branch':
      return `${prefix} context --branch${q.name ? ` ${q.name}` : ''}${q.k ? ` --k ${q.k}` : ''}${pageOf(q)}`;
    case 'commit':
      return `${prefix} context --commit ${q.id}`;
    case 'log':
      return `${prefix} context --log${q.n ? ` ${q.n}` : ''}${q.branch ? ` --on ${q.branch}` : ''}${pageOf(q)}`;
    case 'metadata':
      return `${prefix} context --metadata${q.segment ? ` ${q.segment}` : ''}`;
    case 'search': {
      const words = prefix === 'gctx' ? shellWord(q.text) : JSON.stringify(q.text);
      return `${prefix} search ${words}${q.limit ? ` --limit ${q.limit}` : ''}${pageOf(q)}`;
    }
  }
}

const pageOf = (q: { page?: number }): string => (q.page ? ` --page ${q.page}` : '');

/**
 * Text as one word a POSIX shell passes through unchanged: double quotes when nothing in it is special there, else
 * single quotes.
 */
export function shellWord(text: string): string {
  return /^[\w .,:@%+=/-]*$/.test(text) ? `"${text}"` : `'${text.replaceAll("'", "'\\''")}'`;
}

export default operation({
  name: 'context',
  summary: 'recall memory at a granularity, newest first, inside a token budget',
  describe: 'Recall memory, newest first, in a token budget; level defaults to status, full is the roadmap.',
  args,
  cli: [
    {
      field: 'name',
      as: 'flag',
      flag: 'branch',
      optionalValue: true,
      sets: { level: 'branch' },
      help: 'A branch: its purpose and commits (default: the current one).',
    },
    {
      field: 'id',
      as: 'flag',
      flag: 'commit',
      sets: { level: 'commit' },
      help: 'One commit, by hash or label (C003, feat/x@C003).',
    },
    {
      field: 'n',
      as: 'flag',
      flag: 'log',
      optionalValue: true,
      sets: { level: 'log' },
      help: 'The newest n log entries (OTA and tool calls).',
    },
    {
      field: 'segment',
      as: 'flag',
      flag: 'metadata',
      optionalValue: true,
      sets: { level: 'metadata' },
      help: 'Metadata: branches, file_tree or config (default: all).',
    },
    { field: 'level', as: 'flag', flag: 'full', sets: { level: 'full' }, help: 'The roadmap, notes and every branch.' },
    {
      field: 'text',
      as: 'flag',
      flag: 'search',
      sets: { level: 'search' },
      help: 'Search for these words (as `gctx search`).',
    },
    { field: 'name', as: 'flag', flag: 'on', help: 'The branch --log or --commit reads (default: the current one).' },
    { field: 'page', as: 'flag' },
    { field: 'k', as: 'flag' },
    { field: 'at', as: 'flag', help: "Read the memory committed in a git ref's history, without a checkout." },
  ],
  fronts: ['cli', 'mcp', 'pi', 'slash'],
  example: 'context --log 5 --on try-sqlite',
  answer: 'memory',
  library: (a) => `memory.context(${JSON.stringify(queryOf(a))})`,
  readOnly: true,
  needs: 'memory',
  run: (a, ctx) => read(ctx, queryOf(a), a.budget, a.at),
});
