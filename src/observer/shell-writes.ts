import { readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { homedir } from 'node:os';
import { basename, type CommandEnv, NO_STDIN, type Stdin } from './command-env.js';
import { textMentionsGcc } from './gcc-paths.js';
import { functionBodies, lexShell, type Token, VAR_MARK } from './shell-lexer.js';
import type { Memory, ShellWrite, Word } from './shell-effects.js';
import { programWrites, upstreamOutput } from './shell-programs.js';
import { stripWrappers } from './shell-wrappers.js';

export type { ShellWrite, Word } from './shell-effects.js';

/**
 * Where a shell command writes. The command is lexed (shell-lexer), split into pipelines and
 * simple commands, variables it can follow are expanded (assignments, `for` lists, `read` from a
 * known input, positional words of `sh -c`), `cd`/`pushd` are applied, and each simple command is
 * handed to the rule for its program (shell-programs and the modules it calls).
 *
 * False positives cost a blocked command the model can rephrase; false negatives corrupt memory.
 * What cannot be resolved statically is reported `dynamic` and judged by whether its text names
 * `.GCC`. Text the analysis cannot read at all — a base64 payload piped into `sh`, a script
 * fetched at run time, a path computed by arithmetic — is allowed: it is caught afterwards by the
 * store's integrity checks, not here.
 */

export interface ShellContext {
  /** Absolute directory the command starts in. */
  cwd: string;
  /** The memory's `.GCC/` directory, when known. */
  gccDir?: string | undefined;
}

const MAX_DEPTH = 8;
/** Cap on the variants of one command analysed when its words have several possible values. */
const MAX_COMBINATIONS = 16;
/** Files the analysis may read for one command (scripts, patches, archives, `< file`). */
const FILE_BUDGET = 32;
const MAX_FILE_BYTES = 1 << 20;

const RESERVED = new Set(['{', '}', '!', 'if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'while', 'until', 'time', 'coproc', 'case', 'esac', 'in']);
const LOOP_OPEN = new Set(['while', 'until', 'for', 'select']);
const WRITE_REDIRECTS = new Set(['>', '>>', '>|', '&>', '&>>', '<>', '>&']);

interface Scope {
  vars: Map<string, Word[]>;
  cwd: { base: string | null; stack: (string | null)[] };
}

interface Analysis {
  mem: Memory;
  out: ShellWrite[];
  files: { left: number };
  /** Shell functions defined anywhere in the command (`f() { …; }`, `function f { …; }`), with their bodies. */
  functions: Map<string, string | null>;
}

export function shellWrites(command: string, ctx: Partial<ShellContext> = {}): ShellWrite[] {
  const an: Analysis = { mem: { cwd: ctx.cwd ?? process.cwd(), gccDir: ctx.gccDir }, out: [], files: { left: FILE_BUDGET }, functions: functionBodies(command) };
  analyze(command, 0, { vars: new Map(), cwd: { base: '', stack: [] } }, an, NO_STDIN);
  return an.out;
}

interface Command {
  tokens: Token[];
  /** The separator after it. */
  sep: string;
}

function analyze(src: string, depth: number, scope: Scope, an: Analysis, scriptStdin: Stdin): void {
  if (depth > MAX_DEPTH) {
    if (textMentionsGcc(src)) an.out.push({ kind: 'decided', what: 'shell code nested too deep to follow names .GCC' });
    return;
  }
  const { tokens, nested } = lexShell(src);
  for (const inner of nested) analyze(inner, depth + 1, child(scope), an, NO_STDIN);

  const commands: Command[] = [];
  let current: Token[] = [];
  for (const t of tokens) {
    if (t.kind === 'sep' && t.op !== '(' && t.op !== ')') {
      commands.push({ tokens: current, sep: t.op });
      current = [];
    } else if (t.kind !== 'sep') current.push(t);
  }
  commands.push({ tokens: current, sep: ';' });

  // Loops: the input of `while read x; do …; done < file` is known only at `done`.
  const frames: Stdin[] = [];
  let pipeline: Command[] = [];
  for (let i = 0; i < commands.length; i++) {
    const cmd = commands[i] as Command;
    const lead = leadingReserved(cmd.tokens);
    for (const word of lead) {
      if (word === 'while' || word === 'until') frames.push(loopInput(commands, i, scope, an));
      else if (word === 'done') frames.pop();
    }
    const upstream = pipeline.length ? pipelineOutput(pipeline, depth, scope, an) : null;
    const stdin = upstream ?? (i === 0 && scriptStdin.present ? scriptStdin : NO_STDIN);
    simpleCommand(cmd.tokens, depth, scope, an, stdin, frames.at(-1) ?? NO_STDIN);
    if (cmd.sep === '|' || cmd.sep === '|&') pipeline.push(cmd);
    else pipeline = [];
  }
}

function child(scope: Scope): Scope {
  return { vars: new Map(scope.vars), cwd: { base: scope.cwd.base, stack: [...scope.cwd.stack] } };
}

function leadingReserved(tokens: Token[]): string[] {
  const out: string[] = [];
  for (const t of tokens) {
    if (t.kind !== 'word' || !(RESERVED.has(t.text) || LOOP_OPEN.has(t.text))) break;
    out.push(t.text);
    if (LOOP_OPEN.has(t.text)) break;
  }
  return out;
}

/** The text fed to a `while`/`until` loop: redirections on its `done`, and what is piped into it. */
function loopInput(commands: Command[], start: number, scope: Scope, an: Analysis): Stdin {
  let depth = 0;
  for (let i = start; i < commands.length; i++) {
    for (const w of leadingReserved((commands[i] as Command).tokens)) {
      if (LOOP_OPEN.has(w)) depth++;
      else if (w === 'done' && --depth === 0) return ownStdin((commands[i] as Command).tokens, scope, an);
    }
  }
  return NO_STDIN;
}

/** Expand one word: every value its variables may hold (bounded), quotes already removed. */
function expandWord(t: Extract<Token, { kind: 'word' }>, scope: Scope, an: Analysis): Word[] {
  const parts = t.text.split(new RegExp(`${VAR_MARK}([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*])${VAR_MARK}`));
  let results: Word[] = [{ text: '', dynamic: t.dynamic }];
  for (let k = 0; k < parts.length; k++) {
    const part = parts[k] as string;
    let options: Word[];
    if (k % 2 === 0) options = [{ text: part, dynamic: false }];
    else options = variable(part, scope, an);
    const next: Word[] = [];
    for (const r of results) for (const o of options) if (next.length < MAX_COMBINATIONS) next.push({ text: r.text + o.text, dynamic: r.dynamic || o.dynamic });
    results = next;
  }
  return results;
}

function variable(name: string, scope: Scope, an: Analysis): Word[] {
  const known = scope.vars.get(name);
  if (known?.length) return known;
  if (name === 'HOME') return [{ text: homedir(), dynamic: false }];
  if (name === 'PWD' && scope.cwd.base !== null) return [{ text: resolve(an.mem.cwd, scope.cwd.base), dynamic: false }];
  // Unknown: keep the spelling, so `$X/.GCC/y` still names .GCC.
  return [{ text: `$${name}`, dynamic: true }];
}

/** What the commands before a pipe feed the next one, as far as their words tell. */
function pipelineOutput(pipeline: Command[], depth: number, scope: Scope, an: Analysis): Stdin {
  const stages = pipeline.map((c) => {
    const words: Word[] = [];
    for (let k = 0; k < c.tokens.length; k++) {
      const t = c.tokens[k] as Token;
      if (t.kind === 'redir') k++;
      else if (t.kind === 'word') words.push(expandWord(t, scope, an)[0] as Word);
    }
    while (words.length && (RESERVED.has((words[0] as Word).text) || /^[A-Za-z_][A-Za-z0-9_]*=/.test((words[0] as Word).text))) words.shift();
    return { words, own: ownStdin(c.tokens, scope, an) };
  });
  return upstreamOutput(stages, (name, args, stdin) => commandEnv(name, args, depth, scope, { ...an, out: [] }, stdin));
}

/** Standard input from a command's own redirections: here-documents, here-strings, `< file`. */
function ownStdin(tokens: Token[], scope: Scope, an: Analysis): Stdin {
  const texts: string[] = [];
  let exact = true;
  let present = false;
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k] as Token;
    if (t.kind === 'heredoc') {
      texts.push(t.body);
      present = true;
    } else if (t.kind === 'redir' && (t.op === '<<<' || t.op === '<') && tokens[k + 1]?.kind === 'word') {
      const w = expandWord(tokens[++k] as Extract<Token, { kind: 'word' }>, scope, an)[0] as Word;
      present = true;
      if (t.op === '<<<') texts.push(w.text);
      else {
        const content = readLocal(w, scope, an);
        texts.push(content ?? w.text);
        if (content === null) exact = false;
      }
    }
  }
  return { text: texts.join('\n'), exact: present && exact, present };
}

function readLocal(w: Word, scope: Scope, an: Analysis, maxBytes = MAX_FILE_BYTES): string | null {
  if (w.dynamic || an.files.left <= 0 || scope.cwd.base === null) return null;
  let p = w.text;
  if (p === '~' || p.startsWith('~/')) p = homedir() + p.slice(1);
  const abs = isAbsolute(p) ? p : resolve(an.mem.cwd, scope.cwd.base, p);
  try {
    const st = statSync(abs);
    if (!st.isFile() || st.size > maxBytes) return null;
    an.files.left--;
    return readFileSync(abs, 'latin1');
  } catch {
    return null;
  }
}

function simpleCommand(tokens: Token[], depth: number, scope: Scope, an: Analysis, piped: Stdin, frame: Stdin): void {
  const words: Word[][] = [];
  const base = () => scope.cwd.base;
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k] as Token;
    if (t.kind === 'redir') {
      const next = tokens[k + 1];
      if (next?.kind !== 'word') continue;
      k++;
      for (const target of expandWord(next, scope, an)) {
        // `2>&1`, `>&-`: descriptor duplication, not a file.
        const isDup = (t.op === '>&' || t.op === '<&') && /^(?:[0-9]+|-)$/.test(target.text);
        if (WRITE_REDIRECTS.has(t.op) && !isDup) an.out.push({ kind: 'path', target: target.text, base: base(), dynamic: target.dynamic, recursive: false });
      }
    } else if (t.kind === 'word') words.push(expandWord(t, scope, an));
  }
  const own = ownStdin(tokens, scope, an);
  const stdin = mergeStdin(own, piped, frame);

  // Reserved words in front of a command (`{ rm x; }`, `then rm x`) are grammar, not the command.
  while (words.length && RESERVED.has((words[0] as Word[])[0]?.text ?? '')) words.shift();
  const first = (words[0] as Word[] | undefined)?.[0]?.text;
  if (first === 'for' || first === 'select') {
    bindLoop(words, scope);
    return;
  }
  // Leading assignments: alone they set shell variables; before a command, only its env.
  let start = 0;
  while (start < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test((words[start] as Word[])[0]?.text ?? '')) start++;
  if (start === words.length) {
    for (const w of words) assign(w, scope);
    return;
  }
  for (const combo of combinations(words.slice(start))) runCommand(combo, depth, scope, an, stdin);
}

function mergeStdin(own: Stdin, piped: Stdin, frame: Stdin): Stdin {
  const parts = [own, piped, frame].filter((s) => s.present);
  if (!parts.length) return NO_STDIN;
  return { text: parts.map((s) => s.text).join('\n'), exact: parts.length === 1 && (parts[0] as Stdin).exact, present: true };
}

function bindLoop(words: Word[][], scope: Scope): void {
  const name = (words[1] as Word[] | undefined)?.[0]?.text;
  if (!name || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return;
  const inAt = words.findIndex((w, k) => k >= 2 && w[0]?.text === 'in');
  const values = inAt >= 0 ? words.slice(inAt + 1).flat() : (scope.vars.get('@') ?? [{ text: '$@', dynamic: true }]);
  scope.vars.set(name, values.length ? values : [{ text: '', dynamic: true }]);
}

function assign(alternatives: Word[], scope: Scope): void {
  const first = alternatives[0];
  if (!first) return;
  const eq = first.text.indexOf('=');
  if (eq <= 0) return;
  const name = first.text.slice(0, eq).replace(/\+$/, '');
  scope.vars.set(
    name,
    alternatives.map((w) => ({ text: w.text.slice(w.text.indexOf('=') + 1), dynamic: w.dynamic })),
  );
}

/** Every combination of the words' possible values, bounded; `.GCC`-naming values first. */
function combinations(words: Word[][]): Word[][] {
  let out: Word[][] = [[]];
  for (const options of words) {
    const sorted = [...options].sort((a, b) => Number(textMentionsGcc(b.text)) - Number(textMentionsGcc(a.text)));
    const next: Word[][] = [];
    for (const prefix of out) for (const o of sorted) if (next.length < MAX_COMBINATIONS) next.push([...prefix, o]);
    out = next;
  }
  return out;
}

function runCommand(words: Word[], depth: number, scope: Scope, an: Analysis, stdin: Stdin): void {
  const unwrapped = stripWrappers(words, {
    chdir: (dir) => {
      scope.cwd.base = changeDir(scope.cwd.base, dir);
    },
    nested: (src) => analyze(src, depth + 1, child(scope), an, NO_STDIN),
    write: (w) => an.out.push({ kind: 'path', target: w.text, base: scope.cwd.base, dynamic: w.dynamic, recursive: false }),
  });
  if (!unwrapped) return;
  const [head, ...args] = unwrapped;
  if (!head) return;
  const name = basename(head.text);
  const cwd = scope.cwd;

  switch (name) {
    case 'export':
    case 'declare':
    case 'local':
    case 'readonly':
    case 'typeset':
      for (const w of args) assign([w], scope);
      return;
    case 'cd':
    case 'pushd': {
      if (name === 'pushd') cwd.stack.push(cwd.base);
      const dir = args.find((w) => !w.text.startsWith('-') || w.text === '-');
      cwd.base = changeDir(cwd.base, dir);
      return;
    }
    case 'popd':
      cwd.base = cwd.stack.length ? (cwd.stack.pop() ?? null) : null;
      return;
    case 'read':
    case 'mapfile':
    case 'readarray': {
      // The names get whatever the input holds: its text, marked unknowable.
      const fed: Word = { text: stdin.text, dynamic: true };
      const skip = new Set(['-d', '-n', '-N', '-p', '-t', '-u', '-C', '-c', '-O', '-s', '-i']);
      for (let k = 0; k < args.length; k++) {
        const t = (args[k] as Word).text;
        if (skip.has(t)) k++;
        else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(t)) scope.vars.set(t, [fed]);
      }
      return;
    }
    case 'eval':
      if (args.some((w) => w.dynamic) && args.some((w) => textMentionsGcc(w.text))) an.out.push({ kind: 'decided', what: 'evaluates code built at run time that names .GCC' });
      else analyze(args.map((w) => w.text).join(' '), depth + 1, scope, an, stdin);
      return;
    case 'source':
    case '.': {
      const script = args[0] ? readLocal(args[0], scope, an) : null;
      if (script !== null) analyze(script, depth + 1, withPositional(scope, args.slice(1), args[0]), an, NO_STDIN);
      else if (args[0] && textMentionsGcc(args[0].text)) an.out.push({ kind: 'decided', what: `sources ${args[0].text}` });
      return;
    }
  }
  // A shell function defined in the same command runs its body with these words as $1, $2 …
  const body = an.functions.get(name);
  if (body !== undefined && !head.dynamic) {
    if (body !== null) analyze(body, depth + 1, withPositional(scope, args, head), an, stdin);
    else if (args.some((w) => textMentionsGcc(w.text))) an.out.push({ kind: 'decided', what: `hands a .GCC path to the shell function ${name}` });
    return;
  }
  // A command whose name is computed (`$CMD`, `$(…)`): a `.GCC` path handed to it counts as written.
  if (head.dynamic && args.some((w) => textMentionsGcc(w.text))) {
    an.out.push({ kind: 'decided', what: 'hands a .GCC path to a command computed at run time' });
    return;
  }
  programWrites(commandEnv(name, args, depth, scope, an, stdin));
}

function changeDir(base: string | null, dir: Word | undefined): string | null {
  if (!dir || dir.dynamic || dir.text === '-') return null;
  if (dir.text === '~' || dir.text.startsWith('~/')) return homedir() + dir.text.slice(1);
  if (isAbsolute(dir.text)) return dir.text;
  return base === null ? null : join(base, dir.text);
}

function withPositional(scope: Scope, positional: Word[], zero?: Word): Scope {
  const s = child(scope);
  if (zero) s.vars.set('0', [zero]);
  positional.forEach((w, k) => s.vars.set(String(k + 1), [w]));
  s.vars.set('@', positional.length ? positional : [{ text: '', dynamic: false }]);
  s.vars.set('*', positional.length ? positional : [{ text: '', dynamic: false }]);
  return s;
}

function commandEnv(name: string, args: Word[], depth: number, scope: Scope, an: Analysis, stdin: Stdin): CommandEnv {
  const base = scope.cwd.base;
  return {
    name,
    args,
    base,
    mem: an.mem,
    stdin,
    depth,
    write: (w, recursive = false) => an.out.push({ kind: 'path', target: w.text, base, dynamic: w.dynamic, recursive }),
    decided: (what) => an.out.push({ kind: 'decided', what }),
    gitRestore: (what, ignored = false) => an.out.push({ kind: 'git-restore', what, ignored }),
    nested: (src, positional) => analyze(src, depth + 1, positional ? withPositional(scope, positional.slice(1), positional[0]) : child(scope), an, NO_STDIN),
    probe: (words) => {
      const sub: Analysis = { mem: an.mem, out: [], files: an.files, functions: an.functions };
      if (depth + 1 <= MAX_DEPTH) runCommand(words, depth + 1, child(scope), sub, NO_STDIN);
      return sub.out;
    },
    report: (writes) => an.out.push(...writes),
    readFile: (w, maxBytes) => readLocal(w, scope, an, maxBytes),
    absolute: (w) => {
      if (w.dynamic || base === null) return null;
      let p = w.text;
      if (p === '~' || p.startsWith('~/')) p = homedir() + p.slice(1);
      return isAbsolute(p) ? resolve(p) : resolve(an.mem.cwd, base, p);
    },
  };
}

