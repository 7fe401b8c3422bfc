#!/usr/bin/env node
/**
 * gctx: the command line. Prints one line and exits 1 on a user error, 2 on corruption or
 * an internal fault; with --json, the error is printed as JSON on stdout as well.
 */
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Memory } from '../../engine/memory.js';
import { asGccError, gccError } from '../../errors.js';
import { GCC_DIR } from '../../store/paths.js';
import { has, one, parseArgs } from './args.js';
import { COMMANDS, type CommandSpec, type Output } from './commands.js';
import { MORE_COMMANDS } from './more-commands.js';
import { GIT_COMMANDS } from './git-commands.js';
import { AGENT_COMMANDS } from './agent-commands.js';
import { MACHINE_COMMANDS } from './machine-commands.js';
import { checkedOut } from '../git/sync.js';

const ALL: Record<string, CommandSpec> = { ...COMMANDS, ...MORE_COMMANDS, ...GIT_COMMANDS, ...AGENT_COMMANDS, ...MACHINE_COMMANDS };

/** The nearest folder upward that holds .GCC/, else the starting folder. */
export function findProject(start: string): string {
  let dir = resolve(start);
  for (;;) {
    if (existsSync(join(dir, GCC_DIR))) return dir;
    const up = dirname(dir);
    if (up === dir) return resolve(start);
    dir = up;
  }
}

function help(): string {
  const width = Math.max(...Object.values(ALL).map((c) => c.usage.length));
  const lines = Object.values(ALL).map((c) => (c.usage.length > 70 ? `  ${c.usage}\n  ${' '.repeat(8)}${c.summary}` : `  ${c.usage.padEnd(Math.min(width, 70))}  ${c.summary}`));
  return [
    'gctx — git-shaped memory for coding agents (.GCC/)',
    '',
    'Usage:',
    ...lines,
    '',
    'Everywhere: --dir <project> (default: nearest folder upward with .GCC/), --json, --session <id>, --budget <tokens>, --help',
    'Exit codes: 0 ok, 1 user error, 2 corruption or internal error.',
  ].join('\n');
}

export async function run(argv: readonly string[]): Promise<number> {
  const [name, ...args] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${help()}\n`);
    return 0;
  }
  if (name === '--version' || name === 'version') {
    const { VERSION } = await import('../../runtime/version.js');
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const spec = ALL[name];
  let json = args.includes('--json');
  try {
    if (!spec) throw gccError('E_INVALID_ARGUMENT', `unknown command ${JSON.stringify(name)}`, 'run `gctx --help` for the list');
    const p = parseArgs(args, spec.flags, spec.usage);
    json = has(p, 'json');
    if (has(p, 'help')) {
      process.stdout.write(`${spec.usage}\n  ${spec.summary}\n`);
      return 0;
    }
    const dirFlag = one(p, 'dir');
    const dir = dirFlag ? resolve(dirFlag) : spec.memory === 'create' ? process.cwd() : findProject(process.cwd());
    const session = one(p, 'session') ?? process.env.GCC_SESSION;
    const budgetText = one(p, 'budget');
    const budget = budgetText === undefined ? undefined : Number(budgetText);
    if (budget !== undefined && (!Number.isInteger(budget) || budget < 1)) throw gccError('E_INVALID_ARGUMENT', '--budget takes a whole number of tokens', '--budget 800');
    let out: Output;
    if (spec.memory === 'none') {
      out = await spec.run(p, { dir, session, budget });
    } else {
      // After a git checkout or merge, projection files git wrote are rebuilt, not kept aside.
      const memory = await Memory.open(dir, { create: spec.memory === 'create', checkedOut: checkedOut(dir), ...(session ? { session } : {}) });
      try {
        out = await spec.run(p, { memory, session, budget });
        for (const w of memory.warnings) process.stderr.write(`gctx: warning: ${w}\n`);
      } finally {
        memory.close();
      }
    }
    // A command with nothing to say prints nothing (`gctx hook` with no decision; `gctx mcp`, whose stdout was the protocol).
    if (json ? out.json !== null : out.text !== '') process.stdout.write(json ? `${JSON.stringify(out.json, null, 2)}\n` : out.text.endsWith('\n') ? out.text : `${out.text}\n`);
    return out.exit ?? 0;
  } catch (err) {
    const e = asGccError(err);
    if (json) process.stdout.write(`${JSON.stringify({ error: e.toJSON() })}\n`);
    process.stderr.write(`gctx: ${e.oneLine()}\n`);
    return e.exitCode;
  }
}

/** True when this file is the program (run directly or through a link), not imported by the gctx bootstrap (gctx.ts). */
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
      process.stderr.write(`gctx: internal error: ${String(err)}\n`);
      process.exitCode = 2;
    },
  );
}
