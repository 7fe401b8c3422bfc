/**
 * The command line of an operation, generated from its declaration (operations/*): which words
 * are positional, which are `--flags`, how each value is read (a number, a list, a switch), the
 * usage line and the help. `gctx` and Pi's `/gcc` both parse through here, so they take the
 * same words.
 */
import { gccError } from '../../errors.js';
import type { CliArg, Operation } from '../../operations/index.js';
import { type FieldKind, fieldKinds, fieldsOf, isRequired } from '../../operations/fields.js';
import { type Arity, globalArity } from './globals.js';

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
    const arity: Arity = arg.sets && kind === 'enum' ? 'flag' : kind === 'boolean' ? 'flag' : kind === 'strings' ? 'many' : arg.optionalValue ? 'optional' : 'one';
    out.set(name, { name, arg, arity, kind });
  }
  return out;
}

/** `gctx commit <contribution…> [--title <title>] …`, from the declaration. */
export function usageOf(op: Operation, prefix = 'gctx'): string {
  const parts = [prefix, op.name];
  const kinds = fieldKinds(op);
  if (op.usage) parts.push(op.usage);
  for (const arg of op.cli) {
    const req = isRequired(op, arg.field);
    const slot = `<${kebab(arg.field)}${arg.as === 'rest' ? '…' : ''}>`;
    if (arg.as === 'positional' || arg.as === 'rest') {
      if (op.usage && arg.field === 'action') continue;
      parts.push(req ? slot : `[${slot}]`);
      continue;
    }
    const name = arg.flag ?? kebab(arg.field);
    const kind = kinds[arg.field];
    const flag = kind === 'boolean' || (arg.sets && kind === 'enum') ? `--${name}` : arg.optionalValue ? `--${name} [${kebab(arg.field)}]` : `--${name} <${kebab(arg.field)}>`;
    const many = kind === 'strings' ? '…' : '';
    parts.push(req && !arg.sets ? `${flag}${many}` : `[${flag}]${many}`);
  }
  return parts.join(' ');
}

/**
 * `gctx <command> --help`: the usage line, what the command does, then each word and option the
 * usage names with what it is for (the schema's description, or the spelling's own line).
 */
export function helpOf(op: Operation, prefix = 'gctx'): string {
  const fields = fieldsOf(op);
  const kinds = fieldKinds(op);
  const rows: [string, string][] = [];
  for (const arg of op.cli) {
    if (op.usage && arg.field === 'action' && arg.as !== 'flag') continue;
    const text = arg.help ?? fields[arg.field]?.help;
    if (!text) continue;
    if (arg.as !== 'flag') {
      rows.push([`<${kebab(arg.field)}${arg.as === 'rest' ? '…' : ''}>`, text]);
      continue;
    }
    const name = arg.flag ?? kebab(arg.field);
    const kind = kinds[arg.field];
    rows.push([kind === 'boolean' || (arg.sets && kind === 'enum') ? `--${name}` : arg.optionalValue ? `--${name} [${kebab(arg.field)}]` : `--${name} <${kebab(arg.field)}>`, text]);
  }
  const width = Math.max(0, ...rows.map(([l]) => l.length));
  return [usageOf(op, prefix), `  ${op.summary}`, ...rows.map(([l, t]) => `  ${l.padEnd(width)}  ${t}`)].join('\n');
}

export interface Parsed {
  args: Record<string, unknown>;
  /** The global options given (--dir, --json, --session, --budget, --help). */
  globals: Map<string, string>;
}

function value(f: Flag | { name: string; kind: FieldKind }, raw: string, usage: string): unknown {
  if (f.kind === 'number') {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1) throw gccError('E_INVALID_ARGUMENT', `--${f.name} takes a whole number above 0`, usage);
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
      const alike = [...flags.values()].filter((x) => x.arg.field === field || (x.arg.sets && field in x.arg.sets)).map((x) => `--${x.name}`);
      throw gccError('E_INVALID_ARGUMENT', `--${before.flag} and --${flag} cannot go together: each gives the ${field}`, `give one of ${alike.join(', ')}: ${usage}`);
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
    if (!g && !f) throw gccError('E_INVALID_ARGUMENT', `unknown option --${name}`, usage);
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
    if (arity !== 'many' && seen.has(name)) throw gccError('E_INVALID_ARGUMENT', `--${name} given more than once`, usage);
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
      if (words.length) args[slot.field] = value({ name: slot.field, kind: kinds[slot.field] ?? 'string' }, words.shift()!, usage);
    } else if (words.length) {
      args[slot.field] = kinds[slot.field] === 'strings' ? words.splice(0) : words.splice(0).join(' ');
    }
  }
  if (words.length) throw gccError('E_INVALID_ARGUMENT', `unexpected ${words.length === 1 ? 'word' : 'words'}: ${words.map((w) => JSON.stringify(w)).join(' ')}`, usage);
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
