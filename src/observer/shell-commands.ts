import { shellQuoteParse } from '../runtime/lazy-deps.js';

/**
 * A shell command line read into its simple commands, as far as it plainly says: shell-quote
 * tokenizes (quotes, escapes, operators, comments); this file adds what that tokenizer leaves to
 * the caller — a newline ends a command, a heredoc's body is data, a comment ends at its line —
 * and the directory each command runs in after a plain `cd`. A word that is not plain (a
 * variable, a glob, a substitution) is `null`: nothing is guessed about it.
 */

export type Word = string | null;

export interface SimpleCommand {
  /** The words, redirections taken out. */
  words: Word[];
  /** The targets of output redirections (`>`, `>>`, `>|`, `&>`, `&>>`, `>&`, `<>`). */
  writes: Word[];
  /** The directory it runs in; undefined once a `cd` went somewhere not plain. */
  cwd: string | undefined;
}

/** Longer commands are not read: the guard is a courtesy, and its cost stays bounded. */
export const MAX_COMMAND = 64 * 1024;
/**
 * Text handed to the tokenizer: at most this many times the command, plus a constant that lets a
 * short script's comments each be read past (shell-quote's comment takes the rest of the text,
 * so the text after it is tokenized again).
 */
export const PARSE_BUDGET = { times: 3, plus: 32 * 1024 };

const SEPARATORS = new Set([';', '&&', '||', '|', '|&', '&', ';;', ';&', ';;&']);
const OPENERS = new Set(['(', '<(', '>(']);
const OUTPUT = new Set(['>', '>>', '>|', '&>', '&>>', '>&', '<>']);
const INPUT = new Set(['<', '<<', '<<-', '<<<', '<&']);
const HEREDOC = /(?<!<)<<(-?)[ \t]*(?:'([^'\n]*)'|"([^"\n]*)"|\\?([^\s;&|<>()'"]+))/g;

/** Where a `cd` to `dir` goes from `cwd`; undefined when that is not plain. */
type MoveDir = (cwd: string | undefined, dir: Word) => string | undefined;

type Token = string | { op: string } | { comment: string } | { pattern: string };

/**
 * Variables are kept as written (`$X`), so that a word holding one is known not to be plain. An
 * object rather than a function: shell-quote then skips a pass that compiles a pattern per word.
 */
const KEEP_VARIABLES: Record<string, string> = new Proxy({}, { get: (_, key) => `$${String(key)}` });

/** The simple commands of `text`, in order; none when it is too long or not readable. */
export function simpleCommands(text: string, cwd: string | undefined, resolveDir: MoveDir): SimpleCommand[] {
  if (text.length > MAX_COMMAND) return [];
  let tokens: Token[];
  try {
    tokens = tokenize(prepare(text));
  } catch {
    return []; // shell-quote refuses a bad `${…}`: nothing is said about such a command
  }
  const out: SimpleCommand[] = [];
  const scopes: (string | undefined)[] = [];
  let here = cwd;
  let cur: SimpleCommand = { words: [], writes: [], cwd: here };
  const end = () => {
    if (cur.words.length || cur.writes.length) out.push(cur);
    const words = cur.words;
    // A plain `cd` (or pushd) moves the commands after it, within its parentheses.
    if (words[0] === 'cd' || words[0] === 'pushd') {
      here = resolveDir(cur.cwd, words.slice(1).find((w) => w !== '--' && w !== '-P' && w !== '-L') ?? '~');
    }
    cur = { words: [], writes: [], cwd: here };
  };
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (typeof t === 'string') cur.words.push(plain(t));
    else if ('pattern' in t) cur.words.push(null);
    else if ('op' in t) {
      if (SEPARATORS.has(t.op)) end();
      else if (OPENERS.has(t.op)) {
        end();
        scopes.push(here);
      } else if (t.op === ')') {
        end();
        if (scopes.length) here = scopes.pop();
        cur.cwd = here;
      } else if (OUTPUT.has(t.op) || INPUT.has(t.op)) {
        // `2>`: the descriptor's number is no argument.
        const before = tokens[i - 1];
        if (typeof before === 'string' && /^\d+$/.test(before) && cur.words.at(-1) === before) cur.words.pop();
        const next = tokens[i + 1];
        const target = typeof next === 'string' ? plain(next) : null;
        if (next !== undefined && (typeof next === 'string' || 'pattern' in next)) i++;
        // `>&2` and `>&-` duplicate or close a descriptor: no file.
        if (OUTPUT.has(t.op) && !(t.op === '>&' && /^(\d+|-)$/.test(target ?? ''))) cur.writes.push(target);
      }
    }
  }
  end();
  return out;
}

/**
 * A word as the tokenizer gave it; a variable or a command substitution in it makes it not plain.
 * An assignment keeps its name (`X=`), so that the command after it is still found.
 */
function plain(word: string): Word {
  if (!/[$`]/.test(word)) return word;
  const assignment = /^[A-Za-z_]\w*=/.exec(word);
  return assignment ? assignment[0] : null;
}

/**
 * What the tokenizer is given: line continuations joined, heredoc bodies blanked (they are data,
 * and an apostrophe in one would open a quote), comments without quotes dropped, and each newline
 * made a `;`, since shell-quote reads a newline as a space. A newline inside quotes only gains a
 * `;` within the quoted word; a comment dropped inside quotes only loses text of the quoted word.
 */
function prepare(text: string): string {
  const lines = text.replace(/\\\r?\n/g, '').split('\n');
  const bodies: { delimiter: string; tabs: boolean }[] = [];
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!;
    if (bodies.length) {
      const b = bodies[0]!;
      if ((b.tabs ? line.replace(/^\t+/, '') : line).replace(/\r$/, '') === b.delimiter) bodies.shift();
      lines[i] = '';
      continue;
    }
    line = lines[i] = withoutComment(line);
    for (const m of line.matchAll(HEREDOC)) bodies.push({ delimiter: m[2] ?? m[3] ?? m[4] ?? '', tabs: m[1] === '-' });
  }
  return lines.join('\n;');
}

/**
 * A line without its comment when no quote or backslash follows the `#`: removing it can then
 * change no quoting. Other comments are left to shell-quote (see tokenize).
 */
function withoutComment(line: string): string {
  let from = 0;
  for (const q of ["'", '"', '`', '\\']) from = Math.max(from, line.lastIndexOf(q) + 1);
  for (let at = line.indexOf('#', from); at >= 0; at = line.indexOf('#', at + 1)) {
    if (at === 0 || line[at - 1] === ' ' || line[at - 1] === '\t') return line.slice(0, at);
  }
  return line;
}

/**
 * shell-quote's tokens. Its comment runs to the end of the text, so the text after the comment's
 * line is tokenized again, within a budget.
 */
function tokenize(code: string): Token[] {
  const out: Token[] = [];
  let budget = PARSE_BUDGET.times * code.length + PARSE_BUDGET.plus;
  let rest = code;
  while (rest) {
    budget -= rest.length;
    const tokens = shellQuoteParse()(rest, KEEP_VARIABLES) as Token[];
    rest = '';
    for (const t of tokens) {
      if (typeof t === 'object' && 'comment' in t) {
        const nl = t.comment.indexOf('\n');
        if (nl >= 0 && budget >= t.comment.length) rest = t.comment.slice(nl + 1);
        out.push({ op: ';' });
        break;
      }
      out.push(t);
    }
  }
  return out;
}
