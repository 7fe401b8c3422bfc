/**
 * Whether a shell command plainly writes into `.GCC/`: its output redirections, and the operands
 * of a short list of programs whose job is writing files (rm, mv, cp, tee, sed -i, tar -x -C, git
 * rm…), read from shell-commands.ts. Any other program, and any word that is not plain, is taken
 * to write nothing: the guard is a courtesy that must never stop an ordinary command, not a model
 * of what programs do.
 */
import { isAbsolute, resolve } from 'node:path';
import { type GccDir, resolveFrom } from './gcc-paths.js';
import { type SimpleCommand, simpleCommands, type Word } from './shell-commands.js';

/** Operands, the options given, and the values of those that take one. */
interface Args {
  operands: Word[];
  flags: Set<string>;
  values: Map<string, Word>;
}

/**
 * Getopt's reading, as far as the guard needs it. `takes`: the short letters, then the long names,
 * of options whose value is the rest of their word or the next one (`-tDIR`, `-t DIR`, `--file=x`).
 * `--` ends options; with `stop`, so does the first operand (a wrapper's command).
 */
function readArgs(words: Word[], takes = '', stop = false): Args {
  const [short = '', ...longs] = takes.split(' ');
  const a: Args = { operands: [], flags: new Set(), values: new Map() };
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w === null || !w.startsWith('-') || w === '-' || w === '--') {
      if (w === '--' || stop) {
        a.operands.push(...words.slice(w === '--' ? i + 1 : i));
        break;
      }
      a.operands.push(w);
      continue;
    }
    const long = /^--([^=]+)(=?)(.*)$/.exec(w);
    if (long) {
      a.flags.add(long[1]!);
      if (long[2]) a.values.set(long[1]!, long[3]!);
      else if (longs.includes(long[1]!)) a.values.set(long[1]!, words[++i] ?? null);
      continue;
    }
    for (let j = 1; j < w.length; j++) {
      a.flags.add(w[j]!);
      if (!short.includes(w[j]!)) continue;
      a.values.set(w[j]!, j + 1 < w.length ? w.slice(j + 1) : (words[++i] ?? null));
      break;
    }
  }
  return a;
}

const COPY = 'tS target-directory suffix backup';
/** The destination: `-t DIR`, else the last of two or more operands (the others are read). */
const last = (a: Args): Word[] => {
  const dir = a.values.get('t') ?? a.values.get('target-directory');
  return dir !== undefined ? [dir] : a.operands.length > 1 ? a.operands.slice(-1) : [];
};
/** sed's and perl's files, when they edit in place: the operands after the script, unless -e gave it. */
const inPlace =
  (scripts: string[]) =>
  (a: Args): Word[] =>
    !a.flags.has('i') && !a.flags.has('in-place') ? [] : a.operands.slice(scripts.some((s) => a.values.has(s)) ? 0 : 1);

/** Each writing program: the options that take a value, and which of its words it writes. */
const WRITERS: Record<string, [takes: string, writes: (a: Args) => Word[]]> = {
  rm: ['', (a) => a.operands],
  rmdir: ['', (a) => a.operands],
  unlink: ['', (a) => a.operands],
  shred: ['ns iterations size', (a) => a.operands],
  touch: ['rdt reference date', (a) => a.operands],
  mkdir: ['m mode context', (a) => a.operands],
  truncate: ['sr size reference', (a) => a.operands],
  chmod: [' reference', (a) => a.operands],
  chown: [' reference from', (a) => a.operands],
  chgrp: [' reference', (a) => a.operands],
  tee: [' output-error', (a) => a.operands],
  mv: [COPY, (a) => [...a.operands, ...last(a)]],
  cp: [COPY, last],
  ln: [COPY, last],
  install: [
    `gmo${COPY} group mode owner`,
    (a) => (a.flags.has('d') || a.flags.has('directory') ? a.operands : last(a)),
  ],
  rsync: ['eBfT exclude include filter rsh files-from exclude-from temp-dir', last],
  dd: ['', (a) => a.operands.flatMap((w) => (w?.startsWith('of=') ? [w.slice(3)] : []))],
  sed: ['ef expression file line-length', inPlace(['e', 'f', 'expression', 'file'])],
  perl: ['eEIM', inPlace(['e', 'E'])],
  tar: ['fCTXbgHKLNV file directory files-from exclude-from exclude format', tarWrites],
  // Listing, testing or printing extracts nothing; otherwise into -d, or here.
  unzip: ['dP', (a) => ([...'ltpvZz'].some((f) => a.flags.has(f)) ? [] : [a.values.get('d') ?? '.'])],
};

/** Programs that run the rest of their words as a command: the options that take a value, operands skipped. */
const WRAPPERS: Record<string, [takes: string, skip?: number]> = {
  sudo: ['ugCDhprtTU user group chdir host prompt role type'],
  doas: ['uC'],
  env: ['uCS unset chdir split-string'],
  nohup: [''],
  nice: ['n adjustment'],
  time: [''],
  command: [''],
  builtin: [''],
  exec: ['a'],
  timeout: ['sk signal kill-after', 1],
  xargs: ['IdEnPLsa replace delimiter eof max-args max-procs arg-file'],
  stdbuf: ['ioe input output error'],
};

const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh']);
/** Words that open or close a compound command, and assignments: what follows them is the command. */
const LEAD = /^(?:if|then|else|elif|do|while|until|!|\{|\}|fi|done|esac|[A-Za-z_]\w*=.*)$/s;
const FIND_WRITERS = new Set(['rm', 'rmdir', 'unlink', 'shred', 'mv', 'truncate']);
const GIT_WRITERS: Record<string, string> = {
  rm: ' pathspec-from-file',
  mv: '',
  checkout: 'bB orphan conflict pathspec-from-file',
  restore: 's source pathspec-from-file',
  clean: 'e exclude',
};

/** Where a path of the command lands inside `.GCC/`, relative to a directory; null: outside or unknown. */
type Lands = (dir: string | undefined, path: string) => string | null;

/** A shell command's first plain write into `.GCC/`, quoted back (`rm .GCC/x`); a nested `sh -c` is read once. */
export function shellWrite(command: string, cwd: string, gcc: GccDir, depth = 0): string | null {
  // A plain write lands in .GCC/ only through a word naming it, or from a directory inside it.
  if (!/\.gcc/i.test(command) && gcc.inside(cwd) === null) return null;
  const lands: Lands = (dir, path) => {
    if (isAbsolute(path) || path.startsWith('~')) return gcc.inside(resolveFrom('/', path));
    return dir === undefined ? null : gcc.inside(resolveFrom(dir, path));
  };
  // Codex's apply_patch reads its patch from the command's text (an argument or a heredoc): read once.
  let patch: string[] | undefined;
  const patched = () => (patch ??= patchTargets(command));
  for (const cmd of simpleCommands(command, cwd, moveDir)) {
    const hit = commandWrite(cmd, lands, patched, (code, dir) =>
      depth < 1 ? shellWrite(code, dir ?? '', gcc, 1) : null,
    );
    if (hit) return hit;
  }
  return null;
}

/** Where a plain `cd` goes; undefined when it is not plain (`cd "$X"`, `cd -`). */
function moveDir(cwd: string | undefined, dir: Word): string | undefined {
  if (dir === null || dir === '-') return undefined;
  if (isAbsolute(dir) || dir === '~' || dir.startsWith('~/')) return resolveFrom('/', dir);
  return cwd === undefined ? undefined : resolve(cwd, dir);
}

/** One simple command's first plain write into `.GCC/`; `nested` reads a `sh -c` script. */
function commandWrite(
  cmd: SimpleCommand,
  lands: Lands,
  patched: () => string[],
  nested: (code: string, cwd: string | undefined) => string | null,
): string | null {
  // A git pathspec counts only when it names `.GCC` itself (not a branch name that happens to land there).
  const into = (paths: Word[], verb: string, cwd = cmd.cwd, pathspec = false, after = '') => {
    for (const p of paths) {
      if (!p || p === '-' || (pathspec && !p.split('/').some((s) => s.toLowerCase() === '.gcc'))) continue;
      if (lands(cwd, p) !== null) return `${verb} ${p}${after}`;
    }
    return null;
  };
  const redirect = into(cmd.writes, '>');
  if (redirect) return redirect;
  let words = cmd.words;
  for (let depth = 0; depth < 8; depth++) {
    const at = words.findIndex((w) => !LEAD.test(w ?? ''));
    const name = words[at];
    if (at < 0 || !name) return null;
    const program = name.slice(name.lastIndexOf('/') + 1);
    const rest = words.slice(at + 1);
    // tar's old-style bundle: `tar xzf a.tar` is `tar -xzf a.tar`.
    if (program === 'tar' && /^[A-Za-z]+$/.test(rest[0] ?? '')) rest[0] = `-${rest[0]}`;
    const wrapper = WRAPPERS[program];
    if (wrapper) {
      const a = readArgs(rest, wrapper[0], true);
      if (program === 'command' && (a.flags.has('v') || a.flags.has('V'))) return null;
      words = a.operands.slice(wrapper[1] ?? 0);
      continue;
    }
    const writer = WRITERS[program];
    if (writer) return into(writer[1](readArgs(rest, writer[0])), program);
    if (program === 'git') {
      const g = readArgs(rest, 'Cc git-dir work-tree namespace config-env', true);
      const [sub, ...args] = g.operands;
      const takes = GIT_WRITERS[sub ?? ''];
      if (takes === undefined) return null;
      // `-C dir` moves where the pathspecs are read from.
      const dir = g.values.get('C');
      const moved = dir === undefined ? cmd.cwd : dir === null ? undefined : moveDir(cmd.cwd, dir);
      const sa = readArgs(args, takes);
      // `--cached` / `--staged` touch only the index, which is how gctx's own fixes untrack a file.
      const worktree = sa.flags.has('W') || sa.flags.has('worktree');
      if (!worktree && (sa.flags.has('cached') || sa.flags.has('staged') || (sub === 'restore' && sa.flags.has('S'))))
        return null;
      // Pathspec magic (`:!.GCC`, `:(exclude)`) leaves paths out or means more than it says.
      return into(
        sa.operands.filter((p) => !p?.startsWith(':')),
        `git ${sub}`,
        moved,
        true,
      );
    }
    if (program === 'find') return into(findDeletes(rest), 'find', cmd.cwd, false, ' -delete');
    if (program === 'apply_patch' || program === 'applypatch') return into(patched(), 'apply_patch');
    if (!SHELLS.has(program)) return null;
    const a = readArgs(rest, 'oO', true);
    return a.flags.has('c') && a.operands[0] ? nested(a.operands[0], cmd.cwd) : null;
  }
  return null;
}

/** find's starting points, when the expression deletes what it finds (`-delete`, `-exec rm`). */
function findDeletes(words: Word[]): Word[] {
  let i = 0;
  while (/^-([HLP]|O\d*)$/.test(words[i] ?? '')) i++;
  if (words[i] === '-D') i += 2;
  const starts: Word[] = [];
  while (i < words.length && !/^[-(!),]/.test(words[i] ?? '-')) starts.push(words[i++]!);
  const deletes = words.some(
    (w, k) =>
      w === '-delete' ||
      (/^-(exec|execdir|ok|okdir)$/.test(w ?? '') && FIND_WRITERS.has((words[k + 1] ?? '').replace(/^.*\//, ''))),
  );
  return deletes ? starts : [];
}

/** tar writes its archive when creating (`-cf x.tar`), and the directory it extracts into. */
function tarWrites(a: Args): Word[] {
  const has = (...f: string[]) => f.some((x) => a.flags.has(x));
  if (has('x', 'extract', 'get')) return [a.values.get('C') ?? a.values.get('directory') ?? '.'];
  if (has('c', 'r', 'u', 'create', 'append', 'update')) return [a.values.get('f') ?? a.values.get('file') ?? null];
  return [];
}

/**
 * The files a patch writes, from its text alone: Codex's `apply_patch` format (`*** Add File:`,
 * `*** Update File:`, `*** Delete File:`, `*** Move to:`, the line trimmed as Codex does) and
 * unified or git diffs (`--- a/x`, `+++ b/x`, `diff --git a/x b/x`, renames).
 */
export function patchTargets(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const codex = /^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$/.exec(line);
    const git = /^diff --git (\S+) (\S+)$/.exec(line);
    const diff = /^(?:\+\+\+|---) ([^\t]+?)(?:\t.*)?$|^(?:rename|copy) (?:from|to) (.+)$/.exec(line);
    if (codex) out.push(codex[1]!.trim());
    else if (git) out.push(git[1]!, git[2]!);
    else if (diff && !line.startsWith('*** ')) out.push((diff[1] ?? diff[2])!.trim().replace(/^"(.*)"$/, '$1'));
  }
  return out.filter((p) => p && p !== '/dev/null');
}
