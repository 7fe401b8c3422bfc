#!/usr/bin/env node
/**
 * gctx: the command line, generated from the catalogue (operations/). Prints one line and
 * exits 1 on a user error, 2 on corruption or an internal fault; with --json, the answer (or
 * the error) is printed as JSON on stdout.
 *
 * Listing and parsing commands needs only the catalogue's declarations; zod (to check a call's
 * arguments) and the engine (to open the memory) are loaded once a command is known to need them.
 */
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MIN_BUDGET } from '../../context/budget.js';
import type { Memory } from '../../engine/memory.js';
import { gccError } from '../../errors.js';
import { spellCli } from '../../operations/context.js';
import { argumentsHint } from '../../operations/fields.js';
import { type Answer, type Operation, operationsFor } from '../../operations/index.js';
import { check, failure, perform, type Speaker } from '../../operations/runner.js';
import { findMemoryRoot } from '../../store/paths.js';
import { assertFolder } from '../../store/project-folder.js';
import { openIsLong } from '../../store/snapshot.js';
import { VERSION } from '../../runtime/version.js';
import { helpOf, helpOfAll, nearest, parseArgs, usageOf } from './args.js';
import { commandFirst } from './globals.js';
import { keepHeapSmall } from './heap-flags.js';
import { LAUNCHERS } from './launchers/index.js';
import { jsonText, writeErr, writeOut } from './write-out.js';

/** What the command line offers: the catalogue's commands, then the launchers of other front ends. */
const commands = (): Operation[] => [...operationsFor('cli'), ...LAUNCHERS];

export const CLI: Speaker = {
  front: 'cli',
  spell: (q) => spellCli(q),
  usage: (op) => `${usageOf(op)} (${argumentsHint(op)})`,
};

/** The command a name names; E_INVALID_ARGUMENT naming the nearest when none does. */
function commandNamed(name: string): Operation {
  const op = commands().find((o) => o.name === name);
  if (op) return op;
  if (name.startsWith('-'))
    throw gccError(
      'E_INVALID_ARGUMENT',
      `unknown option ${name} before the command`,
      'run `gctx --help`: before the command go only the options it lists under "Everywhere"',
    );
  throw gccError(
    'E_INVALID_ARGUMENT',
    `unknown command ${JSON.stringify(name)}${nearest(
      name,
      commands().map((o) => o.name),
    )}`,
    'run `gctx --help` for the list',
  );
}

export async function run(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = commandFirst(argv);
  if (!name || name === '--help' || name === '-h' || (name === 'help' && !rest.length)) {
    writeOut(`${helpOfAll(commands())}\n`, 0);
    return 0;
  }
  if (name === '--version' || name === 'version') {
    writeOut(`${VERSION}\n`, 0);
    return 0;
  }
  let json = rest.includes('--json');
  // Live inspection of the machines, only when asked for (it loads the machines and the inspector).
  const inspector =
    process.env.GCC_INSPECT || process.env.GCC_INSPECT_FILE
      ? (await import('../../diagrams/inspect.js')).inspectorFromEnv(process.env)
      : null;
  let memory: Memory | undefined;
  try {
    if (name === 'help') {
      writeOut(`${helpOf(commandNamed(rest[0]!))}\n`, 0);
      return 0;
    }
    const op = commandNamed(name);
    const p = parseArgs(op, rest);
    json = p.globals.has('json');
    if (p.globals.has('help')) {
      writeOut(`${helpOf(op)}\n`, 0);
      return 0;
    }
    const args = await check(op, p.args, CLI);
    const explicitDir = p.globals.get('dir') ? resolve(p.globals.get('dir')!) : undefined;
    // A --dir that names a file, a link loop, a path too long or a folder this user may not
    // look into is the caller's mistake, said in the words they typed.
    if (explicitDir) assertFolder(explicitDir, `--dir ${p.globals.get('dir')!}`);
    const dir =
      explicitDir ?? (op.needs === 'create' ? process.cwd() : (findMemoryRoot(process.cwd()) ?? process.cwd()));
    const session = p.globals.get('session') || process.env.GCC_SESSION || undefined;
    const budgetText = p.globals.get('budget');
    const budget = budgetText === undefined ? undefined : Number(budgetText);
    if (budget !== undefined && (!Number.isInteger(budget) || budget < MIN_BUDGET))
      throw gccError(
        'E_INVALID_ARGUMENT',
        `--budget takes a whole number of tokens, ${MIN_BUDGET} or more`,
        '--budget 800',
      );
    // A pass over the whole history, or an open that is one: the heap kept small from the start,
    // before the engine loads; otherwise when a pass starts.
    if (op.wholePass?.(args) || (op.needs !== 'none' && openIsLong(dir))) keepHeapSmall();
    const out: Answer = await perform(op, args, CLI, {
      dir,
      explicitDir,
      session,
      budget,
      memory: async (create) => {
        const { Memory } = await import('../../engine/memory.js');
        memory = await Memory.open(dir, {
          create,
          search: 'on-demand',
          onLongPass: keepHeapSmall,
          ...(session ? { session } : {}),
        });
        return memory;
      },
      ...(json ? {} : { print: (chunk: string) => writeOut(chunk) }),
    });
    closeMemory(memory);
    memory = undefined;
    // A command with nothing to say prints nothing (`gctx hook` with no decision; `gctx mcp`, whose stdout was the
    // protocol).
    if (json ? Object.keys(out.data).length > 0 : out.text !== '')
      writeOut(
        json ? `${jsonText(out.data, 2)}\n` : out.text.endsWith('\n') ? out.text : `${out.text}\n`,
        out.exit ?? 0,
      );
    return out.exit ?? 0;
  } catch (err) {
    closeMemory(memory);
    const e = failure(err, CLI);
    // An error may quote the words it was given, a pasted token among them.
    const { redactSecrets } = await import('../../observer/redact.js');
    if (json) writeOut(`${redactSecrets(jsonText({ error: e.toJSON() }))}\n`, e.exitCode);
    writeErr(redactSecrets(`gctx: ${e.oneLine()}\n`));
    return e.exitCode;
  } finally {
    await inspector?.stop();
  }
}

/** The memory's warnings said on stderr, then the memory closed. */
function closeMemory(memory: Memory | undefined): void {
  if (!memory) return;
  for (const w of memory.warnings) writeErr(`gctx: warning: ${w}\n`);
  memory.close();
}

/** True when this file is the program (run directly or through a link), not imported by the bootstrap (gctx.ts). */
function isEntry(): boolean {
  try {
    return process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
}

if (isEntry()) {
  run(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      writeErr(`gctx: internal error: ${String(err)}\n`);
      process.exitCode = 2;
    },
  );
}
