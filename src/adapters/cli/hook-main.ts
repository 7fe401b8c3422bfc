/**
 * `gctx hook`: one event in on stdin, at most one decision out on stdout, whatever happens
 * exit 0. Reached from the bootstrap (gctx.ts) for the usual options, from the command table
 * (agent-commands.ts) for any other. Everything a hook needs but the engine is imported from
 * here, so the bundle serves a hook from one file, plus the engine's chunk when the event
 * needs the memory.
 */
import { resolve } from 'node:path';
import { gccError } from '../../errors.js';
import { LazyHookMemory } from '../hook/lazy-memory.js';
import { HOOK_AGENTS, runHook, type HookAgent, type HookMemories } from '../hook/run-hook.js';
import { readStdin } from '../hook/stdin.js';
import { keepHeapSmall } from './heap-flags.js';
import { writeErr, writeOut } from './write-out.js';

export interface HookOptions {
  agent?: string | undefined;
  /** --dir: the project folder; default: the nearest `.GCC/` upward from the event's cwd. */
  dir?: string | undefined;
  session?: string | undefined;
}

/**
 * Each event's memory, opened when needed; a pass over much of the history (a SessionStart in a fresh clone) keeps V8's
 * heap small.
 */
const ownProcess: HookMemories = { forEvent: (root, session) => new LazyHookMemory(root, session, keepHeapSmall) };

/** The decision to print, or null for none; problems go to stderr (a hook never fails its host). */
export async function hookCommand(opts: HookOptions): Promise<string | null> {
  const agent = opts.agent ?? 'generic';
  if (!(HOOK_AGENTS as readonly string[]).includes(agent)) {
    // A misconfigured hook must not block the agent either: say so on stderr, exit 0.
    const e = gccError(
      'E_INVALID_ARGUMENT',
      `unknown --agent ${JSON.stringify(agent)}: it is one of ${HOOK_AGENTS.join(', ')}`,
      'use --agent claude-code, --agent codex, or --agent generic (or no --agent) for the normalized envelope',
    );
    process.stderr.write(`gctx hook: ${e.oneLine()}\n`);
    return null;
  }
  const input = await readStdin();
  const inspector =
    process.env.GCC_INSPECT || process.env.GCC_INSPECT_FILE
      ? (await import('../../diagrams/inspect.js')).inspectorFromEnv(process.env)
      : null;
  const out = await runHook(
    {
      agent: agent as HookAgent,
      input,
      dir: opts.dir === undefined ? undefined : resolve(opts.dir),
      session: opts.session,
    },
    ownProcess,
  ).finally(() => inspector?.stop());
  for (const line of out.stderr) writeErr(`${line}\n`);
  return out.stdout;
}

/** `gctx hook [--agent a] [--dir d] [--session s]`, the options already read by the bootstrap. */
export async function hookFromBootstrap(opts: Readonly<Record<string, string>>): Promise<number> {
  const stdout = await hookCommand({
    agent: opts.agent,
    dir: opts.dir,
    session: opts.session ?? process.env.GCC_SESSION,
  });
  if (stdout) writeOut(stdout.endsWith('\n') ? stdout : `${stdout}\n`, 0);
  return 0;
}
