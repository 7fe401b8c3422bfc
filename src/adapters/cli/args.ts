/**
 * The command line of an operation, generated from its declaration (operations/*): which words
 * are positional, which are `--flags`, how each value is read (a number, a list, a switch), the
 * usage line and the help. `gctx` and Pi's `/gcc` both parse through here, so they take the
 * same words.
 */
import { closestMatch } from 'leven';
import { gccError } from '../../errors.js';
import { type CliArg, type FieldKind, type Operation, operationNamed } from '../../operations/index.js';
import { fieldKinds, isRequired } from '../../operations/fields.js';
import { type Arity, GLOBAL_FLAGS, globalArity } from './globals.js';

export { type Arity, GLOBAL_FLAGS } from './globals.js';

const kebab = (s: string) => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

interface Flag {
  name: string;
  arg: CliArg;
  arity: Arity;
  kind: FieldKind;
}

function flagsOf(op: Operation): Map<string, Flag> {
  const kinds = fieldKinds(op);
  const out = new Map<string, Flag>();
  for (const arg of op.cli) {
    if (arg.as !== 'flag') continue;
    const kind = kinds[arg.field] ?? 'string';
    const name = arg.flag ?? kebab(arg.field);
    const arity: Arity =
      arg.sets && kind === 'enum'
        ? 'flag'
        : kind === 'boolean'
          ? 'flag'
          : kind === 'strings'
            ? 'many'
            : arg.optionalValue
              ? 'optional'
              : 'one';
    out.set(name, { name, arg, arity, kind });
  }
  return out;
}

/** `gctx commit <contribution…> [--title <title>] …`, from the declaration. */
export function usageOf(op: Operation, prefix = 'gctx'): string {
  const parts = [prefix, op.name];
  if (op.usage) parts.push(op.usage);
  for (const arg of op.cli) {
    if (op.usage && arg.field === 'action' && arg.as !== 'flag') continue;
    const req = isRequired(op, arg.field) && !arg.sets;
    const many = arg.as === 'flag' && fieldKinds(op)[arg.field] === 'strings' ? '…' : '';
    parts.push(req ? `${shown(op, arg)}${many}` : `[${shown(op, arg)}]${many}`);
  }
  return parts.join(' ');
}

/** Help's width: a terminal's. */
const WIDTH = 80;

/** Text broken into lines of at most 80 columns: the first after `lead` columns, the others after `indent`. */
export function wrap(text: string, indent = '', lead = 0): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const room = WIDTH - (lines.length ? 0 : lead);
    if (line.trim() && line.length + 1 + word.length > room) {
      lines.push(line);
      line = indent + word;
    } else {
      line = line.trim() ? `${line} ${word}` : `${line}${word}`;
    }
  }
  return [...lines, line].join('\n');
}

/** Rows of a two-column table, the second wrapped beside the first (below it, when the first is long). */
function table(rows: readonly (readonly [string, string])[]): string[] {
  const left = Math.min(22, Math.max(0, ...rows.map(([l]) => l.length)));
  const pad = ' '.repeat(left + 4);
  return rows.map(([l, t]) =>
    l.length > left ? `  ${l}\n${pad}${wrap(t, pad, pad.length)}` : `  ${l.padEnd(left)}  ${wrap(t, pad, pad.length)}`,
  );
}

/** The slot or flag a spelling shows in usage and help. */
function shown(op: Operation, arg: CliArg): string {
  if (arg.as !== 'flag') return `<${kebab(arg.field)}${arg.as === 'rest' ? '…' : ''}>`;
  const name = arg.flag ?? kebab(arg.field);
  const kind = fieldKinds(op)[arg.field];
  return kind === 'boolean' || (arg.sets && kind === 'enum')
    ? `--${name}`
    : arg.optionalValue
      ? `--${name} [${kebab(arg.field)}]`
      : `--${name} <${kebab(arg.field)}>`;
}

/**
 * `gctx <command> --help` and `gctx help <command>`: the usage, what the command does, each
 * word and option with what it is for (the spelling's own line, else the field's), and an example.
 */
export function helpOf(op: Operation, prefix = 'gctx'): string {
  const rows: [string, string][] = [];
  for (const arg of op.cli) {
    if (op.usage && arg.field === 'action' && arg.as !== 'flag') continue;
    const text = arg.help ?? op.args[arg.field]?.help;
    if (text) rows.push([shown(op, arg), text]);
  }
  return [
    // Each bracketed part of the usage kept on one line.
    wrap(
      `Usage: ${usageOf(op, prefix).replace(/\[[^\]]*\]|<[^>]*>/g, (part) => part.replaceAll(' ', '\u00a0'))}`,
      '         ',
    ).replaceAll('\u00a0', ' '),
    '',
    wrap(`${op.summary[0]!.toUpperCase()}${op.summary.slice(1)}.`),
    ...(rows.length ? ['', ...table(rows)] : []),
    '',
    'Example:',
    `  ${prefix} ${op.example}`,
  ].join('\n');
}

/** `gctx --help`: every command with what it is for, the options every command takes, and where to read more. */
export function helpOfAll(ops: readonly Operation[]): string {
  return [
    'gctx — git-shaped memory for coding agents (.GCC/)',
    '',
    'Usage: gctx <command> [arguments] [options]',
    '',
    'Commands:',
    ...table(ops.map((op) => [op.name, op.summary])),
    '',
    wrap(
      `Everywhere: ${Object.keys(GLOBAL_FLAGS)
        .map(
          (f) => `--${f}${f === 'dir' ? ' <project>' : f === 'session' ? ' <id>' : f === 'budget' ? ' <tokens>' : ''}`,
        )
        .join(', ')}.`,
      '  ',
    ),
    wrap(
      '--dir defaults to the nearest folder upward with .GCC/. Lists answer newest first; `--page 2` goes ' +
        'further back. Exit codes: 0 ok, 1 user error, 2 corruption or internal error.',
    ),
    '',
    'gctx help <command>, or gctx <command> --help: its options and an example.',
  ].join('\n');
}

/** ` (did you mean commit?)`, when a name is near one of `known`; else ''. */
export function nearest(name: string, known: readonly string[]): string {
  const hit = closestMatch(name, known, { maxDistance: Math.max(1, Math.min(3, Math.floor(name.length / 2))) });
  return hit && hit !== name ? ` (did you mean ${hit}?)` : '';
}

export interface Parsed {
  args: Record<string, unknown>;
  /** The global options given (--dir, --json, --session, --budget, --help). */
  globals: Map<string, string>;
}

function value(f: Flag | { name: string; kind: FieldKind }, raw: string, usage: string): unknown {
  if (f.kind === 'number') {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1)
      throw gccError('E_INVALID_ARGUMENT', `--${f.name} takes a whole number above 0`, usage);
    return n;
  }
  return raw;
}

/** Read an operation's arguments off the command line; E_INVALID_ARGUMENT with the usage on any mistake. */
export function parseArgs(op: Operation, argv: readonly string[], prefix = 'gctx'): Parsed {
  const usage = usageOf(op, prefix);
  const flags = flagsOf(op);
  const kinds = fieldKinds(op);
  const args: Record<string, unknown> = {};
  const globals = new Map<string, string>();
  const words: string[] = [];
  const seen = new Set<string>();
  // Which flag gave each field, and what: two flags giving one field two values (`--log` and
  // `--search`, each a level; `--branch a --on b`) contradict each other, never the last one wins.
  const gave = new Map<string, { flag: string; value: unknown }>();
  const give = (flag: string, field: string, v: unknown) => {
    const before = gave.get(field);
    if (before && before.flag !== flag && before.value !== v) {
      const alike = [...flags.values()]
        .filter((x) => x.arg.field === field || (x.arg.sets && field in x.arg.sets))
        .map((x) => `--${x.name}`);
      throw gccError(
        'E_INVALID_ARGUMENT',
        `--${before.flag} and --${flag} cannot go together: each gives the ${field}`,
        `give one of ${alike.join(', ')}: ${usage}`,
      );
    }
    gave.set(field, { flag, value: v });
    args[field] = v;
  };
  let rest = false;
  for (let i = 0; i < argv.length; i++) {
    const tok = argv[i]!;
    if (rest || !tok.startsWith('-') || tok === '-' || /^-\d/.test(tok)) {
      words.push(tok);
      continue;
    }
    if (tok === '--') {
      rest = true;
      continue;
    }
    if (tok === '-h') {
      globals.set('help', '');
      continue;
    }
    if (!tok.startsWith('--')) throw gccError('E_INVALID_ARGUMENT', `unknown option ${tok}`, usage);
    const eq = tok.indexOf('=');
    const name = tok.slice(2, eq === -1 ? undefined : eq);
    const inline = eq === -1 ? undefined : tok.slice(eq + 1);
    const g = globalArity(name);
    const f = flags.get(name);
    const known = [...flags.keys(), ...Object.keys(GLOBAL_FLAGS)].map((x) => `--${x}`);
    if (!g && !f) throw gccError('E_INVALID_ARGUMENT', `unknown option --${name}${nearest(`--${name}`, known)}`, usage);
    const arity = f ? f.arity : g!;
    let v: string;
    if (arity === 'flag') {
      if (inline !== undefined) throw gccError('E_INVALID_ARGUMENT', `--${name} takes no value`, usage);
      v = '';
    } else if (inline !== undefined) {
      v = inline;
    } else if (arity === 'optional') {
      const next = argv[i + 1];
      v = next !== undefined && !next.startsWith('--') ? argv[++i]! : '';
    } else {
      const next = argv[i + 1];
      if (next === undefined) throw gccError('E_INVALID_ARGUMENT', `--${name} needs a value`, usage);
      v = argv[++i]!;
    }
    if (!f) {
      if (globals.has(name)) throw gccError('E_INVALID_ARGUMENT', `--${name} given more than once`, usage);
      globals.set(name, v);
      continue;
    }
    if (arity !== 'many' && seen.has(name))
      throw gccError('E_INVALID_ARGUMENT', `--${name} given more than once`, usage);
    seen.add(name);
    if (f.arg.sets) for (const [k, x] of Object.entries(f.arg.sets)) give(name, k, x);
    if (arity === 'flag') {
      if (!f.arg.sets) give(name, f.arg.field, true);
    } else if (arity === 'many') {
      ((args[f.arg.field] ??= []) as unknown[]).push(v);
    } else if (v !== '' || arity !== 'optional') {
      give(name, f.arg.field, value(f, v, usage));
    }
  }
  const slots = op.cli.filter((a) => a.as !== 'flag');
  for (const slot of slots) {
    if (slot.as === 'positional') {
      if (words.length)
        args[slot.field] = value({ name: slot.field, kind: kinds[slot.field] ?? 'string' }, words.shift()!, usage);
    } else if (words.length) {
      args[slot.field] = kinds[slot.field] === 'strings' ? words.splice(0) : words.splice(0).join(' ');
    }
  }
  if (words.length)
    throw gccError(
      'E_INVALID_ARGUMENT',
      `unexpected ${words.length === 1 ? 'word' : 'words'}: ${words.map((w) => JSON.stringify(w)).join(' ')}`,
      usage,
    );
  return { args, globals };
}

/**
 * Words of a line as a POSIX shell splits them (quotes and backslashes), for `/gcc` typed in
 * Pi's editor. No expansion of any kind.
 */
export function splitWords(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let has = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote === "'") {
      if (c === "'") quote = null;
      else cur += c;
    } else if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1]!)) cur += line[++i];
      else cur += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      has = true;
    } else if (c === '\\' && i + 1 < line.length) {
      cur += line[++i];
      has = true;
    } else if (/\s/.test(c)) {
      if (has || cur) out.push(cur);
      cur = '';
      has = false;
    } else {
      cur += c;
    }
  }
  if (has || cur) out.push(cur);
  return out;
}

/**
 * A `gctx …` call (the words after `gctx`) as a caller of another front end makes it: a tool
 * call with its arguments as JSON for a model (`prefix` before the tool's name), `/gcc …` in
 * Pi's editor, the engine's API for a library caller. A command that front end does not offer, or words that do not
 * parse, stay a
 * command line to run.
 */
export function callIn(words: string, front: 'mcp' | 'pi' | 'slash' | 'library', prefix = ''): string {
  try {
    const [name = '', ...rest] = splitWords(words);
    const op = operationNamed(name);
    if (front === 'library') return op?.library ? op.library(parseArgs(op, rest).args) : `gctx ${words}`;
    if (!op?.fronts.includes(front)) return `gctx ${words}`;
    if (front === 'slash') return `/gcc ${words}`;
    return `${prefix}${op.name} ${JSON.stringify(parseArgs(op, rest).args)}`;
  } catch {
    return `gctx ${words}`;
  }
}
