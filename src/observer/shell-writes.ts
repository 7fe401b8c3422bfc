import { isAbsolute, join } from 'node:path';
import { lexShell, type Token, VAR_MARK } from './shell-lexer.js';
import { textMentionsGcc } from './gcc-paths.js';

/**
 * Where a shell command writes. The answer is a list of targets as the shell would see them
 * (variables it can follow expanded, `cd` applied), each with how it was found. False positives
 * cost a blocked command the model can rephrase; false negatives corrupt memory, so anything
 * that cannot be resolved statically is reported `dynamic` and judged by the caller.
 */
export interface ShellWrite {
  target: string;
  /** Directory the target is relative to, from earlier `cd`s; null when it cannot be known. */
  base: string | null;
  how: 'redirect' | 'command' | 'inline-script';
  /** The target could not be resolved statically (substitution, unknown variable). */
  dynamic: boolean;
  /** rm -r / find -delete: deleting an ancestor of `.GCC/` deletes it too. */
  recursive: boolean;
}

const MAX_DEPTH = 8;

const WRITE_REDIRECTS = new Set(['>', '>>', '>|', '&>', '&>>', '<>', '>&']);

/** Every non-option argument is written, created, moved or removed. */
const ALL_ARGS = new Set([
  'rm', 'rmdir', 'unlink', 'shred', 'touch', 'truncate', 'mkdir', 'chmod', 'chown', 'chgrp', 'ln',
  'mv', 'install', 'tee', 'rename', 'chattr', 'setfacl', 'mkfifo', 'mknod', 'split', 'csplit',
  'patch', 'srm', 'trash', 'trash-put', 'gio',
]);
/** The last non-option argument (or `-t DIR`) is the destination. */
const LAST_ARG = new Set(['cp', 'rsync', 'scp', 'ditto']);
/** Write in place only with -i / --in-place. */
const IN_PLACE = new Set(['sed', 'gsed', 'perl', 'ruby', 'gawk', 'awk']);
/** Run their argument as shell code. */
const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'fish', 'busybox']);
/** Run inline code in another language; judged by what the code mentions. */
const INTERPRETERS = new Set(['python', 'python2', 'python3', 'node', 'nodejs', 'deno', 'bun', 'perl', 'ruby', 'php', 'lua', 'Rscript', 'osascript', 'pwsh', 'tsx', 'ts-node']);
const CODE_FLAGS = new Set(['--eval', '--print', '-p', '-r', '-Command', '-command', '--command']);
/** Prefixes that run the rest of the words as a command. */
const WRAPPERS = new Set(['sudo', 'doas', 'env', 'nice', 'nohup', 'time', 'command', 'builtin', 'exec', 'stdbuf', 'timeout', 'ionice', 'chronic', 'unbuffer', 'xargs', 'parallel', 'watch', 'strace', 'ltrace', 'flock']);
const RESERVED = new Set(['{', '}', '!', 'if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'while', 'until', 'time', 'coproc']);
/** Git subcommands that change files in the work tree. */
const GIT_WRITES = new Set(['checkout', 'restore', 'rm', 'mv', 'clean', 'apply', 'am', 'stash', 'switch', 'reset', 'merge-file', 'cherry-pick', 'revert']);

// Code that writes or deletes, in the usual scripting languages.
const WRITE_CODE =
  /open\s*\(|write|unlink|remove|rmtree|rmSync|\.rm\s*\(|rename|replace|truncate|mkdir|rmdir|copy|move|symlink|chmod|File\.|fs\.|shutil|os\.|Path\(|>\s*\S|\brm\b|\bmv\b|\bcp\b|\btee\b|sed\s+-i|print\s*>|syswrite|spurt|put_contents|-Force|Set-Content|Out-File/i;

export function shellWrites(command: string): ShellWrite[] {
  const out: ShellWrite[] = [];
  analyze(command, 0, new Map(), { base: '' }, out);
  return out;
}

interface Cwd {
  /** '' is the command's own directory; null once a `cd` went somewhere unknowable. */
  base: string | null;
}

function analyze(src: string, depth: number, vars: Map<string, string>, cwd: Cwd, out: ShellWrite[]): void {
  if (depth > MAX_DEPTH) {
    if (textMentionsGcc(src)) out.push({ target: src, base: cwd.base, how: 'command', dynamic: true, recursive: false });
    return;
  }
  const { tokens, nested } = lexShell(src);
  for (const inner of nested) analyze(inner, depth + 1, vars, { base: cwd.base }, out);

  let current: Token[] = [];
  let pipelineMentionsGcc = false;
  let pipeline: Token[][] = [];
  const finishPipeline = () => {
    for (const cmd of pipeline) simpleCommand(cmd, depth, vars, cwd, out, pipelineMentionsGcc);
    pipeline = [];
    pipelineMentionsGcc = false;
  };
  for (const t of tokens) {
    if (t.kind === 'sep') {
      pipeline.push(current);
      current = [];
      if (t.op !== '|' && t.op !== '|&') finishPipeline();
      continue;
    }
    if (t.kind === 'word' && textMentionsGcc(expand(t, vars).text)) pipelineMentionsGcc = true;
    current.push(t);
  }
  pipeline.push(current);
  finishPipeline();
}

interface Expanded {
  text: string;
  dynamic: boolean;
}

function expand(t: Extract<Token, { kind: 'word' }>, vars: Map<string, string>): Expanded {
  let dynamic = t.dynamic;
  const text = t.text.replace(new RegExp(`${VAR_MARK}([A-Za-z_][A-Za-z0-9_]*)${VAR_MARK}`, 'g'), (_m, name: string) => {
    const v = vars.get(name);
    if (v !== undefined) return v;
    // $HOME / $PWD keep their spelling: a target "$PWD/.GCC/x" still names .GCC.
    if (name !== 'HOME' && name !== 'PWD') dynamic = true;
    return `$${name}`;
  });
  return { text, dynamic };
}

function simpleCommand(
  tokens: Token[],
  depth: number,
  vars: Map<string, string>,
  cwd: Cwd,
  out: ShellWrite[],
  pipelineMentionsGcc: boolean,
): void {
  const words: Expanded[] = [];
  const heredocs: string[] = [];
  const push = (w: Expanded, how: ShellWrite['how'], recursive = false) =>
    out.push({ target: w.text, base: cwd.base, how, dynamic: w.dynamic, recursive });

  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k] as Token;
    if (t.kind === 'heredoc') heredocs.push(t.body);
    else if (t.kind === 'redir') {
      const next = tokens[k + 1];
      if (next?.kind !== 'word') continue;
      k++;
      const target = expand(next, vars);
      // `2>&1`, `>&-`: descriptor duplication, not a file.
      const isDup = (t.op === '>&' || t.op === '<&') && /^(?:[0-9]+|-)$/.test(target.text);
      if (WRITE_REDIRECTS.has(t.op) && !isDup) push(target, 'redirect');
    } else if (t.kind === 'word') words.push(expand(t, vars));
  }

  // Reserved words in front of a command (`{ rm x; }`, `then rm x`) are grammar, not the command.
  while (words.length && RESERVED.has((words[0] as Expanded).text)) words.shift();
  // Leading assignments: alone they set shell variables; before a command, only its env.
  let start = 0;
  while (start < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test((words[start] as Expanded).text)) start++;
  if (start === words.length) {
    for (const w of words) assign(w.text, vars);
    return;
  }
  const { words: args, fed } = stripWrappers(words.slice(start));
  const name = basename(args[0]?.text ?? '');
  const rest = args.slice(1);
  const operands = nonOptions(rest);

  if (name === 'export' || name === 'declare' || name === 'local' || name === 'readonly' || name === 'typeset') {
    for (const w of rest) assign(w.text, vars);
    return;
  }
  if (name === 'cd' || name === 'pushd') {
    const dir = operands[0];
    if (!dir || dir.dynamic || dir.text === '-' || dir.text.startsWith('~')) cwd.base = null;
    else if (isAbsolute(dir.text)) cwd.base = dir.text;
    else if (cwd.base !== null) cwd.base = join(cwd.base, dir.text);
    return;
  }
  if (name === 'popd') {
    cwd.base = null;
    return;
  }
  if (name === 'eval') {
    analyze(rest.map((w) => w.text).join(' '), depth + 1, vars, cwd, out);
    return;
  }
  if (SHELLS.has(name)) {
    const c = optionValue(rest, ['-c']);
    if (c) analyze(c.text, depth + 1, vars, { base: cwd.base }, out);
    for (const body of heredocs) analyze(body, depth + 1, vars, { base: cwd.base }, out);
    return;
  }
  if (IN_PLACE.has(name) && hasInPlace(name, rest)) for (const w of operands) push(w, 'command');
  if (INTERPRETERS.has(name)) {
    const code = [...inlineCode(rest), ...heredocs].join('\n');
    if (textMentionsGcc(code) && WRITE_CODE.test(code)) {
      out.push({ target: '.GCC', base: cwd.base, how: 'inline-script', dynamic: false, recursive: false });
    }
    return;
  }
  if (IN_PLACE.has(name)) return;
  // File names fed through a pipe (`ls .GCC | xargs rm`) cannot be judged word by word.
  if (fed && pipelineMentionsGcc && (ALL_ARGS.has(name) || LAST_ARG.has(name))) {
    out.push({ target: '.GCC', base: cwd.base, how: 'command', dynamic: true, recursive: false });
  }
  if (ALL_ARGS.has(name)) {
    const recursive = name === 'rm' && rest.some((w) => /^-[a-zA-Z]*[rR]/.test(w.text) || w.text === '--recursive');
    for (const w of operands) push(w, 'command', recursive);
    return;
  }
  if (LAST_ARG.has(name)) {
    const t = optionValue(rest, ['-t', '--target-directory']);
    const last = operands[operands.length - 1];
    if (t) push(t, 'command');
    else if (last) push(last, 'command');
    // rsync --remove-source-files and mv-like flags also touch the sources.
    if (rest.some((w) => w.text === '--remove-source-files')) for (const w of operands) push(w, 'command');
    return;
  }
  if (name === 'dd') {
    for (const w of rest) if (w.text.startsWith('of=')) push({ text: w.text.slice(3), dynamic: w.dynamic }, 'command');
    return;
  }
  if (name === 'curl' || name === 'wget') {
    const o = optionValue(rest, ['-o', '--output', '-O', '--output-document']);
    if (o) push(o, 'command');
    return;
  }
  if (name === 'tar' || name === 'unzip' || name === '7z') {
    const extracting = name !== 'tar' || rest.some((w) => /^-?[a-zA-Z]*x/.test(w.text) || w.text === '--extract');
    if (!extracting) return;
    const dir = optionValue(rest, ['-C', '--directory', '-d']);
    push(dir ?? { text: '.', dynamic: false }, 'command');
    return;
  }
  if (name === 'find') {
    const writes = rest.some((w) => /^-(?:delete|exec|execdir|ok|okdir|fprint|fprint0|fprintf|fls)$/.test(w.text));
    if (!writes) return;
    // `find . -name '*.tmp' -delete` removes matches only; without any test it removes everything.
    const filtered = rest.some((w) => /^-(?:i?name|i?path|i?regex|type|newer|mtime|mmin|size|empty|user|perm|wholename)$/.test(w.text));
    const recursive = !filtered && rest.some((w) => w.text === '-delete' || /\brm\b/.test(w.text));
    for (const w of rest) if (!w.text.startsWith('-')) push(w, 'command', recursive);
    // -path "*.GCC*" and friends select files inside .GCC by pattern, not by a path operand.
    if (rest.some((w) => textMentionsGcc(w.text))) out.push({ target: '.GCC', base: cwd.base, how: 'command', dynamic: true, recursive: false });
    return;
  }
  if (name === 'git') {
    const sub = operands[0];
    if (sub && GIT_WRITES.has(sub.text)) for (const w of operands.slice(1)) push(w, 'command');
    return;
  }
}

/** Drop `sudo -u x`, `env A=b`, `timeout 5`, `xargs -0` and the like in front of the real command. */
function stripWrappers(words: Expanded[]): { words: Expanded[]; fed: boolean } {
  let w = words;
  let fed = false;
  for (let guard = 0; guard < 16 && w.length; guard++) {
    const name = basename((w[0] as Expanded).text);
    if (!WRAPPERS.has(name)) break;
    if (name === 'xargs' || name === 'parallel') fed = true;
    let k = 1;
    while (k < w.length) {
      const t = (w[k] as Expanded).text;
      if (t.startsWith('-') || /^[A-Za-z_][A-Za-z0-9_]*=/.test(t)) k++;
      else if ((name === 'timeout' || name === 'nice' || name === 'flock' || name === 'watch') && /^[0-9.]+[smhd]?$/.test(t)) k++;
      else break;
    }
    w = w.slice(k);
  }
  return { words: w, fed };
}

function nonOptions(words: Expanded[]): Expanded[] {
  const out: Expanded[] = [];
  let optionsDone = false;
  for (const w of words) {
    if (!optionsDone && w.text === '--') optionsDone = true;
    else if (!optionsDone && w.text.startsWith('-') && w.text.length > 1) continue;
    else out.push(w);
  }
  return out;
}

/**
 * The code an interpreter is given inline: values of -c, -e, --eval, -r, -Command and the like
 * (also in clusters such as perl's -ne), or after `eval` (deno, bun). Other words are a
 * script's arguments — `python3 -m json.tool .GCC/x` reads a file, it does not run it.
 */
function inlineCode(words: Expanded[]): string[] {
  const code: string[] = [];
  for (let k = 0; k < words.length - 1; k++) {
    const t = words[k]!.text;
    const flag = CODE_FLAGS.has(t) || (k === 0 && t === 'eval') || /^-[a-zA-Z]*[ceE]$/.test(t);
    if (flag) code.push(words[k + 1]!.text);
  }
  return code;
}

function optionValue(words: Expanded[], names: string[]): Expanded | undefined {
  for (let k = 0; k < words.length; k++) {
    const t = (words[k] as Expanded).text;
    for (const n of names) {
      if (t === n) return words[k + 1];
      if (n.startsWith('--') && t.startsWith(`${n}=`)) return { text: t.slice(n.length + 1), dynamic: (words[k] as Expanded).dynamic };
      // Short options glued to their value: -o.GCC/x, -C.GCC
      if (!n.startsWith('--') && t.startsWith(n) && t.length > n.length && n !== '-c') {
        return { text: t.slice(n.length), dynamic: (words[k] as Expanded).dynamic };
      }
    }
  }
  return undefined;
}

function hasInPlace(name: string, words: Expanded[]): boolean {
  if (name === 'gawk' || name === 'awk') return words.some((w, k) => w.text === '-i' && words[k + 1]?.text === 'inplace');
  return words.some((w) => /^-[a-zA-Z]*i/.test(w.text) || w.text.startsWith('--in-place'));
}

function assign(text: string, vars: Map<string, string>): void {
  const eq = text.indexOf('=');
  if (eq > 0) vars.set(text.slice(0, eq), text.slice(eq + 1));
}

function basename(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash >= 0 ? path.slice(slash + 1) : path;
}
