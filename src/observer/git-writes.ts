import { dirname, resolve } from 'node:path';
import { type CommandEnv, has, parseOptions, value } from './command-env.js';
import { pathMentionsGcc } from './gcc-paths.js';
import { patchTargets } from './patch-targets.js';
import { isWithin, type Word } from './shell-effects.js';

/**
 * git commands that change files under `.GCC/`. Two kinds:
 *
 * - rewrites from git's own copy (stash, clean, reset --hard, checkout/restore from the index or
 *   HEAD, a forced switch): harmless once the memory is committed, fatal to events not yet in
 *   git; reported as `git-restore` and denied only while events are uncommitted;
 * - writes of other content (rm, mv, checkout/restore from another commit, apply, am,
 *   merge-file): writes like any other, always denied when they touch `.GCC/`.
 *
 * Whether a pathspec touches `.GCC/` is decided here: `.`, none, `:/`, a path inside or above
 * `.GCC`, a wildcard whose fixed part is above it; an exclusion (`':!.GCC'`, `':(exclude).GCC'`)
 * that covers `.GCC` takes it out. Branch switches, merges, rebases and pulls move the memory with
 * the code and refuse to overwrite local changes, so they pass.
 */

const GLOBAL_VALUES = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--exec-path', '--config-env', '--super-prefix', '--list-cmds', '--attr-source']);

export function gitWrites(env: CommandEnv): void {
  const args = env.args;
  let k = 0;
  let dir: Word | null = null;
  for (; k < args.length; k++) {
    const t = (args[k] as Word).text;
    if (!t.startsWith('-')) break;
    if (GLOBAL_VALUES.has(t)) {
      const v = args[++k];
      if (t === '-C' && v) dir = dir ? { text: `${dir.text}/${v.text}`, dynamic: dir.dynamic || v.dynamic } : v;
    }
  }
  const sub = args[k]?.text;
  const rule = sub ? RULES[sub] : undefined;
  if (rule) rule(dir ? inDirectory(env, dir) : env, args.slice(k + 1));
}

/** `git -C DIR …`: paths are relative to DIR. */
function inDirectory(env: CommandEnv, dir: Word): CommandEnv {
  const under = (w: Word): Word => (w.text.startsWith('/') ? w : { text: `${dir.text}/${w.text}`, dynamic: w.dynamic || dir.dynamic });
  return {
    ...env,
    write: (w, recursive) => env.write(under(w), recursive),
    readFile: (w, maxBytes) => env.readFile(under(w), maxBytes),
    absolute: (w) => env.absolute(under(w)),
  };
}

type Rule = (env: CommandEnv, args: Word[]) => void;

const RULES: Record<string, Rule> = {
  stash(env, args) {
    const sub = args[0]?.text ?? 'push';
    if (['list', 'show', 'drop', 'clear', 'create', 'store'].includes(sub)) return;
    if (['apply', 'pop', 'branch'].includes(sub)) return restore(env, 'git stash ' + sub, []);
    const opts = sub === 'push' || sub === 'save' ? args.slice(1) : args;
    const { operands, values } = parseOptions(opts, { short: 'm', long: ['message', 'pathspec-from-file'] });
    if (has(values, 'pathspec-from-file')) return restore(env, 'git stash', [{ text: ':/', dynamic: true }]);
    // `save` takes a message, not pathspecs.
    restore(env, 'git stash', sub === 'save' ? [] : operands, 'tree', has(values, 'a', 'all'));
  },
  clean(env, args) {
    const { operands, values } = parseOptions(args, { short: 'e', long: ['exclude'] });
    if (has(values, 'n', 'dry-run')) return;
    const excluded = (values.get('e') ?? []).concat(values.get('exclude') ?? []).some((w) => /^\/?\.gcc\/?$/i.test(w.text));
    if (!excluded) restore(env, 'git clean', operands, 'cwd', has(values, 'x', 'X'));
  },
  reset(env, args) {
    if (!args.some((w) => w.text === '--hard' || w.text === '--merge' || w.text === '--keep')) return;
    restore(env, 'git reset --hard', [], 'tree');
  },
  checkout(env, args) {
    const { operands, values } = parseOptions(args, { short: 'bB', long: ['conflict', 'pathspec-from-file', 'orphan'] });
    const dashdash = args.findIndex((w) => w.text === '--');
    const force = has(values, 'f', 'force', 'discard-changes');
    let source: Word | undefined;
    let paths: Word[];
    if (dashdash >= 0) {
      const before = parseOptions(args.slice(0, dashdash), { short: 'bB', long: ['conflict', 'orphan'] }).operands;
      source = before[0];
      paths = args.slice(dashdash + 1);
    } else if (operands[0] && looksLikePath(operands[0])) paths = operands;
    else {
      source = operands[0];
      paths = operands.slice(1);
    }
    if (has(values, 'pathspec-from-file')) paths = [{ text: ':/', dynamic: true }];
    if (!paths.length) {
      // A branch switch carries local changes along, unless forced.
      if (force) restore(env, 'git checkout --force', [], 'tree');
      return;
    }
    fromSource(env, 'git checkout', source, paths);
  },
  switch(env, args) {
    if (args.some((w) => /^(?:-f|--force|--discard-changes)$/.test(w.text))) restore(env, 'git switch --discard-changes', [], 'tree');
  },
  restore(env, args) {
    const { operands, values } = parseOptions(args, { short: 's', long: ['source', 'pathspec-from-file', 'conflict'] });
    if (has(values, 'S', 'staged') && !has(values, 'W', 'worktree')) return;
    const paths = has(values, 'pathspec-from-file') ? [{ text: ':/', dynamic: true }] : operands;
    fromSource(env, 'git restore', value(values, 's', 'source'), paths);
  },
  'checkout-index'(env, args) {
    if (args.some((w) => /^(?:-a|--all|-f|--force)$/.test(w.text))) restore(env, 'git checkout-index', [], 'tree');
  },
  'read-tree'(env, args) {
    if (args.some((w) => w.text === '-u' || w.text === '--reset')) restore(env, 'git read-tree -u', [], 'tree');
  },
  rm(env, args) {
    const { operands, values } = parseOptions(args, { long: ['pathspec-from-file'] });
    if (has(values, 'cached', 'n', 'dry-run')) return;
    direct(env, 'git rm', operands);
  },
  mv(env, args) {
    const { operands, values } = parseOptions(args);
    if (has(values, 'n', 'dry-run')) return;
    direct(env, 'git mv', operands);
  },
  'merge-file'(env, args) {
    const { operands, values } = parseOptions(args, { short: 'L', long: ['marker-size'] });
    if (!has(values, 'p', 'stdout') && operands[0]) env.write(operands[0]);
  },
  apply(env, args) {
    const { operands, values } = parseOptions(args, { short: 'pCI', long: ['directory', 'exclude', 'include', 'whitespace', 'build-fake-ancestor'] });
    const readOnly = (has(values, 'check', 'stat', 'numstat', 'summary') && !has(values, 'apply')) || has(values, 'cached');
    if (readOnly) return;
    patchFiles(env, operands, values.get('directory')?.[0], Number(value(values, 'p')?.text ?? '1') || 1);
  },
  am(env, args) {
    const { operands, values } = parseOptions(args, { short: 'pCS', long: ['directory', 'exclude', 'include', 'whitespace', 'patch-format', 'resolvemsg'] });
    if (has(values, 'abort', 'quit', 'show-current-patch')) return;
    patchFiles(env, operands, values.get('directory')?.[0], 1);
  },
  archive: outputOption,
  'format-patch': outputOption,
  diff: outputOption,
  log: outputOption,
  show: outputOption,
  init(env, args) {
    const dir = parseOptions(args, { short: 'b', long: ['template', 'separate-git-dir', 'object-format', 'initial-branch', 'shared'] }).operands[0];
    if (dir) env.write(dir, true);
  },
  clone(env, args) {
    const { operands } = parseOptions(args, { short: 'obcuj', long: ['origin', 'branch', 'config', 'upload-pack', 'jobs', 'depth', 'reference', 'separate-git-dir', 'template', 'filter'] });
    if (operands[1]) env.write(operands[1], true);
  },
};

function outputOption(env: CommandEnv, args: Word[]): void {
  const { values } = parseOptions(args, { short: 'o', long: ['output', 'output-directory'] });
  for (const k of ['o', 'output', 'output-directory']) for (const w of values.get(k) ?? []) env.write({ text: `${w.text}/x`, dynamic: w.dynamic });
}

/** Without `--`, git reads a first word that is plainly a path as one (`git checkout .`). */
function looksLikePath(w: Word): boolean {
  return /^(?:\.{1,2}(?:\/|$)|:|\/)/.test(w.text) || w.text.includes('/') || /[*?[]/.test(w.text) || pathMentionsGcc(w.text);
}

/** From the index or HEAD it is a restore; from any other commit it writes that commit's files. */
function fromSource(env: CommandEnv, what: string, source: Word | undefined, paths: Word[]): void {
  const ownCopy = !source || /^(?:HEAD|@)$/.test(source.text);
  if (ownCopy) restore(env, what, paths, 'cwd');
  else if (touches(env, paths, 'cwd')) env.decided(`${what} ${source.text} writes another commit's files into .GCC`);
}

function restore(env: CommandEnv, what: string, paths: Word[], scope: 'tree' | 'cwd' = 'cwd', ignored = false): void {
  if (touches(env, paths, scope)) env.gitRestore(what, ignored);
}

function direct(env: CommandEnv, what: string, paths: Word[]): void {
  if (touches(env, paths, 'cwd', false)) env.decided(`${what} changes files under .GCC`);
}

function patchFiles(env: CommandEnv, files: Word[], directory: Word | undefined, strip: number): void {
  const texts = files.length ? files.map((f) => env.readFile(f) ?? '') : [env.stdin.text];
  const prefix = directory ? `${directory.text}/` : '';
  for (const text of texts) for (const t of patchTargets(text, strip)) env.write({ text: prefix + t, dynamic: directory?.dynamic ?? false });
  if (directory) env.write(directory, true);
}

interface Pathspec {
  path: string;
  exclude: boolean;
  top: boolean;
  dynamic: boolean;
}

function parsePathspec(w: Word): Pathspec {
  let t = w.text;
  let exclude = false;
  let top = false;
  if (t.startsWith(':(')) {
    const end = t.indexOf(')');
    const magic = t.slice(2, end < 0 ? t.length : end).split(',');
    exclude = magic.includes('exclude');
    top = magic.includes('top');
    t = end < 0 ? '' : t.slice(end + 1);
  } else if (t.startsWith(':')) {
    let i = 1;
    for (; i < t.length && '/!^'.includes(t[i] as string); i++) {
      if (t[i] === '/') top = true;
      else exclude = true;
    }
    if (t[i] === ':') i++;
    t = t.slice(i);
  }
  return { path: t || '.', exclude, top, dynamic: w.dynamic };
}

/**
 * Does the pathspec set reach `.GCC/`? With no include pathspec the command covers the whole tree
 * (`scope: 'tree'`) or the current directory (`'cwd'`); `emptyTouches: false` for commands that
 * do nothing without a pathspec.
 */
function touches(env: CommandEnv, words: Word[], scope: 'tree' | 'cwd', emptyTouches = true): boolean {
  const specs = words.map(parsePathspec);
  const includes = specs.filter((s) => !s.exclude);
  const excludes = specs.filter((s) => s.exclude);
  const gcc = env.mem.gccDir ? resolve(env.mem.gccDir) : undefined;
  const root = gcc ? dirname(gcc) : undefined;
  const abs = (s: Pathspec): string | null => {
    if (s.dynamic || /[*?[]/.test(s.path)) return null;
    if (s.top) return root ? resolve(root, s.path) : null;
    return env.absolute({ text: s.path, dynamic: false });
  };
  if (excludes.some((s) => {
    const a = abs(s);
    return a !== null && gcc !== undefined && isWithin(gcc, a);
  })) return false;
  if (!includes.length) {
    if (!emptyTouches && !specs.length) return false;
    if (scope === 'tree' || !gcc) return true;
    const here = env.absolute({ text: '.', dynamic: false });
    return here === null || isWithin(gcc, here) || isWithin(here, gcc);
  }
  return includes.some((s) => {
    if (pathMentionsGcc(s.path)) return true;
    if (s.dynamic) return true;
    if (!gcc) return s.path === '.' || s.top;
    const wild = /[*?[]/.exec(s.path);
    const fixed = wild ? s.path.slice(0, s.path.lastIndexOf('/', wild.index) + 1) || '.' : s.path;
    const a = abs({ ...s, path: fixed });
    if (a === null) return true;
    return isWithin(gcc, a) || isWithin(a, gcc);
  });
}
