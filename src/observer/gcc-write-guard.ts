import { isAbsolute, join, resolve, sep } from 'node:path';
import type { CanonicalInput, CanonicalTool } from './envelope.js';
import { pathMentionsGcc, resolveToolPath, targetsGcc, textMentionsGcc } from './gcc-paths.js';
import { shellWrites, type ShellWrite } from './shell-writes.js';

/**
 * The `.GCC/` files are projections of the event log: a direct write is either overwritten on the
 * next append or, worse, makes the tree disagree with its log. So generic file tools may read
 * them but never write them; the memory tools are the way in.
 */
export const GCC_WRITE_REASON =
  'The files under .GCC/ are generated from the memory log; writing them directly would corrupt it. ' +
  'Use the memory tools instead (commit, branch, merge, roadmap — gcc_* in Pi, mcp__gcc__* over MCP — or `gctx` on the command line).';

export interface GuardInput {
  tool: CanonicalTool;
  input: CanonicalInput;
  /** Directory the call runs in. */
  cwd: string;
  /** The memory's `.GCC/` directory, when known: deleting an ancestor of it is a write too. */
  gccDir?: string;
}

/** The reason to block the call, or null when it does not write into `.GCC/`. */
export function gccWriteReason(call: GuardInput): string | null {
  const hit = findGccWrite(call);
  return hit ? `${GCC_WRITE_REASON} (${hit})` : null;
}

function findGccWrite({ tool, input, cwd, gccDir }: GuardInput): string | null {
  if (tool === 'Write' || tool === 'Edit') {
    const path = typeof input.file_path === 'string' ? input.file_path : typeof input.path === 'string' ? input.path : '';
    return path && targetsGcc(path, cwd) ? `${tool} ${path}` : null;
  }
  if (tool === 'Bash') {
    const command = typeof input.command === 'string' ? input.command : '';
    if (!command) return null;
    for (const w of shellWrites(command)) {
      if (writeHitsGcc(w, cwd, gccDir)) return `writes ${describe(w)}`;
    }
  }
  return null;
}

function writeHitsGcc(w: ShellWrite, cwd: string, gccDir: string | undefined): boolean {
  if (w.how === 'inline-script') return true;
  // A substitution's text is kept in the target, so `$(echo .GCC)/x` still mentions it.
  if (w.dynamic) return textMentionsGcc(w.target);
  if (pathMentionsGcc(w.target)) return true;
  if (w.base === null) return isAbsolute(w.target) && targetsGcc(w.target, cwd);
  const relative = isAbsolute(w.target) ? w.target : join(w.base || '.', w.target);
  if (targetsGcc(relative, cwd)) return true;
  if (w.recursive && gccDir) {
    const victim = resolveToolPath(relative, cwd);
    const memory = resolve(gccDir);
    return memory === victim || memory.startsWith(victim.endsWith(sep) ? victim : victim + sep);
  }
  return false;
}

function describe(w: ShellWrite): string {
  const t = w.target.length > 120 ? `${w.target.slice(0, 117)}...` : w.target;
  return w.how === 'inline-script' ? 'into .GCC/ from an inline script' : t;
}
