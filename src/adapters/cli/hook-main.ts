/**
 * `gctx hook`: one event in on stdin, at most one decision out on stdout, whatever happens
 * exit 0. Reached from the bootstrap (gctx.ts) for the usual options, from the command table
 * (agent-commands.ts) for any other. Everything a hook needs but the engine is imported from
 * here, so the bundle serves a hook from one file, plus the engine's chunk when the event
 * needs the memory.
 */
import { resolve } from 'node:path';
import { gccError } from '../../errors.js';
import { HOOK_AGENTS, runHook, type HookAgent } from '../hook/run-hook.js';
import { readStdin } from '../hook/stdin.js';
import { keepHeapSmall } from './heap-flags.js';

export interface HookOptions {
  agent?: string | undefined;
  /** --dir: the project folder; default: the nearest `.GCC/` upward from the event's cwd. */
  dir?: string | undefined;
  session?: string | undefined;
}

/** The decision to print, or null for none; problems go to stderr (a hook never fails its host). */
export async function hookCommand(opts: HookOptions): Promise<string | null> {
  const agent = opts.agent ?? 'generic';
  if (!(HOOK_AGENTS as readonly string[]).includes(agent)) {
    // A misconfigured hook must not block the agent either: say so on stderr, exit 0.
    process.stderr.write(`gctx hook: ${gccError('E_INVALID_ARGUMENT', `unknown --agent ${JSON.stringify(agent)}`, 'use --agent claude-code, --agent codex, or no --agent for the normalized envelope').oneLine()}\n`);
    return null;
  }
  // The event may open the memory (a SessionStart in a fresh clone replays the whole history).
  const [input] = await Promise.all([readStdin(), keepHeapSmall()]);
  const inspector = process.env.GCC_INSPECT || process.env.GCC_INSPECT_FILE ? (await import('../../diagrams/inspect.js')).inspectorFromEnv(process.env) : null;
  const out = await runHook({ agent: agent as HookAgent, input, dir: opts.dir === undefined ? undefined : resolve(opts.dir), session: opts.session }).finally(() => inspector?.stop());
  for (const line of out.stderr) process.stderr.write(`${line}\n`);
  return out.stdout;
}

/** `gctx hook [--agent a] [--dir d] [--session s]`, the options already read by the bootstrap. */
export async function hookFromBootstrap(opts: Readonly<Record<string, string>>): Promise<number> {
  const stdout = await hookCommand({ agent: opts.agent, dir: opts.dir, session: opts.session ?? process.env.GCC_SESSION });
  if (stdout) process.stdout.write(stdout.endsWith('\n') ? stdout : `${stdout}\n`);
  return 0;
}
