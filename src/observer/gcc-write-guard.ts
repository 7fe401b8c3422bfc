import { lstatSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { GCC_WRITE_REASON } from '../events/guard.js';
import type { CanonicalInput, CanonicalTool } from './envelope.js';
import { GccDir, resolveFrom, resolveToolPath } from './gcc-paths.js';
import { mcpEffects } from './mcp-writes.js';
import { patchTargets } from './patch-targets.js';
import { simpleCommands, type Word } from './shell-commands.js';
import { commandWrites } from './shell-writes.js';

export { GCC_WRITE_REASON };

/**
 * `.GCC/` is written through the memory tools. This guard tells an agent so, before the call runs
 * (the hook's PreToolUse, the Pi bridge's tool_call), when a call plainly writes there: a file
 * tool (Write, Edit, a patch, an MCP server's write tool) whose target is inside the memory's
 * `.GCC/`, or a shell command naming a path there in a writing position (see shell-writes).
 * It is a courtesy, not the safety net: what it does not see, the store restores or reports.
 *
 * One file is let through: `.GCC/main.md`, edited with a file tool. Its header invites ticking,
 * adding or rewording Objectives and writing Notes, and gctx adopts those edits as events. Its
 * removal (a patch's Delete File, the old path of a Move to) and the shell are refused there as
 * everywhere under `.GCC/`.
 */
export interface GuardInput {
  tool: CanonicalTool;
  input: CanonicalInput;
  /** Directory the call runs in. */
  cwd: string;
  /** The memory's `.GCC/` directory. */
  gccDir: string;
  /** The host's own tool name (`mcp__fs__write_file`, `apply_patch`): MCP tools are judged by it. */
  hostTool?: string;
}

/** The reason to stop the call, or null when it does not plainly write into `.GCC/`. */
export function gccWriteReason(call: GuardInput): string | null {
  const what = findWrite(call, new GccDir(call.gccDir));
  return what ? `${GCC_WRITE_REASON} (${what})` : null;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function findWrite(call: GuardInput, gcc: GccDir): string | null {
  const { tool, input, cwd } = call;
  if (tool === 'Write' || tool === 'Edit') {
    const path = str(input.file_path) ?? str(input.path) ?? '';
    if (!path) return null;
    const real = resolveToolPath(path, cwd);
    const [asWritten, resolved] = [gcc.inside(resolveFrom(cwd, path.replace(/^@/, ''))), gcc.inside(real)];
    if (asWritten === null && resolved === null) return null;
    const main = (asWritten ?? 'main.md') === 'main.md' && resolved === 'main.md';
    const mainView = input.removes !== true && main && !isLink(real);
    return mainView ? null : `${tool} ${path}`;
  }
  if (tool === 'Bash') {
    const command = str(input.command);
    // Codex runs a shell command in `workdir` when it gives one.
    const workdir = str(input.workdir);
    return command ? shellWrite(command, workdir ? resolve(cwd, workdir) : cwd, gcc) : null;
  }
  if (!call.hostTool) return null;
  const fx = mcpEffects(call.hostTool, input);
  const strings = Object.values(input).filter((v): v is string => typeof v === 'string');
  const patches = fx?.patches ?? (call.hostTool === 'apply_patch' ? strings : []);
  for (const p of fx?.paths ?? []) if (p && fileInside(p, cwd, gcc) !== null) return `${call.hostTool} ${p}`;
  for (const text of patches) {
    for (const p of patchTargets(text)) if (fileInside(p, cwd, gcc) !== null) return `${call.hostTool} ${p}`;
  }
  for (const s of fx?.shell ?? []) {
    const hit = shellWrite(s.command, s.cwd ? resolve(cwd, s.cwd) : cwd, gcc);
    if (hit) return hit;
  }
  return null;
}

/** Where in `.GCC/` a file tool's target lands, as written or once links are followed; null: outside. */
function fileInside(path: string, cwd: string, gcc: GccDir): string | null {
  return gcc.inside(resolveFrom(cwd, path.replace(/^@/, ''))) ?? gcc.inside(resolveToolPath(path, cwd));
}

/** A shell command's first plain write into `.GCC/`; a nested `sh -c` is read one level deep. */
function shellWrite(command: string, cwd: string, gcc: GccDir, depth = 0): string | null {
  // A plain write lands in .GCC/ only through a word naming it, or from a directory inside it.
  if (!/\.gcc/i.test(command) && gcc.inside(cwd) === null) return null;
  const lands = (dir: string | undefined, path: string) => {
    if (isAbsolute(path) || path.startsWith('~')) return gcc.inside(resolveFrom('/', path));
    return dir === undefined ? null : gcc.inside(resolveFrom(dir, path));
  };
  let patch: string[] | undefined;
  for (const cmd of simpleCommands(command, cwd, moveDir)) {
    const w = commandWrites(cmd);
    for (const x of w.writes) if ((!x.named || namesGcc(x.path)) && lands(x.cwd, x.path) !== null) return x.what;
    // Codex's apply_patch: the patch is in the command's text (an argument or a heredoc).
    if (w.patch) {
      for (const p of (patch ??= patchTargets(command))) if (lands(w.patch.cwd, p) !== null) return `apply_patch ${p}`;
    }
    const hit = w.nested && depth < 1 ? shellWrite(w.nested.command, w.nested.cwd ?? '', gcc, depth + 1) : null;
    if (hit) return hit;
  }
  return null;
}

/** Where a plain `cd` goes; undefined when it is not plain (`cd "$X"`, `cd -`). */
function moveDir(cwd: string | undefined, dir: Word): string | undefined {
  if (dir === null || dir === '-') return undefined;
  if (isAbsolute(dir) || dir === '~' || dir.startsWith('~/')) return resolveFrom('/', dir);
  return cwd === undefined ? undefined : resolve(cwd, dir);
}

const namesGcc = (path: string) => path.split('/').some((s) => s.toLowerCase() === '.gcc');

/** gctx never writes a link as main.md; a dangling one would be written through, wherever it points. */
function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
