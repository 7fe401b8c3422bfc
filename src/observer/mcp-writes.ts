/**
 * MCP tools known to write files, by tool name and the arguments that hold what they write.
 * Hosts name them `mcp__<server>__<tool>` (Claude Code, Codex and Pi alike); the server name is
 * whatever the user configured, so tools are matched by their own name whatever the server is
 * called. Names are compared in snake case (`writeFile`, `write-file` and `write_file` match).
 * An MCP tool not listed here is not inspected: a server with its own write tool under another
 * name gets past the guard, and the store's integrity checks catch what it wrote.
 */

export interface McpWriteTool {
  /** Where the tool and its arguments are documented. */
  source: string;
  tools: readonly string[];
  /** Arguments holding a path the tool writes, creates, moves or removes. */
  paths?: readonly string[];
  /** Arguments whose first line is the path (Desktop Commander's older `edit_block`). */
  firstLinePaths?: readonly string[];
  /** Arguments holding shell code the tool runs, and the one holding its working directory. */
  shell?: readonly string[];
  cwd?: string;
  /** The tool applies a patch (Codex format or unified diff) found in any string argument. */
  patch?: boolean;
}

export const MCP_WRITE_TOOLS: readonly McpWriteTool[] = [
  {
    source: 'modelcontextprotocol/servers, src/filesystem (the official filesystem server)',
    tools: ['write_file', 'edit_file', 'create_directory', 'move_file'],
    paths: ['path', 'source', 'destination'],
  },
  {
    source: 'wonderwhy-er/DesktopCommanderMCP (Desktop Commander)',
    tools: ['write_file', 'edit_block', 'move_file', 'create_directory', 'write_pdf'],
    paths: ['path', 'file_path', 'source', 'destination', 'outputPath'],
    firstLinePaths: ['blockContent'],
  },
  {
    source: 'wonderwhy-er/DesktopCommanderMCP (Desktop Commander): processes and terminal commands',
    tools: ['start_process', 'execute_command', 'interact_with_process'],
    shell: ['command', 'input'],
    cwd: 'cwd',
  },
  {
    source: 'oraios/serena: file and symbol editing tools',
    tools: [
      'create_text_file',
      'replace_content',
      'replace_regex',
      'delete_lines',
      'replace_lines',
      'insert_at_line',
      'replace_symbol_body',
      'insert_after_symbol',
      'insert_before_symbol',
      'rename_symbol',
    ],
    paths: ['relative_path'],
  },
  {
    source: 'oraios/serena: execute_shell_command',
    tools: ['execute_shell_command'],
    shell: ['command'],
    cwd: 'cwd',
  },
  {
    source: "JetBrains IDEs' built-in MCP server (2025.2+)",
    tools: ['create_new_file', 'replace_text_in_file', 'reformat_file'],
    paths: ['pathInProject', 'path', 'filePath'],
  },
  {
    source: "JetBrains IDEs' built-in MCP server (2025.2+): terminal",
    tools: ['execute_terminal_command'],
    shell: ['command'],
  },
  {
    source: "Codex-format patch tools (JetBrains' apply_patch and others)",
    tools: ['apply_patch'],
    patch: true,
  },
];

/** The memory's own MCP servers: never guarded, they are the way in. */
export const MEMORY_MCP_SERVERS: readonly string[] = ['gcc', 'gctx'];

export interface McpEffects {
  paths: string[];
  shell: { command: string; cwd?: string }[];
  patches: string[];
}

/** What a host's MCP tool call writes, when it is a known writer; null otherwise. */
export function mcpEffects(
  hostTool: string,
  input: Record<string, unknown>,
  memoryServers: readonly string[] = MEMORY_MCP_SERVERS,
): McpEffects | null {
  const m = /^mcp__(.+?)__(.+)$/.exec(hostTool);
  if (!m || memoryServers.includes(m[1] as string)) return null;
  const tool = snake(m[2] as string);
  const rules = MCP_WRITE_TOOLS.filter((r) => r.tools.includes(tool));
  if (!rules.length) return null;
  const out: McpEffects = { paths: [], shell: [], patches: [] };
  const strings = (key: string): string[] => {
    const v = input[key];
    return typeof v === 'string' ? [v] : Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  };
  for (const r of rules) {
    for (const k of r.paths ?? []) out.paths.push(...strings(k));
    for (const k of r.firstLinePaths ?? []) for (const s of strings(k)) out.paths.push((s.split('\n')[0] ?? '').trim());
    const cwd = r.cwd ? strings(r.cwd)[0] : undefined;
    for (const k of r.shell ?? [])
      for (const command of strings(k)) out.shell.push(cwd ? { command, cwd } : { command });
    if (r.patch) for (const v of Object.values(input)) if (typeof v === 'string') out.patches.push(v);
  }
  return out;
}

function snake(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/-/g, '_')
    .toLowerCase();
}
