import type { ExtensionAPI, ExtensionCommandContext } from '@earendil-works/pi-coding-agent';
import type { Command } from '../../decider/commands.js';
import type { ContextQuery } from '../../context/query.js';
import { asGccError } from '../../errors.js';
import { gitGraphMermaid } from '../../diagrams/gitgraph.js';
import type { MemorySlot } from './memory-slot.js';

/**
 * `/gcc` for the person: the same operations as the model's tools, typed by hand. Output is
 * shown in the transcript as a custom entry (kept out of the model's context: the person asked,
 * not the model) and summarised in a notification.
 */

export const OUTPUT_ENTRY = 'gcc-output';

const USAGE = [
  '/gcc status                          memory overview',
  '/gcc commit <contribution>           record a milestone',
  '/gcc branch <name> <purpose>         start a memory branch',
  '/gcc switch <name>                   switch this session\'s memory branch',
  '/gcc merge <branch> <synthesis>      merge a branch into its parent',
  '/gcc abandon <branch> <reason>       close a branch that did not work out',
  '/gcc roadmap add|check|uncheck|remove <objective>',
  '/gcc context [status|branch [name]|commit <id>|log [n]|metadata [segment]|full]',
  '/gcc search <text>',
  '/gcc graph                           Mermaid gitGraph of the memory',
  '/gcc init                            create .GCC/ in this project',
].join('\n');

export interface GcCommandDeps {
  /** Re-open memory after `/gcc init`. */
  reopen(create: boolean): Promise<void>;
  /** Extra lines for `/gcc status`: channel, config sources, warnings. */
  statusLines(): string[];
}

export function registerGccCommand(pi: ExtensionAPI, slot: MemorySlot, deps: GcCommandDeps): void {
  pi.registerEntryRenderer<{ title: string; text: string }>(OUTPUT_ENTRY, (entry) => {
    const lines = [`── ${entry.data?.title ?? 'gcc'} ──`, ...(entry.data?.text ?? '').split('\n')];
    return { render: (width: number) => lines.map((l) => (l.length > width ? l.slice(0, Math.max(1, width - 1)) + '…' : l)), invalidate: () => undefined };
  });
  pi.registerCommand('gcc', {
    description: 'GCC project memory: status, commit, branch, merge, context, graph (try /gcc help)',
    getArgumentCompletions: (prefix) => {
      const subs = ['status', 'commit', 'branch', 'switch', 'merge', 'abandon', 'roadmap', 'context', 'search', 'graph', 'init', 'help'];
      const hits = subs.filter((s) => s.startsWith(prefix.trim())).map((s) => ({ value: s, label: s }));
      return hits.length ? hits : null;
    },
    handler: async (args, ctx) => {
      const out = await runGcc(args, slot, deps);
      show(pi, ctx, out);
    },
  });
}

export interface GccOutput {
  title: string;
  text: string;
  level: 'info' | 'warning' | 'error';
}

/** Run one `/gcc` line. Exported for tests; never throws. */
export async function runGcc(line: string, slot: MemorySlot, deps: GcCommandDeps): Promise<GccOutput> {
  const words = line.trim().split(/\s+/).filter(Boolean);
  const sub = words[0] ?? 'status';
  const rest = words.slice(1);
  const tail = (from: number) => rest.slice(from).join(' ');
  try {
    if (sub === 'help') return { title: 'gcc help', text: USAGE, level: 'info' };
    if (sub === 'init') {
      await deps.reopen(true);
      return slot.memory
        ? { title: 'gcc init', text: `Memory ready in ${slot.memory.gccDir}. Commit .GCC/ with your code to share it.`, level: 'info' }
        : { title: 'gcc init', text: slot.describeProblem(), level: 'error' };
    }
    const memory = slot.memory;
    if (!memory) return { title: `gcc ${sub}`, text: [slot.describeProblem() || 'GCC memory is not open.', ...deps.statusLines()].join('\n'), level: 'warning' };
    const run = async (cmd: Command) => {
      const r = await memory.execute(cmd, { session: slot.session });
      return { title: `gcc ${sub}`, text: `${r.message}\n(memory branch: ${r.branch})`, level: 'info' as const };
    };
    const ctxAnswer = (q: ContextQuery) => {
      const a = memory.context(q, { session: slot.session, budget: slot.resolved?.config.contextBudget ?? 2000 });
      return { title: `gcc ${sub}`, text: a.text + (a.truncated ? '\n(truncated)' : ''), level: 'info' as const };
    };
    switch (sub) {
      case 'status': {
        const a = ctxAnswer({ level: 'status' });
        return { ...a, text: [a.text, '', ...deps.statusLines()].join('\n') };
      }
      case 'commit':
        return need(rest.length >= 1, 'commit <contribution>') ?? (await run({ type: 'commit', contribution: tail(0) }));
      case 'branch':
        return need(rest.length >= 2, 'branch <name> <purpose>') ?? (await run({ type: 'branch', name: rest[0] as string, purpose: tail(1) }));
      case 'switch':
        return need(rest.length === 1, 'switch <name>') ?? (await run({ type: 'switch', name: rest[0] as string }));
      case 'merge':
        return need(rest.length >= 2, 'merge <branch> <synthesis>') ?? (await run({ type: 'merge', branch: rest[0] as string, synthesis: tail(1) }));
      case 'abandon':
        return need(rest.length >= 2, 'abandon <branch> <reason>') ?? (await run({ type: 'abandon', branch: rest[0] as string, reason: tail(1) }));
      case 'roadmap': {
        const action = rest[0];
        if (action !== 'add' && action !== 'check' && action !== 'uncheck' && action !== 'remove') return usage('roadmap add|check|uncheck|remove <objective>');
        return need(rest.length >= 2, 'roadmap <action> <objective>') ?? (await run({ type: 'roadmap', action, target: tail(1) }));
      }
      case 'context':
        return ctxAnswer(contextFromWords(rest));
      case 'search':
        return need(rest.length >= 1, 'search <text>') ?? ctxAnswer({ level: 'search', text: tail(0) });
      case 'graph':
        return graph(memory);
      default:
        return usage(`unknown subcommand "${sub}"`);
    }
  } catch (err) {
    return { title: `gcc ${sub}`, text: asGccError(err).oneLine(), level: 'error' };
  }
}

function contextFromWords(w: string[]): ContextQuery {
  const [level = 'status', arg] = w;
  const num = arg !== undefined && /^\d+$/.test(arg) ? Number(arg) : undefined;
  switch (level) {
    case 'branch':
      return arg ? { level, name: arg } : { level };
    case 'commit':
      return { level, id: arg ?? '' };
    case 'log':
      return num ? { level, n: num } : { level };
    case 'metadata':
      return arg ? { level, segment: arg } : { level };
    case 'full':
      return { level };
    case 'search':
      return { level, text: w.slice(1).join(' ') };
    default:
      return { level: 'status' };
  }
}

function graph(memory: NonNullable<MemorySlot['memory']>): GccOutput {
  return { title: 'gcc graph', text: gitGraphMermaid(memory.events()), level: 'info' };
}

function need(ok: boolean, form: string): GccOutput | null {
  return ok ? null : usage(`usage: /gcc ${form}`);
}

function usage(why: string): GccOutput {
  return { title: 'gcc', text: `${why}\n\n${USAGE}`, level: 'warning' };
}

function show(pi: ExtensionAPI, ctx: ExtensionCommandContext, out: GccOutput): void {
  try {
    pi.appendEntry(OUTPUT_ENTRY, { title: out.title, text: out.text });
  } catch {
    // Appending can fail on a stale context; the notification below still reaches the person.
  }
  const first = out.text.split('\n')[0] ?? '';
  ctx.ui.notify(out.level === 'info' ? `${out.title}: ${first}` : out.text, out.level);
}
