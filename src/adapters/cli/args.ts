/**
 * Argument parsing for gctx. node:util's parseArgs cannot express flags whose value is
 * optional (`--branch [name]`, `--log [n]`), so this is a small table-driven parser.
 */
import { gccError } from '../../errors.js';

export type Arity = 'flag' | 'one' | 'optional' | 'many';

export interface Parsed {
  positionals: string[];
  flags: Map<string, string[]>;
}

export const GLOBAL_FLAGS: Record<string, Arity> = { dir: 'one', json: 'flag', session: 'one', help: 'flag', budget: 'one' };

export function parseArgs(argv: readonly string[], spec: Record<string, Arity>, usage: string): Parsed {
  const all = { ...GLOBAL_FLAGS, ...spec };
  const positionals: string[] = [];
  const flags = new Map<string, string[]>();
  let rest = false;
  for (let i = 0; i < argv.length; i++) {
    const tok = argv[i]!;
    if (rest || !tok.startsWith('--') || tok === '-') {
      positionals.push(tok);
      continue;
    }
    if (tok === '--') {
      rest = true;
      continue;
    }
    const eq = tok.indexOf('=');
    const name = tok.slice(2, eq === -1 ? undefined : eq);
    if (name === 'h') {
      flags.set('help', ['']);
      continue;
    }
    const arity = all[name];
    if (!arity) throw gccError('E_INVALID_ARGUMENT', `unknown option --${name}`, usage);
    const values = flags.get(name) ?? [];
    if (eq !== -1) {
      if (arity === 'flag') throw gccError('E_INVALID_ARGUMENT', `--${name} takes no value`, usage);
      values.push(tok.slice(eq + 1));
    } else if (arity === 'flag') {
      values.push('');
    } else if (arity === 'optional') {
      const next = argv[i + 1];
      if (next !== undefined && !next.startsWith('--')) values.push(argv[++i]!);
      else values.push('');
    } else {
      const next = argv[i + 1];
      if (next === undefined) throw gccError('E_INVALID_ARGUMENT', `--${name} needs a value`, usage);
      values.push(argv[++i]!);
    }
    if (arity !== 'many' && values.length > 1) throw gccError('E_INVALID_ARGUMENT', `--${name} given more than once`, usage);
    flags.set(name, values);
  }
  return { positionals, flags };
}

export function one(p: Parsed, name: string): string | undefined {
  return p.flags.get(name)?.[0];
}

export function has(p: Parsed, name: string): boolean {
  return p.flags.has(name);
}

export function required(p: Parsed, name: string, usage: string): string {
  const v = one(p, name);
  if (v === undefined || v === '') throw gccError('E_INVALID_ARGUMENT', `--${name} is required`, usage);
  return v;
}

export function intFlag(p: Parsed, name: string, usage: string): number | undefined {
  const v = one(p, name);
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw gccError('E_INVALID_ARGUMENT', `--${name} takes a whole number above 0`, usage);
  return n;
}
