import type { Memory, ShellWrite, Word } from './shell-effects.js';

/**
 * What one simple command looks like to the per-program rules (shell-programs, git-writes,
 * find-writes, inline-code): its name and words after expansion, where it runs, what is fed on
 * its standard input, and the ways to report what it does.
 */
export interface CommandEnv {
  name: string;
  /** The words after the command name. */
  args: Word[];
  /** Directory relative to the command's start, from earlier `cd`s; null when unknowable. */
  base: string | null;
  mem: Memory;
  stdin: Stdin;
  depth: number;
  /** A path the command writes, creates, moves or removes (relative to `base`). */
  write(w: Word, recursive?: boolean): void;
  /** The rule itself established a write into `.GCC/`; `what` says how. */
  decided(what: string): void;
  /** A git work-tree rewrite that touches `.GCC/`. */
  gitRestore(what: string, ignored?: boolean): void;
  /** Shell code the command runs (`sh -c`, `find -exec`, `watch`), with its positional words. */
  nested(src: string, positional?: Word[]): void;
  /** The effects of another command as this one would run it (xargs, find -exec), not yet reported. */
  probe(words: Word[]): ShellWrite[];
  /** Report effects found by `probe`. */
  report(writes: ShellWrite[]): void;
  /** A local file's bytes as latin1 text (bounded, 1 MiB unless `maxBytes`), or null when absent or unknowable. */
  readFile(w: Word, maxBytes?: number): string | null;
  /** The absolute path a word names, or null when it cannot be known statically. */
  absolute(w: Word): string | null;
}

/** What a command reads on its standard input, as far as the analysis can tell. */
export interface Stdin {
  /** The known text (here-documents, here-strings, `< file`, an upstream `echo`), else the upstream's words. */
  text: string;
  /** `text` is what the command will read, not merely words around it. */
  exact: boolean;
  /** Something is fed at all (a pipe, a redirection, a here-document). */
  present: boolean;
}

export const NO_STDIN: Stdin = { text: '', exact: false, present: false };

/** Options that take a value, per program: short letters, and long names (without `--`). */
export interface OptionSpec {
  short?: string;
  long?: readonly string[];
}

/** Split a command's words into operands and option values, honouring `--` and glued values. */
export function parseOptions(args: readonly Word[], spec: OptionSpec = {}): { operands: Word[]; values: Map<string, Word[]> } {
  const operands: Word[] = [];
  const values = new Map<string, Word[]>();
  const add = (k: string, v: Word | undefined) => {
    if (!v) return;
    const list = values.get(k) ?? [];
    list.push(v);
    values.set(k, list);
  };
  const short = spec.short ?? '';
  const long = new Set(spec.long ?? []);
  for (let k = 0; k < args.length; k++) {
    const w = args[k] as Word;
    const t = w.text;
    if (t === '--') {
      operands.push(...args.slice(k + 1));
      break;
    }
    if (t.startsWith('--') && t.length > 2) {
      const eq = t.indexOf('=');
      const name = t.slice(2, eq < 0 ? undefined : eq);
      if (eq >= 0) add(name, { text: t.slice(eq + 1), dynamic: w.dynamic });
      else if (long.has(name)) add(name, args[++k]);
      else add(name, { text: '', dynamic: false });
      continue;
    }
    if (t.startsWith('-') && t.length > 1) {
      // A cluster like -xzf: letters until one that takes a value, which gets the rest or the next word.
      for (let j = 1; j < t.length; j++) {
        const letter = t[j] as string;
        if (short.includes(letter)) {
          const rest = t.slice(j + 1);
          add(letter, rest ? { text: rest, dynamic: w.dynamic } : args[++k]);
          break;
        }
        add(letter, { text: '', dynamic: false });
      }
      continue;
    }
    operands.push(w);
  }
  return { operands, values };
}

export function has(values: Map<string, Word[]>, ...names: string[]): boolean {
  return names.some((n) => values.has(n));
}

export function value(values: Map<string, Word[]>, ...names: string[]): Word | undefined {
  for (const n of names) {
    const v = values.get(n);
    if (v?.length) return v[v.length - 1];
  }
  return undefined;
}

export function basename(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  const slash = trimmed.lastIndexOf('/');
  return slash >= 0 ? trimmed.slice(slash + 1) : trimmed;
}
