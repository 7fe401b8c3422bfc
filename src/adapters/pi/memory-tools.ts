import type { AgentToolResult, ExtensionAPI, ToolDefinition } from '@earendil-works/pi-coding-agent';
import type { Command } from '../../decider/commands.js';
import type { ContextQuery } from '../../context/query.js';
import { asGccError, gccError } from '../../errors.js';
import { asProjectData } from '../../observer/framing.js';
import type { MemorySlot } from './memory-slot.js';

/**
 * The memory tools the model calls in-process (the `tools` channel, and the fallback of the MCP
 * one). Schemas are plain JSON Schema, which Pi validates as such; descriptions are short,
 * because they ride in every request. Failures come back as tool errors carrying the engine's
 * code and fix, never as a thrown exception that would end the turn.
 */

export interface MemoryToolDetails {
  ok: boolean;
  code?: string;
  branch?: string;
  truncated?: boolean;
}

type Params = Record<string, unknown>;

const str = (description: string) => ({ type: 'string', description });
const int = (description: string) => ({ type: 'integer', minimum: 1, description });
const strings = (description: string) => ({ type: 'array', items: { type: 'string' }, description });
const object = (properties: Record<string, unknown>, required: string[]) => ({ type: 'object', properties, required, additionalProperties: false });

interface MemoryToolSpec {
  name: string;
  label: string;
  description: string;
  parameters: Record<string, unknown>;
  run(p: Params, slot: MemorySlot, defaults: { contextBudget: number }): Promise<{ text: string; branch?: string; truncated?: boolean }>;
}

const budgetParam = int('Token budget of the answer (default from config, about 2000).');

export const MEMORY_TOOLS: MemoryToolSpec[] = [
  {
    name: 'gcc_commit',
    label: 'Memory commit',
    description:
      'Record a milestone in project memory: what this step achieved and why. Branch purpose, previous progress and files touched are filled in automatically.',
    parameters: object(
      {
        contribution: str('What this step changed and why, in one to three sentences.'),
        title: str('Short title (optional; derived from the contribution otherwise).'),
        check: strings('Roadmap objectives this step completes (ids or text), to tick them.'),
      },
      ['contribution'],
    ),
    run: (p, slot) => exec(slot, { type: 'commit', contribution: s(p.contribution), ...opt('title', p.title), ...optList('check', p.check) }),
  },
  {
    name: 'gcc_branch',
    label: 'Memory branch',
    description: 'Start an isolated line of work (an experiment or alternative) from the current memory branch, and switch to it.',
    parameters: object(
      { name: str('Branch name, e.g. "try-streaming-parser".'), purpose: str('What this branch explores.'), hypotheses: strings('Hypotheses to test (optional).') },
      ['name', 'purpose'],
    ),
    run: (p, slot) => exec(slot, { type: 'branch', name: s(p.name), purpose: s(p.purpose), ...optList('hypotheses', p.hypotheses) }),
  },
  {
    name: 'gcc_switch',
    label: 'Memory switch',
    description: 'Switch this session to another open memory branch.',
    parameters: object({ name: str('Branch to switch to.') }, ['name']),
    run: (p, slot) => exec(slot, { type: 'switch', name: s(p.name) }),
  },
  {
    name: 'gcc_merge',
    label: 'Memory merge',
    description:
      'Merge a finished memory branch into its parent (or `into`): records a synthesis of what was tried, learned and integrated, then switches to the target. Read the branch with gcc_context first.',
    parameters: object(
      {
        branch: str('Branch to merge.'),
        synthesis: str('What was tried and what is integrated into the target.'),
        learned: str('What was learned (optional).'),
        into: str('Target branch (default: the parent).'),
      },
      ['branch', 'synthesis'],
    ),
    run: async (p, slot) => {
      // MERGE surfaces the source branch first, so the synthesis is read next to what it sums up.
      const before = slot.memory?.context({ level: 'branch', name: s(p.branch), k: 5 }, { session: slot.session, budget: 600 });
      const r = await exec(slot, { type: 'merge', branch: s(p.branch), synthesis: s(p.synthesis), ...opt('learned', p.learned), ...opt('into', p.into) });
      return before ? { ...r, text: `${r.text}\n\nThe merged branch, as it stood:\n${asProjectData(before.text)}` } : r;
    },
  },
  {
    name: 'gcc_abandon',
    label: 'Memory abandon',
    description: 'Close a memory branch that did not work out, recording why, and switch back to its parent.',
    parameters: object({ branch: str('Branch to abandon.'), reason: str('Why it is abandoned (what was learned).') }, ['branch', 'reason']),
    run: (p, slot) => exec(slot, { type: 'abandon', branch: s(p.branch), reason: s(p.reason) }),
  },
  {
    name: 'gcc_roadmap',
    label: 'Memory roadmap',
    description: 'Edit the roadmap objectives: add one, or check, uncheck or remove one by id or text.',
    parameters: object(
      { action: { type: 'string', enum: ['add', 'check', 'uncheck', 'remove'], description: 'What to do.' }, target: str('Objective text (add) or id/text (others).') },
      ['action', 'target'],
    ),
    run: (p, slot) => {
      const action = s(p.action);
      if (action !== 'add' && action !== 'check' && action !== 'uncheck' && action !== 'remove') return Promise.reject(invalid('action must be add, check, uncheck or remove'));
      return exec(slot, { type: 'roadmap', action, target: s(p.target) });
    },
  },
  {
    name: 'gcc_context',
    label: 'Memory context',
    description:
      'Read project memory. level: status (overview), branch (purpose + recent commits; name, page, k), commit (id: hash or C###), log (recent tool/OTA entries; n, page), metadata (segment), full (roadmap), search (text).',
    parameters: object(
      {
        level: { type: 'string', enum: ['status', 'branch', 'commit', 'log', 'metadata', 'full', 'search'], description: 'Granularity (default status).' },
        name: str('branch: branch name (default: current).'),
        id: str('commit: commit hash or label such as C003.'),
        n: int('log: number of entries.'),
        page: int('branch/log: page, 1 = most recent.'),
        k: int('branch: commits per page.'),
        segment: str('metadata: segment such as branches, files, config.'),
        text: str('search: text to find.'),
        budget: budgetParam,
      },
      [],
    ),
    run: (p, slot, d) => context(slot, contextQuery(p), budgetOf(p, d)),
  },
  {
    name: 'gcc_search',
    label: 'Memory search',
    description: 'Full-text search over project memory: commits, branch purposes, logged tool calls.',
    parameters: object({ text: str('Text to find.'), limit: int('Maximum hits.'), budget: budgetParam }, ['text']),
    run: (p, slot, d) => context(slot, { level: 'search', text: s(p.text), ...(typeof p.limit === 'number' ? { limit: p.limit } : {}) }, budgetOf(p, d)),
  },
];

export function registerMemoryTools(pi: ExtensionAPI, slot: MemorySlot, defaults: () => { contextBudget: number }): void {
  for (const spec of MEMORY_TOOLS) pi.registerTool(toolDefinition(spec, slot, defaults));
}

function toolDefinition(spec: MemoryToolSpec, slot: MemorySlot, defaults: () => { contextBudget: number }): ToolDefinition {
  return {
    name: spec.name,
    label: spec.label,
    description: spec.description,
    parameters: spec.parameters,
    executionMode: 'sequential',
    async execute(_id, params): Promise<AgentToolResult<MemoryToolDetails>> {
      try {
        if (!slot.memory) return errorResult(slot.problem?.code ?? 'E_NOT_INITIALIZED', slot.describeProblem() || 'GCC memory is not open in this session.');
        const r = await spec.run(isParams(params) ? params : {}, slot, defaults());
        const details: MemoryToolDetails = { ok: true };
        if (r.branch !== undefined) details.branch = r.branch;
        if (r.truncated !== undefined) details.truncated = r.truncated;
        return { content: [{ type: 'text', text: r.text }], details };
      } catch (err) {
        const e = asGccError(err);
        return errorResult(e.code, e.oneLine());
      }
    },
  };
}

function errorResult(code: string, text: string): AgentToolResult<MemoryToolDetails> {
  return { content: [{ type: 'text', text: text.startsWith(code) ? text : `${code}: ${text}` }], details: { ok: false, code }, isError: true };
}

async function exec(slot: MemorySlot, cmd: Command): Promise<{ text: string; branch: string }> {
  const memory = slot.memory;
  if (!memory) throw invalid('memory is not open');
  const r = await memory.execute(cmd, { session: slot.session });
  return { text: `${r.message}\n(memory branch: ${r.branch})`, branch: r.branch };
}

function context(slot: MemorySlot, q: ContextQuery, budget: number): Promise<{ text: string; truncated: boolean }> {
  const memory = slot.memory;
  if (!memory) return Promise.reject(invalid('memory is not open'));
  const a = memory.context(q, { session: slot.session, budget });
  const more = a.truncated ? `\n\n(truncated to about ${budget} tokens: ask for the next page or a larger budget)` : '';
  return Promise.resolve({ text: asProjectData(a.text + more), truncated: a.truncated });
}

/** The CONTEXT query a gcc_context call asks for. */
export function contextQuery(p: Params): ContextQuery {
  const level = typeof p.level === 'string' ? p.level : 'status';
  const n = (k: string) => (typeof p[k] === 'number' ? { [k]: p[k] as number } : {});
  switch (level) {
    case 'status':
      return { level };
    case 'branch':
      return { level, ...opt('name', p.name), ...n('page'), ...n('k') };
    case 'commit':
      if (typeof p.id !== 'string' || !p.id) throw invalid('level "commit" needs id (a hash or a label such as C003)');
      return { level, id: p.id };
    case 'log':
      return { level, ...n('n'), ...n('page'), ...opt('branch', p.name) };
    case 'metadata':
      return { level, ...opt('segment', p.segment) };
    case 'full':
      return { level };
    case 'search':
      if (typeof p.text !== 'string' || !p.text) throw invalid('level "search" needs text');
      return { level, text: p.text };
    default:
      throw invalid(`unknown level "${level}": use status, branch, commit, log, metadata, full or search`);
  }
}

function budgetOf(p: Params, d: { contextBudget: number }): number {
  return typeof p.budget === 'number' && p.budget > 0 ? Math.floor(p.budget) : d.contextBudget;
}

function invalid(message: string) {
  return gccError('E_INVALID_ARGUMENT', message, 'correct the arguments and call again');
}

function s(v: unknown): string {
  return typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v);
}

function opt<K extends string>(key: K, v: unknown): Partial<Record<K, string>> {
  return typeof v === 'string' && v !== '' ? ({ [key]: v } as Record<K, string>) : {};
}

function optList<K extends string>(key: K, v: unknown): Partial<Record<K, string[]>> {
  return Array.isArray(v) && v.every((x) => typeof x === 'string') && v.length ? ({ [key]: v } as Record<K, string[]>) : {};
}

function isParams(v: unknown): v is Params {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
