import { existsSync, lstatSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { CommandEnv } from './command-env.js';
import { pathMentionsGcc, textMentionsGcc } from './gcc-paths.js';
import { isWithin, type ShellWrite, type Word } from './shell-effects.js';

/**
 * `find` writes through its actions: -delete, -exec/-execdir/-ok (when the command writes the
 * found file), -fprint FILE. Whether those actions reach a file under `.GCC/` is decided by
 * evaluating the expression over the real `.GCC/` tree: names, paths, types and -prune are
 * checked; tests that cannot be checked statically (sizes, times, -empty) count as "may match".
 * So `find .GCC -exec cat {} \;` reads and passes; `find . -name '*.md' -delete` reaches
 * `.GCC/main.md` and is refused; `find . -path ./.GCC -prune -o -name '*.md' -delete` passes.
 */

type Tri = 'T' | 'F' | 'U';

type Node =
  | { kind: 'and' | 'or' | 'list'; left: Node; right: Node }
  | { kind: 'not'; expr: Node }
  | { kind: 'primary'; name: string; arg?: Word; act?: Action };

interface Action {
  /** Runs on each file it reaches and writes that file (or next to it). */
  writesFound: boolean;
  /** Prints the file (for a pipe into xargs and the like). */
  prints: boolean;
}

interface Candidate {
  abs: string;
  printed: string;
  name: string | null;
  type: 'f' | 'd' | 'l' | null;
  depth: number;
  inGcc: boolean;
}

const FOUND = '\u0001found';
const ONE_ARG = new Set([
  '-name', '-iname', '-path', '-ipath', '-wholename', '-iwholename', '-regex', '-iregex', '-type', '-xtype', '-newer', '-anewer', '-cnewer',
  '-perm', '-user', '-group', '-uid', '-gid', '-size', '-mtime', '-mmin', '-atime', '-amin', '-ctime', '-cmin', '-links', '-inum', '-samefile',
  '-used', '-fstype', '-lname', '-ilname', '-context', '-maxdepth', '-mindepth', '-regextype', '-files0-from', '-printf', '-fprint', '-fprint0', '-fls',
]);
const MAX_CANDIDATES = 512;

export function findWrites(env: CommandEnv): void {
  const parsed = parse(env);
  const hit = evaluate(env, parsed, (a) => a.writesFound);
  if (hit) env.write(hit);
}

/** A `.GCC/` path this find would print, or null: for `find … | xargs rm` and the like. */
export function findOutput(env: CommandEnv): string | null {
  return evaluate(env, parse(env), (a) => a.prints)?.text ?? null;
}

interface Parsed {
  starts: Word[];
  expr: Node | null;
  minDepth: number;
  maxDepth: number;
  noPrune: boolean;
}

function parse(env: CommandEnv): Parsed {
  const args = env.args;
  let i = 0;
  while (i < args.length && /^-(?:[HLP]|D|O\d*)$/.test((args[i] as Word).text)) i += (args[i] as Word).text === '-D' ? 2 : 1;
  const starts: Word[] = [];
  while (i < args.length && !/^(?:-.+|\(|!|,)$/.test((args[i] as Word).text)) starts.push(args[i++] as Word);
  if (!starts.length) starts.push({ text: '.', dynamic: false });
  const tokens = args.slice(i);
  let pos = 0;
  let minDepth = 0;
  let maxDepth = Infinity;
  let noPrune = false;
  let hasAction = false;
  const peek = () => tokens[pos]?.text;

  const primary = (): Node => {
    const w = tokens[pos++] as Word;
    const name = w.text;
    if (/^-(?:exec|execdir|ok|okdir)$/.test(name)) {
      const cmd: Word[] = [];
      while (pos < tokens.length && !(tokens[pos]?.text === ';' || (tokens[pos]?.text === '+' && cmd.at(-1)?.text === '{}'))) cmd.push(tokens[pos++] as Word);
      pos++;
      hasAction = true;
      return { kind: 'primary', name, act: execAction(env, cmd) };
    }
    let arg: Word | undefined;
    if (ONE_ARG.has(name) || /^-newer[a-zA-Z]{2}$/.test(name)) arg = tokens[pos++];
    if (name === '-fprintf') {
      arg = tokens[pos++];
      pos++;
    }
    if (name === '-mindepth') minDepth = Number(arg?.text) || 0;
    if (name === '-maxdepth') maxDepth = Number(arg?.text ?? Infinity);
    if (name === '-delete' || name === '-depth' || name === '-d') noPrune = true;
    if (/^-(?:fprint0?|fls|fprintf)$/.test(name) && arg && arg.text !== '/dev/stdout') env.write(arg);
    const prints = /^-(?:print0?|printf|ls)$/.test(name);
    if (prints || name === '-delete' || /^-(?:fprint0?|fls|fprintf|quit)$/.test(name)) hasAction = true;
    return { kind: 'primary', name, ...(arg ? { arg } : {}), ...(prints || name === '-delete' ? { act: { writesFound: name === '-delete', prints } } : {}) };
  };
  const unary = (): Node => {
    const t = peek();
    if (t === '!' || t === '-not') {
      pos++;
      return { kind: 'not', expr: unary() };
    }
    if (t === '(') {
      pos++;
      const inner = list();
      if (peek() === ')') pos++;
      return inner;
    }
    return primary();
  };
  const and = (): Node => {
    let left = unary();
    while (pos < tokens.length && ![')', '-o', '-or', ','].includes(peek() ?? '')) {
      if (peek() === '-a' || peek() === '-and') pos++;
      left = { kind: 'and', left, right: unary() };
    }
    return left;
  };
  const or = (): Node => {
    let left = and();
    while (peek() === '-o' || peek() === '-or') {
      pos++;
      left = { kind: 'or', left, right: and() };
    }
    return left;
  };
  const list = (): Node => {
    let left = or();
    while (peek() === ',') {
      pos++;
      left = { kind: 'list', left, right: or() };
    }
    return left;
  };
  let expr: Node | null = tokens.length ? list() : null;
  // Without an action, find prints whatever the whole expression matches.
  if (!hasAction) {
    const print: Node = { kind: 'primary', name: '-print', act: { writesFound: false, prints: true } };
    expr = expr ? { kind: 'and', left: expr, right: print } : print;
  }
  return { starts, expr, minDepth, maxDepth, noPrune };
}

/** Does the command `-exec` runs write the file it is given? Its other writes are reported now. */
function execAction(env: CommandEnv, cmd: Word[]): Action {
  const words = cmd.map((w) => (w.text.includes('{}') ? { text: w.text.split('{}').join(FOUND), dynamic: w.dynamic } : w));
  if (!words.some((w) => w.text.includes(FOUND))) words.push({ text: FOUND, dynamic: false });
  const effects = env.probe(words);
  const onFound = (e: ShellWrite) => e.kind === 'path' && e.target.startsWith(FOUND);
  env.report(effects.filter((e) => !onFound(e)));
  return { writesFound: effects.some(onFound), prints: false };
}

/** The first `.GCC/` file an action of interest reaches, as a word to report. */
function evaluate(env: CommandEnv, p: Parsed, interest: (a: Action) => boolean): Word | null {
  if (!p.expr || !hasInterest(p.expr, interest)) return null;
  for (const start of p.starts) {
    const abs = env.absolute(start);
    if (abs === null) {
      if (textMentionsGcc(start.text)) return start;
      continue;
    }
    const pruned: string[] = [];
    const gcc = env.mem.gccDir ? resolve(env.mem.gccDir) : undefined;
    // A glob or brace start (`.G*`, `.{GCC,x}`) the shell expands into .GCC: its files are unknown.
    const spelled = pathMentionsGcc(start.text) && !(gcc && isWithin(abs, gcc));
    const list = spelled ? [{ abs: `${gcc ?? abs}/?`, printed: start.text, name: null, type: null, depth: 0, inGcc: true }] : candidates(abs, start.text, env.mem.gccDir, p.maxDepth);
    for (const c of list) {
      if (pruned.some((d) => isWithin(c.abs, d) && c.abs !== d)) continue;
      const state = { fired: false, prune: false };
      if (c.depth >= p.minDepth) run(p.expr, c, true, interest, state);
      if (state.prune && !p.noPrune) pruned.push(c.abs);
      if (state.fired && c.inGcc) return spelled ? start : { text: c.abs, dynamic: false };
    }
  }
  return null;
}

function hasInterest(n: Node, interest: (a: Action) => boolean): boolean {
  if (n.kind === 'primary') return n.act !== undefined && interest(n.act);
  if (n.kind === 'not') return hasInterest(n.expr, interest);
  return hasInterest(n.left, interest) || hasInterest(n.right, interest);
}

function run(n: Node, c: Candidate, certain: boolean, interest: (a: Action) => boolean, state: { fired: boolean; prune: boolean }): Tri {
  switch (n.kind) {
    case 'and': {
      const l = run(n.left, c, certain, interest, state);
      if (l === 'F') return 'F';
      const r = run(n.right, c, certain && l === 'T', interest, state);
      return r === 'F' ? 'F' : l === 'T' && r === 'T' ? 'T' : 'U';
    }
    case 'or': {
      const l = run(n.left, c, certain, interest, state);
      if (l === 'T') return 'T';
      const r = run(n.right, c, certain && l === 'F', interest, state);
      return r === 'T' ? 'T' : l === 'F' && r === 'F' ? 'F' : 'U';
    }
    case 'list':
      run(n.left, c, certain, interest, state);
      return run(n.right, c, certain, interest, state);
    case 'not': {
      const v = run(n.expr, c, certain, interest, state);
      return v === 'T' ? 'F' : v === 'F' ? 'T' : 'U';
    }
    default:
      if (n.act) {
        if (interest(n.act)) state.fired = true;
        return n.name === '-delete' || /print|ls/.test(n.name) ? 'T' : 'U';
      }
      if (n.name === '-prune') {
        if (certain && c.type === 'd') state.prune = true;
        return 'T';
      }
      return test(n.name, n.arg, c);
  }
}

function test(name: string, arg: Word | undefined, c: Candidate): Tri {
  const pattern = arg?.text ?? '';
  const icase = /^-i/.test(name);
  switch (name) {
    case '-name':
    case '-iname':
      return c.name === null ? 'U' : glob(pattern, c.name, icase) ? 'T' : 'F';
    case '-path':
    case '-ipath':
    case '-wholename':
    case '-iwholename':
      return c.name === null ? 'U' : glob(pattern, c.printed, icase) ? 'T' : 'F';
    case '-regex':
    case '-iregex':
      if (c.name === null || arg?.dynamic) return 'U';
      try {
        return new RegExp(`^(?:${pattern})$`, icase ? 'i' : '').test(c.printed) ? 'T' : 'F';
      } catch {
        return 'U';
      }
    case '-type':
      return c.type === null ? 'U' : pattern.split(',').includes(c.type) ? 'T' : 'F';
    case '-true':
    case '-maxdepth':
    case '-mindepth':
    case '-depth':
    case '-d':
    case '-xdev':
    case '-mount':
    case '-noleaf':
    case '-daystart':
    case '-follow':
    case '-regextype':
    case '-ignore_readdir_race':
    case '-noignore_readdir_race':
    case '-warn':
    case '-nowarn':
      return 'T';
    case '-false':
      return 'F';
    default:
      return 'U';
  }
}

/** The files find would visit on its way to and through `.GCC/` from `start`, parents first. */
function candidates(startAbs: string, printedStart: string, gccDir: string | undefined, maxDepth: number): Candidate[] {
  const gcc = gccDir ? resolve(gccDir) : pathMentionsGcc(startAbs) ? startAbs : existsSync(join(startAbs, '.GCC')) ? join(startAbs, '.GCC') : undefined;
  if (!gcc) return [];
  const make = (abs: string, inGcc: boolean, unknown = false): Candidate => {
    const rel = relative(startAbs, abs);
    const printed = rel ? `${printedStart.replace(/\/+$/, '')}/${rel}` : printedStart;
    let type: Candidate['type'] = null;
    if (!unknown) {
      try {
        const st = lstatSync(abs);
        type = st.isDirectory() ? 'd' : st.isSymbolicLink() ? 'l' : 'f';
      } catch {
        type = abs === gcc ? 'd' : null;
      }
    }
    return { abs, printed, name: unknown ? null : (abs.split('/').pop() ?? ''), type, depth: rel ? rel.split('/').length : 0, inGcc };
  };
  const out: Candidate[] = [];
  let root = startAbs;
  if (!isWithin(startAbs, gcc)) {
    if (!isWithin(gcc, startAbs)) return [];
    // The directories between the start and .GCC, which -prune may stop at.
    for (const part of relative(startAbs, gcc).split('/').slice(0, -1)) {
      root = join(root, part);
      out.push(make(root, false));
    }
    out.unshift(make(startAbs, false));
    root = gcc;
  }
  const walk = (dir: string) => {
    const here = make(dir, true);
    if (here.depth > maxDepth) return;
    out.push(here);
    if (here.type !== 'd') return;
    let entries: string[];
    try {
      entries = readdirSync(dir).sort();
    } catch {
      // Not on disk (yet): anything may be in it.
      out.push({ ...make(join(dir, '?'), true, true), depth: here.depth + 1 });
      return;
    }
    for (const e of entries) {
      if (out.length >= MAX_CANDIDATES) {
        out.push({ ...make(join(dir, '?'), true, true), depth: here.depth + 1 });
        return;
      }
      walk(join(dir, e));
    }
  };
  walk(root);
  return out;
}

/** find's globs: `*` and `?` match any character, `/` and a leading dot included. */
function glob(pattern: string, text: string, icase: boolean): boolean {
  let re = '^';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i] as string;
    if (ch === '*') re += '[\\s\\S]*';
    else if (ch === '?') re += '[\\s\\S]';
    else if (ch === '\\' && i + 1 < pattern.length) re += (pattern[++i] as string).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    else if (ch === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end < 0) re += '\\[';
      else {
        const body = pattern.slice(i + 1, end);
        re += `[${body.startsWith('!') ? `^${body.slice(1)}` : body}]`;
        i = end;
      }
    } else re += ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  try {
    return new RegExp(`${re}$`, icase ? 'i' : '').test(text);
  } catch {
    return true;
  }
}
