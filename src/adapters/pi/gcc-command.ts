/**
 * `/gcc` for the person: every operation the catalogue offers to it (operations/), typed by
 * hand with the command line's own words (`/gcc commit "…" --next "…"`), parsed by the same
 * parser as `gctx`. Output is shown in the transcript as a custom entry (kept out of the
 * model's context: the person asked, not the model) and summarised in a notification.
 */
import type { ExtensionAPI, ExtensionCommandContext } from '@earendil-works/pi-coding-agent';
import { gccError } from '../../errors.js';
import { safeText } from '../../log/safe-text.js';
import { spellCli } from '../../operations/context.js';
import { argumentsHint } from '../../operations/fields.js';
import { operationNamed, operationsFor } from '../../operations/index.js';
import { check, failure, perform, type Speaker } from '../../operations/runner.js';
import { callIn, helpOf, nearest, parseArgs, splitWords, usageOf } from '../cli/args.js';
import { writeErr, writeOut } from '../cli/write-out.js';
import type { MemorySlot } from './session.js';

const OUTPUT_ENTRY = 'gcc-output';
const PREFIX = '/gcc';

const SLASH: Speaker = {
  front: 'slash',
  spell: (q) => spellCli(q, PREFIX),
  usage: (op) => `${usageOf(op, PREFIX)} (${argumentsHint(op)})`,
  call: (words) => callIn(words, 'slash'),
};

function usage(): string {
  return operationsFor('slash')
    .map((op) => `${usageOf(op, PREFIX)}\n    ${op.summary}`)
    .join('\n');
}

interface GcCommandDeps {
  /** Re-open memory after `/gcc init`. */
  reopen(create: boolean): Promise<void>;
  /** Extra lines for `/gcc status`: channel, config sources, warnings. */
  statusLines(): string[];
}

export function registerGccCommand(pi: ExtensionAPI, slot: MemorySlot, deps: GcCommandDeps): void {
  pi.registerEntryRenderer<{ title: string; text: string }>(OUTPUT_ENTRY, (entry) => {
    const lines = [`── ${entry.data?.title ?? 'gcc'} ──`, ...(entry.data?.text ?? '').split('\n')];
    return {
      render: (width: number) => lines.map((l) => (l.length > width ? l.slice(0, Math.max(1, width - 1)) + '…' : l)),
      invalidate: () => undefined,
    };
  });
  pi.registerCommand('gcc', {
    description: 'GCC project memory: status, commit, branch, merge, context, search, graph (try /gcc help)',
    getArgumentCompletions: (prefix) => {
      const subs = [...operationsFor('slash').map((op) => op.name), 'help'];
      const hits = subs.filter((s) => s.startsWith(prefix.trim())).map((s) => ({ value: s, label: s }));
      return hits.length ? hits : null;
    },
    handler: async (args, ctx) => {
      const out = await runGcc(args, slot, deps);
      show(pi, ctx, out);
    },
  });
}

interface GccOutput {
  title: string;
  text: string;
  level: 'info' | 'warning' | 'error';
}

/** Run one `/gcc` line. Exported for tests; never throws. What the terminal shows carries no control character. */
async function runGcc(line: string, slot: MemorySlot, deps: GcCommandDeps): Promise<GccOutput> {
  const out = await runLine(line, slot, deps);
  return { ...out, title: safeText(out.title), text: safeText(out.text) };
}

async function runLine(line: string, slot: MemorySlot, deps: GcCommandDeps): Promise<GccOutput> {
  let words: string[];
  try {
    words = splitWords(line);
  } catch {
    words = line.trim().split(/\s+/);
  }
  const sub = words[0] ?? 'status';
  const title = `gcc ${sub}`;
  try {
    if (sub === 'help' && words[1]) {
      const op = operationNamed(words[1]);
      if (op?.fronts.includes('slash')) return { title, text: helpOf(op, PREFIX), level: 'info' };
    }
    if (sub === 'help') return { title: 'gcc help', text: usage(), level: 'info' };
    const op = operationNamed(sub);
    if (!op || !op.fronts.includes('slash'))
      return {
        title: 'gcc',
        text: `unknown subcommand "${sub}"${nearest(
          sub,
          operationsFor('slash').map((o) => o.name),
        )}\n\n${usage()}`,
        level: 'warning',
      };
    const p = parseArgs(op, words.slice(1), PREFIX);
    if (p.globals.has('help')) return { title, text: helpOf(op, PREFIX), level: 'info' };
    const args = await check(op, p.args, SLASH);
    if (op.needs === 'none')
      throw gccError('E_INVALID_ARGUMENT', `${op.name} runs from the command line`, `gctx ${op.name}`);
    if (!slot.memory && op.needs !== 'create')
      return {
        title,
        text: [slot.describeProblem() || 'GCC memory is not open.', ...deps.statusLines()].join('\n'),
        level: 'warning',
      };
    const a = await perform(op, args, SLASH, {
      dir: slot.memory?.root ?? slot.resolved?.memoryRoot ?? process.cwd(),
      session: slot.session,
      budget: slot.resolved?.config.contextBudget,
      memory: async (create) => {
        if (create) await deps.reopen(true);
        if (!slot.memory) throw gccError('E_NOT_INITIALIZED', slot.describeProblem() || 'GCC memory is not open.');
        return slot.memory;
      },
    });
    const text = op.overview ? [a.text, '', ...deps.statusLines()].join('\n') : a.text;
    return { title, text, level: a.exit ? 'warning' : 'info' };
  } catch (err) {
    return { title, text: failure(err, SLASH).oneLine(), level: 'error' };
  }
}

function show(pi: ExtensionAPI, ctx: ExtensionCommandContext, out: GccOutput): void {
  try {
    pi.appendEntry(OUTPUT_ENTRY, { title: out.title, text: out.text });
  } catch {
    // Appending can fail on a stale context; the notification below still reaches the person.
  }
  // `pi -p "/gcc status"` shows no transcript and notifies no one: the answer is what it prints,
  // on fd 1 itself (Pi sends extensions' process.stdout to stderr in print mode), an error on stderr.
  if (ctx.mode === 'print') {
    if (out.level === 'error') writeErr(`${out.text}\n`);
    else writeOut(`${out.text}\n`);
    return;
  }
  const first = out.text.split('\n')[0] ?? '';
  ctx.ui.notify(out.level === 'info' ? `${out.title}: ${first}` : out.text, out.level);
}
