/**
 * Host tool calls → the canonical vocabulary of src/observer/envelope.ts, for every host. Claude
 * Code's names are already canonical; its input shapes differ only for edits (one old/new pair,
 * MultiEdit's list, notebooks). Codex reports its shell as `Bash` and file edits as
 * `apply_patch`. Pi names its tools in lowercase, a file as `path` and edits as
 * `{oldText, newText}`. The memory's own tools (MCP's `mcp__gcc__…`, Pi's in-process `gcc_…`)
 * map to `Memory`, which the hook logic never logs twice and never takes for a file tool.
 */
import type { CanonicalInput, CanonicalTool, FileState } from '../../observer/envelope.js';
import { parsePatch } from './apply-patch.js';

/** Servers whose MCP tools are this memory's (`mcp__<server>__<tool>`); override with GCC_MCP_SERVERS. */
export function memoryServers(env: NodeJS.ProcessEnv = process.env): string[] {
  const extra = (env.GCC_MCP_SERVERS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return ['gcc', 'gctx', ...extra];
}

export interface CanonicalCall {
  tool: CanonicalTool;
  input: CanonicalInput;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

const SAME_NAME: Record<string, CanonicalTool> = {
  Read: 'Read',
  Write: 'Write',
  Bash: 'Bash',
  Grep: 'Grep',
  Glob: 'Glob',
  WebFetch: 'WebFetch',
  WebSearch: 'WebSearch',
  Task: 'Task',
  Agent: 'Task',
};

/** One host call as canonical calls: usually one; a multi-file patch gives one per file. */
export function canonicalCalls(name: string, rawInput: unknown, servers: readonly string[]): CanonicalCall[] {
  const input: Obj = isObj(rawInput) ? rawInput : {};
  const mcp = /^mcp__(.+?)__/.exec(name);
  if (mcp) return [{ tool: servers.includes(mcp[1]!) ? 'Memory' : 'Other', input }];
  if (name.startsWith('gcc_')) return [{ tool: 'Memory', input }];
  const path = str(input.path) === undefined ? {} : { file_path: str(input.path) };
  switch (name) {
    case 'read':
      return [{ tool: 'Read', input: { ...input, ...path } }];
    case 'write':
      return [{ tool: 'Write', input: { ...input, ...path } }];
    case 'edit':
      return [{ tool: 'Edit', input: { ...input, ...path, edits: piEdits(input) } }];
    case 'bash':
      return [{ tool: 'Bash', input }];
    case 'grep':
      return [{ tool: 'Grep', input }];
    case 'find':
    case 'ls':
      return [{ tool: 'Glob', input: name === 'ls' ? { pattern: '*', path: str(input.path) ?? '.' } : input }];
    case 'Edit':
      return [
        {
          tool: 'Edit',
          input: {
            ...input,
            edits: [{ old_string: str(input.old_string) ?? '', new_string: str(input.new_string) ?? '' }],
          },
        },
      ];
    case 'MultiEdit': {
      const edits = Array.isArray(input.edits)
        ? input.edits
            .filter(isObj)
            .map((e) => ({ old_string: str(e.old_string) ?? '', new_string: str(e.new_string) ?? '' }))
        : [];
      return [{ tool: 'Edit', input: { ...input, edits } }];
    }
    case 'NotebookEdit':
      return [
        {
          tool: 'Edit',
          input: {
            ...input,
            file_path: str(input.notebook_path) ?? '',
            edits: [{ old_string: '', new_string: str(input.new_source) ?? '' }],
          },
        },
      ];
    case 'Bash':
    case 'shell':
    case 'exec_command':
      // Codex's exec_command names it `cmd`; its shell tool sends argv.
      return [{ tool: 'Bash', input: { ...input, command: shellCommand(input.command ?? input.cmd) } }];
    case 'apply_patch': {
      const body = str(input.command) ?? str(input.patch) ?? str(input.input) ?? '';
      const files = parsePatch(body);
      if (!files.length) return [{ tool: 'Other', input: { command: body } }];
      // One call per path the patch writes, so the write guard sees each of them.
      // A deleted file, and the old path of a moved one, are marked as taken away: the guard lets
      // an edit of .GCC/main.md through, never its removal.
      return files.flatMap((f) => {
        const paths = f.moveTo ? [f.path, f.moveTo] : [f.path];
        return paths.map((p): CanonicalCall => {
          if (f.op === 'add') return { tool: 'Write', input: { file_path: p, content: f.after ?? '' } };
          const removes = f.op === 'delete' || (f.moveTo !== undefined && p === f.path);
          return {
            tool: 'Edit',
            input: {
              file_path: p,
              edits: [{ old_string: f.before ?? '', new_string: f.after ?? '' }],
              ...(removes ? { removes: true } : {}),
            },
          };
        });
      });
    }
    default:
      return [{ tool: SAME_NAME[name] ?? 'Other', input }];
  }
}

/**
 * Pi's edit input, normalised the way Pi's own edit tool does before running: `edits` may come
 * as a JSON string, as one object, or as legacy top-level `oldText`/`newText`.
 */
function piEdits(input: Obj): { old_string: string; new_string: string }[] {
  let edits: unknown = input.edits;
  if (typeof edits === 'string') {
    try {
      edits = JSON.parse(edits);
    } catch {
      edits = [];
    }
  }
  const list = Array.isArray(edits) ? [...edits] : isObj(edits) ? [edits] : [];
  if (typeof input.oldText === 'string' && typeof input.newText === 'string') list.push(input);
  return list
    .filter((e): e is Obj => isObj(e) && typeof e.oldText === 'string' && typeof e.newText === 'string')
    .map((e) => ({ old_string: e.oldText as string, new_string: e.newText as string }));
}

/** Codex has sent the shell command both as a string and as argv (`["bash","-lc","…"]`). */
function shellCommand(v: unknown): string {
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) {
    const argv = v as string[];
    if (argv.length === 3 && /(^|\/)(ba|z|da)?sh$/.test(argv[0]!) && (argv[1] === '-lc' || argv[1] === '-c'))
      return argv[2]!;
    return argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
  }
  return '';
}

/**
 * File contents around the call, where the host's result says: Claude Code's Write/Edit results
 * carry a `structuredPatch` (hunks of ' ', '-', '+' lines) and a create/update type; a Codex
 * patch carries both sides itself. Without these, counts come from the input alone.
 */
export function fileStatesFrom(name: string, rawInput: unknown, response: unknown): FileState[] | undefined {
  const input: Obj = isObj(rawInput) ? rawInput : {};
  if (name === 'apply_patch') {
    const files = parsePatch(str(input.command) ?? str(input.patch) ?? str(input.input) ?? '');
    return files.length
      ? files.map((f) => ({ path: f.moveTo ?? f.path, before: f.before, after: f.after }))
      : undefined;
  }
  if (!isObj(response)) return undefined;
  const path = str(response.filePath) ?? str(input.file_path) ?? str(input.notebook_path);
  if (!path) return undefined;
  if (name === 'Write' && response.type === 'create')
    return [{ path, before: null, after: str(input.content) ?? str(response.content) ?? '' }];
  if (Array.isArray(response.structuredPatch)) {
    const before: string[] = [];
    const after: string[] = [];
    for (const hunk of response.structuredPatch) {
      if (!isObj(hunk) || !Array.isArray(hunk.lines)) continue;
      for (const line of hunk.lines) {
        if (typeof line !== 'string') continue;
        if (line.startsWith('+')) after.push(line.slice(1));
        else if (line.startsWith('-')) before.push(line.slice(1));
        else {
          before.push(line.slice(1));
          after.push(line.slice(1));
        }
      }
    }
    return [{ path, before: before.join('\n'), after: after.join('\n') }];
  }
  return undefined;
}

/** Keys of a tool result that repeat the input or the whole file: left out of the log. */
/** What a structured result repeats of the input, or carries for the host's own display. */
const BULKY = new Set(['originalFile', 'structuredPatch', 'content', 'oldString', 'newString', 'originalFileContents']);
const ECHOED = new Set(['filePath', 'file_path', 'notebook_path', 'path']);
/** Flags that say nothing when they hold their usual value. */
const QUIET: Record<string, unknown> = {
  userModified: false,
  replaceAll: false,
  replace_all: false,
  interrupted: false,
  isImage: false,
  type: undefined,
};

/**
 * A structured result without what the log already has: the file it names, bulk, default flags; paths under `cwd`
 * relative.
 */
function quiet(value: unknown, cwd: string | undefined, depth = 0): unknown {
  if (typeof value === 'string') return cwd && value.startsWith(`${cwd}/`) ? value.slice(cwd.length + 1) : value;
  if (Array.isArray(value)) return depth > 4 ? value : value.map((v) => quiet(v, cwd, depth + 1));
  if (!isObj(value) || depth > 4) return value;
  const out: Record<string, unknown> = {};
  // A whole file read says nothing the input did not: its line counts go with it.
  const whole = value.startLine === 1 && typeof value.numLines === 'number' && value.numLines === value.totalLines;
  for (const [k, v] of Object.entries(value)) {
    if (whole && (k === 'startLine' || k === 'numLines' || k === 'totalLines')) continue;
    if (BULKY.has(k) || ECHOED.has(k)) continue;
    if (Object.hasOwn(QUIET, k) && (QUIET[k] === v || (k === 'type' && typeof v === 'string'))) continue;
    const q = quiet(v, cwd, depth + 1);
    if (isObj(q) && Object.keys(q).length === 0) continue;
    out[k] = q;
  }
  return out;
}

/**
 * The text of a tool result for the log, and whether the host marked it as failed. `cwd`: the
 * project the host ran in, so paths in the result are written relative to it, as inputs are.
 */
export function resultText(response: unknown, cwd?: string): { text: string; isError: boolean } {
  if (response === undefined || response === null) return { text: '', isError: false };
  if (typeof response === 'string') return { text: response, isError: false };
  if (!isObj(response)) return { text: JSON.stringify(quiet(response, cwd)), isError: false };
  const isError = response.is_error === true || response.isError === true || response.success === false;
  if (typeof response.stdout === 'string' || typeof response.stderr === 'string') {
    const out = str(response.stdout) ?? '';
    const err = str(response.stderr) ?? '';
    const tail = response.interrupted === true ? '\n[interrupted]' : '';
    return { text: `${out}${err ? `${out ? '\n' : ''}[stderr]\n${err}` : ''}${tail}`, isError };
  }
  if (typeof response.output === 'string') return { text: response.output, isError };
  const slim = quiet(response, cwd) as Record<string, unknown>;
  const keys = Object.keys(slim);
  if (keys.length === 0) return { text: '', isError };
  const only = keys.length === 1 ? slim[keys[0]!] : undefined;
  return {
    text: typeof only === 'string' || typeof only === 'number' ? `${keys[0]}: ${only}` : JSON.stringify(slim),
    isError,
  };
}
