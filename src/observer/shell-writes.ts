import type { SimpleCommand, Word } from './shell-commands.js';

/**
 * The paths a simple command plainly writes: its output redirections, and the operands of a short
 * list of programs whose job is writing files (rm, mv, cp, tee, sed -i, tar -x -C, git rm…). Any
 * other program, and any word that is not plain, is taken to write nothing: the guard is a
 * courtesy that must never stop an ordinary command, not a model of what programs do.
 */

export interface ShellWrite {
  /** The path as written in the command. */
  path: string;
  /** The directory it is relative to; undefined when a `cd` went somewhere not plain. */
  cwd: string | undefined;
  /** What to quote back: `rm .GCC/x`, `> .GCC/x`. */
  what: string;
  /** Counts only when the path itself names `.GCC` (a git pathspec, not a branch name). */
  named?: boolean;
}

/** What one simple command plainly writes; `patch`: it is Codex's apply_patch, its patch in the text. */
export interface CommandWrites {
  writes: ShellWrite[];
  patch?: { cwd: string | undefined };
  /** A nested `sh -c '…'`, read as a command line of its own. */
  nested?: { command: string; cwd: string | undefined };
}

interface Args {
  operands: Word[];
  flags: Set<string>;
  values: Map<string, Word[]>;
}

/**
 * Options that take a value: short letters, long names; `attached`: letters whose value is the
 * rest of their word only (`-i.bak`).
 */
interface Spec {
  short?: string;
  long?: readonly string[];
  attached?: string;
}

interface Writer {
  spec: Spec;
  writes: (a: Args) => Word[];
}

const TARGET_DIR = ['t', 'target-directory'];
const targetDirs = (a: Args) => TARGET_DIR.flatMap((k) => a.values.get(k) ?? []);
const all = (a: Args) => [...a.operands, ...targetDirs(a)];
/** The destination: `-t DIR`, else the last of two or more operands (the others are read). */
const last = (a: Args) => (targetDirs(a).length ? targetDirs(a) : a.operands.length > 1 ? a.operands.slice(-1) : []);
const writer = (writes: Writer['writes'], short?: string, long?: readonly string[], attached?: string): Writer => ({
  spec: { ...(short ? { short } : {}), ...(long ? { long } : {}), ...(attached ? { attached } : {}) },
  writes,
});
const COPY_OPTIONS = ['target-directory', 'suffix', 'backup', 'sparse', 'reflink'];

const WRITERS: Record<string, Writer> = {
  rm: writer(all),
  rmdir: writer(all),
  unlink: writer(all),
  shred: writer(all, 'ns', ['iterations', 'size', 'remove']),
  touch: writer(all, 'rdt', ['reference', 'date']),
  mkdir: writer(all, 'm', ['mode', 'context']),
  truncate: writer(all, 'sr', ['size', 'reference']),
  chmod: writer(all, '', ['reference']),
  chown: writer(all, '', ['reference', 'from']),
  chgrp: writer(all, '', ['reference']),
  tee: writer(all, '', ['output-error']),
  mv: writer(all, 'tS', COPY_OPTIONS),
  cp: writer(last, 'tS', COPY_OPTIONS),
  ln: writer(last, 'tS', COPY_OPTIONS),
  install: writer((a) => (a.flags.has('d') || a.flags.has('directory') ? a.operands : last(a)), 'gmotS', [
    'group',
    'mode',
    'owner',
    ...COPY_OPTIONS,
  ]),
  rsync: writer(last, 'eBfT', ['exclude', 'include', 'filter', 'rsh', 'files-from', 'exclude-from', 'temp-dir']),
  dd: writer((a) => a.operands.flatMap((w) => (w?.startsWith('of=') ? [w.slice(3)] : []))),
  sed: writer(
    (a) => (a.flags.has('i') || a.flags.has('in-place') ? afterScript(a, ['e', 'f', 'expression', 'file']) : []),
    'efl',
    ['expression', 'file', 'line-length'],
    'i',
  ),
  perl: writer((a) => (a.flags.has('i') ? afterScript(a, ['e', 'E']) : []), 'eEIM', [], 'i0lx'),
  tar: writer(tarWrites, 'fCTXbgHKLNV', ['file', 'directory', 'files-from', 'exclude-from', 'exclude', 'format']),
  // Listing, testing or printing extracts nothing; otherwise into -d, or here.
  unzip: writer((a) => ([...'ltpvZz'].some((f) => a.flags.has(f)) ? [] : (a.values.get('d') ?? ['.'])), 'dP'),
};

/** Programs that run the rest of their words as a command; `skip`: operands before it; `stop`: flags for none. */
const WRAPPERS: Record<string, { spec: Spec; skip?: number; stop?: string }> = {
  sudo: { spec: { short: 'ugCDhprtTU', long: ['user', 'group', 'chdir', 'host', 'prompt', 'role', 'type'] } },
  doas: { spec: { short: 'uC' } },
  env: { spec: { short: 'uCS', long: ['unset', 'chdir', 'split-string'] } },
  nohup: { spec: {} },
  nice: { spec: { short: 'n', long: ['adjustment'] } },
  time: { spec: {} },
  command: { spec: {}, stop: 'vV' },
  builtin: { spec: {} },
  exec: { spec: { short: 'a' } },
  timeout: { spec: { short: 'sk', long: ['signal', 'kill-after'] }, skip: 1 },
  xargs: { spec: { short: 'IdEnPLsa', long: ['replace', 'delimiter', 'eof', 'max-args', 'max-procs', 'arg-file'] } },
  stdbuf: { spec: { short: 'ioe', long: ['input', 'output', 'error'] } },
};

const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh']);
/** Words that open or close a compound command: what follows them is the command. */
const KEYWORDS = new Set(['if', 'then', 'else', 'elif', 'do', 'while', 'until', '!', '{', '}', 'fi', 'done', 'esac']);
const FIND_WRITERS = new Set(['rm', 'rmdir', 'unlink', 'shred', 'mv', 'truncate']);
const ASSIGNMENT = /^[A-Za-z_]\w*=/;

export function commandWrites(cmd: SimpleCommand): CommandWrites {
  const out: CommandWrites = { writes: [] };
  for (const w of cmd.writes) if (w) out.writes.push({ path: w, cwd: cmd.cwd, what: `> ${w}` });
  let words = cmd.words;
  for (let guard = 0; guard < 8; guard++) {
    let i = 0;
    while (i < words.length && (KEYWORDS.has(words[i] ?? '') || ASSIGNMENT.test(words[i] ?? ''))) i++;
    const name = words[i];
    if (!name) return out;
    const program = name.slice(name.lastIndexOf('/') + 1);
    const rest = words.slice(i + 1);
    // tar's old-style bundle: `tar xzf a.tar` is `tar -xzf a.tar`.
    if (program === 'tar' && /^[A-Za-z]+$/.test(rest[0] ?? '')) rest[0] = `-${rest[0]}`;
    const wrapper = WRAPPERS[program];
    if (wrapper) {
      const a = readArgs(rest, wrapper.spec, true);
      if (wrapper.stop && [...wrapper.stop].some((f) => a.flags.has(f))) return out;
      words = a.operands.slice(wrapper.skip ?? 0);
      continue;
    }
    const known = WRITERS[program];
    if (known) {
      for (const p of known.writes(readArgs(rest, known.spec))) {
        if (p && p !== '-') out.writes.push({ path: p, cwd: cmd.cwd, what: `${program} ${p}` });
      }
    } else if (program === 'git') gitWrites(rest, cmd.cwd, out);
    else if (program === 'find') findWrites(rest, cmd.cwd, out);
    else if (program === 'apply_patch' || program === 'applypatch') out.patch = { cwd: cmd.cwd };
    else if (SHELLS.has(program)) {
      const a = readArgs(rest, { short: 'oO' }, true);
      const code = a.operands[0];
      if (a.flags.has('c') && code) out.nested = { command: code, cwd: cmd.cwd };
    }
    return out;
  }
  return out;
}

/** git rm, mv, checkout, restore and clean with a pathspec naming `.GCC`; `-C` moves the directory. */
function gitWrites(words: Word[], cwd: string | undefined, out: CommandWrites): void {
  const global = readArgs(words, { short: 'Cc', long: ['git-dir', 'work-tree', 'namespace', 'config-env'] }, true);
  const [sub, ...args] = global.operands;
  const specs: Record<string, Spec> = {
    rm: { long: ['pathspec-from-file'] },
    mv: {},
    checkout: { short: 'bB', long: ['orphan', 'conflict', 'pathspec-from-file'] },
    restore: { short: 's', long: ['source', 'pathspec-from-file'] },
    clean: { short: 'e', long: ['exclude'] },
  };
  const spec = sub ? specs[sub] : undefined;
  if (!sub || !spec) return;
  let at = cwd;
  for (const d of global.values.get('C') ?? []) {
    at = d === null ? undefined : d.startsWith('/') ? d : at === undefined ? undefined : `${at}/${d}`;
  }
  for (const p of readArgs(args, spec).operands) {
    // Pathspec magic (`:!.GCC`, `:(exclude)`) leaves paths out or means more than it says.
    if (p && !p.startsWith(':')) out.writes.push({ path: p, cwd: at, what: `git ${sub} ${p}`, named: true });
  }
}

/** find's starting points, when the expression deletes what it finds (`-delete`, `-exec rm`). */
function findWrites(words: Word[], cwd: string | undefined, out: CommandWrites): void {
  let i = 0;
  while (i < words.length && /^-([HLP]|O\d*)$/.test(words[i] ?? '')) i++;
  if (words[i] === '-D') i += 2;
  const starts: Word[] = [];
  while (i < words.length && !/^[-(!),]/.test(words[i] ?? '-')) starts.push(words[i++]!);
  let deletes = false;
  for (; i < words.length; i++) {
    const w = words[i];
    if (w === '-delete') deletes = true;
    const runs = w === '-exec' || w === '-execdir' || w === '-ok' || w === '-okdir';
    if (runs && FIND_WRITERS.has((words[i + 1] ?? '').replace(/^.*\//, ''))) deletes = true;
  }
  if (deletes) for (const s of starts) if (s) out.writes.push({ path: s, cwd, what: `find ${s} -delete` });
}

/** tar writes its archive when creating (`-cf x.tar`), and the directory it extracts into. */
function tarWrites(a: Args): Word[] {
  const has = (...f: string[]) => f.some((x) => a.flags.has(x));
  if (has('x', 'extract', 'get')) return a.values.get('C') ?? a.values.get('directory') ?? ['.'];
  if (has('c', 'r', 'u', 'create', 'append', 'update')) return ['f', 'file'].flatMap((k) => a.values.get(k) ?? []);
  return [];
}

/** sed's and perl's operands are files after the script, unless the script came with -e. */
function afterScript(a: Args, scriptOptions: string[]): Word[] {
  return scriptOptions.some((o) => a.values.has(o)) ? a.operands : a.operands.slice(1);
}

/**
 * Options and operands, getopt-style: bundled short flags (`-rf`), a value joined or in the next
 * word (`-tDIR`, `-t DIR`, `--target-directory=DIR`), `--` ending options. A wrapper's options
 * end at its first operand (`sudo rm -rf x`); a first word without a dash is tar's old-style
 * bundle (`tar xzf a.tar`).
 */
function readArgs(words: Word[], spec: Spec, stopAtOperand = false): Args {
  const a: Args = { operands: [], flags: new Set(), values: new Map() };
  const put = (k: string, v: Word) => {
    const list = a.values.get(k);
    if (list) list.push(v);
    else a.values.set(k, [v]);
  };
  const rest = (from: number) => {
    for (let k = from; k < words.length; k++) a.operands.push(words[k]!);
  };
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w === '--') {
      rest(i + 1);
      break;
    }
    if (w === null || !w.startsWith('-') || w === '-') {
      if (stopAtOperand) {
        rest(i);
        break;
      }
      a.operands.push(w);
      continue;
    }
    if (w.startsWith('--')) {
      const eq = w.indexOf('=');
      const key = w.slice(2, eq < 0 ? undefined : eq);
      a.flags.add(key);
      if (eq >= 0) put(key, w.slice(eq + 1));
      else if (spec.long?.includes(key)) put(key, words[++i] ?? null);
      continue;
    }
    for (let j = 1; j < w.length; j++) {
      const f = w[j]!;
      a.flags.add(f);
      if (spec.attached?.includes(f)) {
        put(f, w.slice(j + 1));
        break;
      }
      if (spec.short?.includes(f)) {
        put(f, j + 1 < w.length ? w.slice(j + 1) : (words[++i] ?? null));
        break;
      }
    }
  }
  return a;
}
