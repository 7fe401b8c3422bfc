import { lstatSync } from 'node:fs';
import { resolve } from 'node:path';
import { GCC_WRITE_REASON } from '../events/guard.js';
import type { CanonicalInput, CanonicalTool } from './envelope.js';
import { GccDir, resolveFrom, resolveToolPath } from './gcc-paths.js';
import { patchTargets, shellWrite } from './shell-writes.js';

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
interface GuardInput {
  tool: CanonicalTool;
  input: CanonicalInput;
  /** Directory the call runs in. */
  cwd: string;
  /** The memory's `.GCC/` directory. */
  gccDir: string;
  /** The host's own tool name (`mcp__fs__write_file`, `apply_patch`): MCP tools are judged by it. */
  hostTool?: string;
}

/**
 * MCP tools known to write files, by their own name in snake case, whatever the user called the
 * server (`mcp__<server>__<tool>`): the official filesystem server, Desktop Commander, Serena and
 * JetBrains' built-in server. A tool not listed is not inspected; the store catches what it wrote.
 */
const MCP_FILE_TOOLS = new Set(
  (
    'write_file edit_file create_directory move_file edit_block write_pdf create_text_file replace_content ' +
    'replace_regex delete_lines replace_lines insert_at_line replace_symbol_body insert_after_symbol ' +
    'insert_before_symbol rename_symbol create_new_file replace_text_in_file reformat_file'
  ).split(' '),
);
/** Their arguments that hold a path they write, create, move or remove. */
const MCP_PATH_ARGS = 'path file_path source destination outputPath relative_path pathInProject filePath'.split(' ');
/** MCP tools that run shell code (`command`, `input`) in `cwd`. */
const MCP_SHELL_TOOLS = new Set(
  'start_process execute_command interact_with_process execute_shell_command execute_terminal_command'.split(' '),
);
/** The memory's own MCP servers: never guarded, they are the way in. */
const MEMORY_MCP_SERVERS = new Set(['gcc', 'gctx']);

/** The reason to stop the call, or null when it does not plainly write into `.GCC/`. */
export function gccWriteReason(call: GuardInput): string | null {
  const what = findWrite(call, new GccDir(call.gccDir));
  return what ? `${GCC_WRITE_REASON} (${what})` : null;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function findWrite(call: GuardInput, gcc: GccDir): string | null {
  const { tool, input, cwd, hostTool } = call;
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
  const mcp = /^mcp__(.+?)__(.+)$/.exec(hostTool ?? '');
  if (mcp && MEMORY_MCP_SERVERS.has(mcp[1]!)) return null;
  const name = mcp
    ? mcp[2]!
        .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
        .replace(/-/g, '_')
        .toLowerCase()
    : hostTool === 'apply_patch'
      ? hostTool
      : '';
  const strings = (key: string): string[] => [input[key]].flat().filter((v): v is string => typeof v === 'string');
  const inside = (p: string) =>
    gcc.inside(resolveFrom(cwd, p.replace(/^@/, ''))) ?? gcc.inside(resolveToolPath(p, cwd));
  const paths =
    name === 'apply_patch'
      ? Object.values(input)
          .filter((v) => typeof v === 'string')
          .flatMap(patchTargets)
      : [];
  if (MCP_FILE_TOOLS.has(name)) {
    paths.push(...MCP_PATH_ARGS.flatMap(strings));
    // Desktop Commander's older edit_block names its file on the first line of `blockContent`.
    paths.push(...strings('blockContent').map((s) => s.split('\n')[0]!.trim()));
  }
  for (const p of paths) if (p && inside(p) !== null) return `${hostTool} ${p}`;
  if (!MCP_SHELL_TOOLS.has(name)) return null;
  const dir = strings('cwd')[0];
  for (const command of [...strings('command'), ...strings('input')]) {
    const hit = shellWrite(command, dir ? resolve(cwd, dir) : cwd, gcc);
    if (hit) return hit;
  }
  return null;
}

/** gctx never writes a link as main.md; a dangling one would be written through, wherever it points. */
function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
