import { existsSync, lstatSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { GCC_WRITE_REASON, GIT_UNCOMMITTED_REASON } from '../events/guard.js';
import type { CanonicalInput, CanonicalTool } from './envelope.js';
import { resolveToolPath, segmentNamesGcc, targetsGcc } from './gcc-paths.js';
import { mcpEffects } from './mcp-writes.js';
import { patchTargets } from './patch-targets.js';
import { describeWrite, type Memory, pathWriteHits, type ShellWrite } from './shell-effects.js';
import { shellWrites } from './shell-writes.js';

// The reasons are kept with the events: the fold reads a refusal back from the log (events/guard.ts).
export { GCC_WRITE_REASON, GIT_UNCOMMITTED_REASON };

/**
 * `.GCC/events/` holds the memory's committed truth, written only by gctx; every other file under
 * `.GCC/` is generated from it. So generic tools may read anything there but never write, move,
 * delete or otherwise change it; the memory tools are the way in. This guard decides that
 * statically, before the call runs (the hook's PreToolUse, the Pi bridge's tool_call): file tools,
 * shell commands (see shell-writes), Codex patches and known MCP write tools.
 *
 * One file is let through: `.GCC/main.md`, edited with a file tool (Write, Edit, MultiEdit, a
 * patch's Add or Update File). Its header invites ticking, adding or rewording Objectives and
 * writing Notes, and gctx adopts those edits as events — what it cannot adopt it keeps aside and
 * regenerates — so an edit there corrupts nothing. Removing it (a patch's Delete File, the old
 * path of a Move to), the shell and other MCP tools are refused there as everywhere under `.GCC/`:
 * what they do to a file is not an edit that can be told apart statically.
 *
 * What cannot be decided statically (encoded payloads, paths computed at run time, programs whose
 * behaviour is defined elsewhere such as `make` or `npm run`) is allowed; the store's integrity
 * checks catch it afterwards.
 */
export interface GuardInput {
  tool: CanonicalTool;
  input: CanonicalInput;
  /** Directory the call runs in. */
  cwd: string;
  /** The memory's `.GCC/` directory, when known: deleting an ancestor of it is a write too. */
  gccDir?: string;
  /** The host's own tool name (`mcp__fs__write_file`, `apply_patch`): MCP tools are judged by it. */
  hostTool?: string;
  /**
   * Does `.GCC/events/` hold events git has not committed (ignored files included when asked)?
   * Asked only when a git command would rewrite `.GCC/` from git's copy; absent: assumed yes.
   */
  memoryUncommitted?: (opts?: { ignored?: boolean }) => boolean;
}

/** The reason to block the call, or null when it does not write into `.GCC/`. */
export function gccWriteReason(call: GuardInput): string | null {
  const hit = findGccWrite(call);
  if (!hit) return null;
  return `${hit.git ? GIT_UNCOMMITTED_REASON : GCC_WRITE_REASON} (${hit.what})`;
}

interface Hit {
  what: string;
  git?: boolean;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function findGccWrite(call: GuardInput): Hit | null {
  const { tool, input, cwd } = call;
  const gccDir = call.gccDir ?? nearestGcc(cwd);
  if (tool === 'Write' || tool === 'Edit') {
    const path = str(input.file_path) ?? str(input.path) ?? '';
    if (!path || !targetsGcc(path, cwd)) return null;
    return input.removes !== true && isMainView(path, cwd) ? null : { what: `${tool} ${path}` };
  }
  if (tool === 'Bash') {
    const command = str(input.command);
    if (!command) return null;
    // Codex runs a shell command in `workdir` when it gives one.
    const workdir = str(input.workdir);
    return judgeShell(command, workdir ? resolve(cwd, workdir) : cwd, gccDir, call);
  }
  if (!call.hostTool) return null;
  const fx = mcpEffects(call.hostTool, input);
  const patches = fx?.patches ?? (call.hostTool === 'apply_patch' ? Object.values(input).filter((v): v is string => typeof v === 'string') : []);
  for (const p of fx?.paths ?? []) if (p && targetsGcc(p, cwd)) return { what: `${call.hostTool} ${p}` };
  for (const text of patches) for (const p of patchTargets(text)) if (targetsGcc(p, cwd)) return { what: `${call.hostTool} ${p}` };
  for (const s of fx?.shell ?? []) {
    const hit = judgeShell(s.command, s.cwd ? resolve(cwd, s.cwd) : cwd, gccDir, call);
    if (hit) return hit;
  }
  return null;
}

function judgeShell(command: string, cwd: string, gccDir: string | undefined, call: GuardInput): Hit | null {
  const writes = shellWrites(command, { cwd, gccDir });
  const mem: Memory = { cwd, gccDir };
  const git: Extract<ShellWrite, { kind: 'git-restore' }>[] = [];
  for (const w of writes) {
    if (w.kind === 'decided') return { what: w.what };
    if (w.kind === 'path' && pathWriteHits(w, mem)) return { what: `writes ${describeWrite(w)}` };
    if (w.kind === 'git-restore') git.push(w);
  }
  if (!git.length) return null;
  // Run git only now, and only once: a plain write above needs no status check.
  const ignored = git.some((w) => w.ignored);
  const uncommitted = call.memoryUncommitted ? call.memoryUncommitted({ ignored }) : true;
  return uncommitted ? { what: (git[0] as ShellWrite & { what: string }).what, git: true } : null;
}

/**
 * Whether a file tool's target is a memory's `main.md` itself: `.GCC/main.md` once `~`, `..` and
 * links are resolved (a link there to another file of the memory is that file), with no other
 * `.GCC` on the way (a `.GCC/branches/x/.GCC/main.md` is no view), and not a link itself (gctx
 * never writes one there; a dangling one would be written through, wherever it points).
 */
export function isMainView(path: string, cwd: string): boolean {
  const resolved = resolveToolPath(path, cwd);
  const parts = resolved.split(/[\\/]+/);
  const n = parts.length;
  if (n < 2 || parts[n - 1] !== 'main.md' || parts[n - 2]!.toLowerCase() !== '.gcc' || parts.slice(0, n - 2).some(segmentNamesGcc)) return false;
  try {
    return !lstatSync(resolved).isSymbolicLink();
  } catch {
    return true; // not there yet: a Write creates it
  }
}

/** The nearest `.GCC/` at or above `cwd`, for a caller that did not name the memory. */
function nearestGcc(cwd: string): string | undefined {
  let dir = resolve(cwd);
  for (let i = 0; i < 64; i++) {
    const candidate = join(dir, '.GCC');
    if (existsSync(candidate)) return candidate;
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
  return undefined;
}
