import { basename, type CommandEnv, has, NO_STDIN, type OptionSpec, parseOptions, type Stdin, value } from './command-env.js';
import { findOutput, findWrites } from './find-writes.js';
import { textMentionsGcc } from './gcc-paths.js';
import { gitWrites } from './git-writes.js';
import { interpreterWrites, INTERPRETERS } from './inline-code.js';
import { patchTargets } from './patch-targets.js';
import { awkWrites, sedWrites } from './program-scripts.js';
import type { Word } from './shell-effects.js';
import { archiveWrites, copyWrites } from './tree-writes.js';

/**
 * The per-program rules: which of a command's words it writes, creates, moves or removes.
 * Programs not named here are taken to write nothing but their redirections.
 */

/** Every operand is written, created, moved or removed; the regex marks flags that make it recursive. */
const ALL_OPERANDS: Record<string, OptionSpec & { recursive?: RegExp }> = {
  rm: { recursive: /^-[a-zA-Z]*[rR]|^--recursive$/ },
  rmdir: {},
  unlink: {},
  shred: { short: 'ns', long: ['iterations', 'size', 'random-source'] },
  touch: { short: 'drt', long: ['date', 'reference'] },
  truncate: { short: 'sr', long: ['size', 'reference'] },
  mkdir: { short: 'mZ', long: ['mode'] },
  chmod: { recursive: /^-[a-zA-Z]*R|^--recursive$/ },
  chown: { recursive: /^-[a-zA-Z]*R|^--recursive$/ },
  chgrp: { recursive: /^-[a-zA-Z]*R|^--recursive$/ },
  chattr: { short: 'pv', recursive: /^-[a-zA-Z]*R$/ },
  setfacl: { short: 'mxMX', long: ['modify', 'remove', 'set', 'modify-file', 'remove-file', 'set-file'], recursive: /^-[a-zA-Z]*R|^--recursive$/ },
  mkfifo: { short: 'mZ', long: ['mode'] },
  mknod: { short: 'mZ', long: ['mode'] },
  tee: {},
  rename: {},
  srm: {},
  trash: {},
  'trash-put': {},
  sponge: {},
  ed: {},
  red: {},
  ex: {},
  dos2unix: {},
  unix2dos: {},
  mktemp: { short: 'p', long: ['tmpdir', 'suffix'] },
};

/** Shells: their argument, script file or standard input is shell code. */
export const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'fish', 'rbash', 'ash', 'yash', 'posh']);

const COMPRESSORS = new Set([
  'gzip', 'gunzip', 'bzip2', 'bunzip2', 'xz', 'unxz', 'lzma', 'unlzma', 'zstd', 'unzstd', 'zstdmt', 'lz4', 'unlz4', 'compress',
  'uncompress', 'pigz', 'unpigz', 'pbzip2', 'lzip', 'lunzip', 'brotli', 'lzop', 'lbzip2',
]);

/** Formatters and fixers that rewrite their operands in place when given the flag (or always, with ''). */
const IN_PLACE_TOOLS: Record<string, { flag: RegExp; recursive?: boolean }> = {
  prettier: { flag: /^(?:--write|-w)$/, recursive: true },
  eslint: { flag: /^--fix$/ },
  biome: { flag: /^--(?:write|apply|apply-unsafe|fix)$/, recursive: true },
  dprint: { flag: /^fmt$/, recursive: true },
  'clang-format': { flag: /^-i$/ },
  gofmt: { flag: /^-[a-z]*w/ },
  goimports: { flag: /^-w$/ },
  shfmt: { flag: /^-[a-z]*w/ },
  black: { flag: /^/ },
  isort: { flag: /^/ },
  rustfmt: { flag: /^/ },
  autopep8: { flag: /^(?:-i|--in-place)$/ },
  ruff: { flag: /^(?:format|--fix)$/ },
  yq: { flag: /^(?:-i|--inplace)$/ },
  jq: { flag: /^(?:-i|--in-place)$/ },
};

export function programWrites(env: CommandEnv): void {
  const { name, args } = env;
  if (SHELLS.has(name)) return shellProgram(env);
  if (INTERPRETERS.has(name)) return interpreterWrites(env);
  if (COMPRESSORS.has(name)) return compressor(env);
  const all = ALL_OPERANDS[name];
  if (all) {
    const recursive = all.recursive ? args.some((w) => all.recursive!.test(w.text)) : false;
    const { operands, values } = parseOptions(args, all);
    for (const w of operands) env.write(w, recursive);
    // mktemp -p DIR / --tmpdir=DIR creates its file there.
    const dir = value(values, 'p', 'tmpdir');
    if (name === 'mktemp' && dir) env.write({ text: `${dir.text}/tmp.X`, dynamic: dir.dynamic });
    return;
  }
  const inPlace = IN_PLACE_TOOLS[name];
  if (inPlace) {
    if (!args.some((w) => inPlace.flag.test(w.text))) return;
    const { operands } = parseOptions(args);
    const targets = operands.filter((w) => !inPlace.flag.test(w.text));
    for (const w of targets.length || !inPlace.recursive ? targets : [{ text: '.', dynamic: false }]) env.write(w, inPlace.recursive === true);
    return;
  }
  switch (name) {
    case 'cp':
    case 'install':
    case 'rsync':
    case 'scp':
    case 'ditto':
    case 'mv':
    case 'ln':
    case 'cpio':
      return copyWrites(env);
    case 'tar':
    case 'unzip':
    case 'zip':
    case '7z':
    case '7za':
    case '7zr':
      return archiveWrites(env);
    case 'git':
      return gitWrites(env);
    case 'find':
      return findWrites(env);
    case 'sed':
    case 'gsed':
      return sedWrites(env);
    case 'awk':
    case 'gawk':
    case 'mawk':
    case 'nawk':
    case 'busybox-awk':
      return awkWrites(env);
    case 'apply_patch':
    case 'applypatch':
      return codexPatch(env);
    case 'patch':
      return unifiedPatch(env);
    case 'xargs':
    case 'parallel':
      return fedCommand(env);
    case 'watch': {
      const { operands } = parseOptions(args, { short: 'nq', long: ['interval', 'equexit'] });
      env.nested(operands.map((w) => w.text).join(' '));
      return;
    }
    case 'dd':
      for (const w of args) if (w.text.startsWith('of=')) env.write({ text: w.text.slice(3), dynamic: w.dynamic });
      return;
    case 'sort': {
      const { values } = parseOptions(args, { short: 'ktSTo', long: ['key', 'field-separator', 'buffer-size', 'temporary-directory', 'output', 'parallel', 'batch-size', 'compress-program', 'files0-from', 'random-source'] });
      const o = value(values, 'o', 'output');
      if (o) env.write(o);
      return;
    }
    case 'uniq': {
      const { operands } = parseOptions(args, { short: 'fsw', long: ['skip-fields', 'skip-chars', 'check-chars'] });
      if (operands[1]) env.write(operands[1]);
      return;
    }
    case 'split':
    case 'csplit': {
      const { operands, values } = parseOptions(args, { short: name === 'split' ? 'abClnt' : 'bfn', long: ['suffix-length', 'bytes', 'line-bytes', 'lines', 'number', 'separator', 'additional-suffix', 'prefix', 'suffix-format', 'digits'] });
      const prefix = name === 'split' ? (operands[1] ?? { text: 'x', dynamic: false }) : (value(values, 'f', 'prefix') ?? { text: 'xx', dynamic: false });
      env.write({ text: `${prefix.text}00`, dynamic: prefix.dynamic });
      return;
    }
    case 'curl':
    case 'wget':
      return download(env);
    case 'iconv':
    case 'pandoc':
    case 'xmllint': {
      const { values } = parseOptions(args, { short: name === 'iconv' ? 'oft' : 'ofto', long: ['output', 'from-code', 'to-code', 'to', 'from'] });
      const o = value(values, 'o', 'output');
      if (o) env.write(o);
      return;
    }
    case 'vi':
    case 'vim':
    case 'nvim': {
      // Only scripted runs (-c, +cmd, -s, -e/-E silent mode) write without a person at the keys.
      if (!args.some((w) => /^(?:-c|-s|-es|-Es|-e|-E|\+.+)$/.test(w.text))) return;
      const { operands } = parseOptions(args, { short: 'csSoOpTuUiw', long: ['cmd'] });
      for (const w of operands) if (!w.text.startsWith('+')) env.write(w);
      return;
    }
  }
}

/** `sh -c CODE`, `bash script.sh`, `sh -s`, `echo … | sh`: the code is analysed as shell code. */
function shellProgram(env: CommandEnv): void {
  const { args } = env;
  let command = false;
  let fromStdin = false;
  const operands: Word[] = [];
  for (let k = 0; k < args.length; k++) {
    const t = (args[k] as Word).text;
    if (operands.length) operands.push(args[k] as Word);
    else if (t === '-' || t === '--') fromStdin = t === '-' || fromStdin;
    else if (/^[-+]o$/.test(t) || t === '-O' || t === '+O' || t === '--rcfile' || t === '--init-file') k++;
    else if (/^-[a-zA-Z]+$/.test(t)) {
      if (t.includes('c')) command = true;
      if (t.includes('s')) fromStdin = true;
    } else if (!t.startsWith('-') && !t.startsWith('+')) operands.push(args[k] as Word);
  }
  if (command) {
    const code = operands[0];
    // Code built by a substitution (`sh -c "$(…)"`) is known only by what it names.
    if (code?.dynamic && textMentionsGcc(code.text)) env.decided('runs shell code built at run time that names .GCC');
    else if (code) env.nested(code.text, operands.slice(1));
    return;
  }
  if (operands.length && !fromStdin) {
    const script = env.readFile(operands[0] as Word);
    if (script !== null) env.nested(script, operands);
    else if (textMentionsGcc((operands[0] as Word).text)) env.decided(`runs the script ${(operands[0] as Word).text}`);
    return;
  }
  const { stdin } = env;
  if (!stdin.present) return;
  if (stdin.exact) env.nested(stdin.text, [{ text: env.name, dynamic: false }, ...operands]);
  else if (textMentionsGcc(stdin.text)) env.decided('shell code fed on standard input names .GCC');
}

function compressor(env: CommandEnv): void {
  const { operands, values } = parseOptions(env.args, { short: 'oSDbB', long: ['suffix', 'output', 'format'] });
  const out = value(values, 'o', 'output');
  if (out) env.write(out);
  const toStdout = has(values, 'c', 'stdout', 'to-stdout', 't', 'test', 'l', 'list', 'h', 'help', 'V', 'version');
  if (toStdout || out) return;
  const recursive = has(values, 'r', 'recursive');
  // lz4 writes to stdout (never a terminal under an agent) unless given -m or an output name.
  if (env.name === 'lz4' || env.name === 'unlz4') {
    if (has(values, 'm', 'multiple')) for (const w of operands) env.write(w);
    else if (operands[1]) env.write(operands[1]);
    return;
  }
  for (const w of operands) env.write(w, recursive);
}

function download(env: CommandEnv): void {
  const curl = env.name === 'curl';
  const spec: OptionSpec = curl
    ? { short: 'oDcuHXdFAeErTbKwmxyYzC', long: ['output', 'output-dir', 'dump-header', 'cookie-jar', 'trace', 'trace-ascii', 'stderr', 'libcurl', 'etag-save', 'hsts', 'alt-svc', 'user', 'header', 'request', 'data', 'form', 'user-agent', 'referer', 'upload-file'] }
    : { short: 'OPoaeitTUw', long: ['output-document', 'directory-prefix', 'output-file', 'append-output', 'execute', 'input-file', 'tries', 'timeout', 'user-agent', 'wait'] };
  const { values } = parseOptions(env.args, spec);
  const files = curl ? ['o', 'output', 'D', 'dump-header', 'c', 'cookie-jar', 'trace', 'trace-ascii', 'stderr', 'libcurl', 'etag-save', 'hsts', 'alt-svc'] : ['O', 'output-document', 'o', 'output-file', 'a', 'append-output'];
  for (const k of files) for (const w of values.get(k) ?? []) if (w.text !== '-') env.write(w);
  const dir = curl ? value(values, 'output-dir') : value(values, 'P', 'directory-prefix');
  if (dir) env.write({ text: `${dir.text}/download`, dynamic: dir.dynamic });
}

/** Codex's `apply_patch` run through the shell: the patch is its argument or its standard input. */
function codexPatch(env: CommandEnv): void {
  const text = env.args[0]?.text ?? env.stdin.text;
  const dynamic = env.args[0]?.dynamic ?? !env.stdin.exact;
  const targets = patchTargets(text);
  for (const t of targets) env.write({ text: t, dynamic: false });
  if (!targets.length && dynamic && textMentionsGcc(text)) env.decided('apply_patch with a patch that names .GCC');
}

/** `patch [-p N] [-d DIR] [FILE] < x.patch`: the file named, else every file the diff names. */
function unifiedPatch(env: CommandEnv): void {
  const { operands, values } = parseOptions(env.args, { short: 'iodpDFrBVYzg', long: ['input', 'output', 'directory', 'strip', 'ifdef', 'fuzz', 'reject-file', 'prefix', 'version-control', 'basename-prefix', 'suffix', 'get', 'quoting-style'] });
  if (has(values, 'dry-run')) return;
  for (const k of ['o', 'output', 'r', 'reject-file']) for (const w of values.get(k) ?? []) if (w.text !== '-') env.write(w);
  const dir = value(values, 'd', 'directory');
  const prefix = dir ? `${dir.text}/` : '';
  if (operands[0]) {
    env.write({ text: prefix + operands[0].text, dynamic: operands[0].dynamic || (dir?.dynamic ?? false) });
    return;
  }
  const input = value(values, 'i', 'input');
  const text = input ? (env.readFile(input) ?? input.text) : env.stdin.text;
  const strip = Number(value(values, 'p', 'strip')?.text ?? '0') || 0;
  const targets = patchTargets(text, strip);
  for (const t of targets) env.write({ text: prefix + t, dynamic: dir?.dynamic ?? false });
  if (!targets.length && dir) env.write(dir, true);
}

/** `ls .GCC | xargs rm`, `xargs -I{} cp {} dir`, `parallel rm ::: a b`: the fed names join the command. */
function fedCommand(env: CommandEnv): void {
  const xargs = env.name === 'xargs';
  const spec: OptionSpec = xargs
    ? { short: 'IaLlnPsdEe', long: ['arg-file', 'max-lines', 'max-args', 'max-procs', 'max-chars', 'delimiter', 'eof', 'process-slot-var'] }
    : { short: 'jIS', long: ['jobs', 'sshlogin', 'joblog', 'results', 'tmpdir', 'workdir'] };
  let k = 0;
  const values = new Map<string, Word>();
  const args = env.args;
  for (; k < args.length; k++) {
    const t = (args[k] as Word).text;
    if (!t.startsWith('-') || t === '-') break;
    const letter = t.startsWith('--') ? (t.slice(2).split('=')[0] ?? '') : t.slice(1, 2);
    const takes = t.startsWith('--') ? !t.includes('=') && (spec.long ?? []).includes(letter) : t.length === 2 && (spec.short ?? '').includes(letter);
    const v = takes ? args[++k] : t.includes('=') ? { text: t.slice(t.indexOf('=') + 1), dynamic: false } : t.length > 2 && !t.startsWith('--') ? { text: t.slice(2), dynamic: false } : undefined;
    if (v) values.set(letter, v);
    else if (letter === 'i' || letter === 'replace') values.set('I', { text: '{}', dynamic: false });
  }
  let command = args.slice(k);
  let fed: Word[];
  const triple = command.findIndex((w) => w.text === ':::' || w.text === '::::');
  if (!xargs && triple >= 0) {
    fed = command.slice(triple + 1);
    command = command.slice(0, triple);
  } else {
    const file = values.get('a') ?? values.get('arg-file');
    const text = file ? (env.readFile(file) ?? file.text) : env.stdin.text;
    fed = [{ text, dynamic: true }];
  }
  if (!command.length) command = [{ text: 'echo', dynamic: false }];
  const marker = values.get('I')?.text ?? (xargs ? undefined : '{}');
  for (const item of fed) {
    const words = marker && command.some((w) => w.text.includes(marker))
      ? command.map((w) => (w.text.includes(marker) ? { text: w.text.split(marker).join(item.text), dynamic: w.dynamic || item.dynamic } : w))
      : [...command, item];
    env.report(env.probe(words));
  }
}

export type EnvFactory = (name: string, args: Word[], stdin: Stdin) => CommandEnv;

/** What a pipeline's commands print for the next one: exact for echo, printf and cat of readable files. */
export function upstreamOutput(stages: { words: Word[]; own: Stdin }[], envFor: EnvFactory): Stdin {
  let input: Stdin = NO_STDIN;
  for (const s of stages) input = outputOf(s.words, s.own.present ? s.own : input, envFor);
  return { ...input, present: true };
}

function outputOf(words: Word[], stdin: Stdin, envFor: EnvFactory): Stdin {
  const [head, ...args] = words;
  const name = basename(head?.text ?? '');
  const all = words.map((w) => w.text).join(' ');
  const dynamic = args.some((w) => w.dynamic);
  switch (name) {
    case 'echo': {
      let k = 0;
      while (k < args.length && /^-[neE]+$/.test((args[k] as Word).text)) k++;
      const text = args.slice(k).map((w) => w.text).join(' ');
      // dash's echo reads escapes without -e; reading them is the cautious choice either way.
      return { text: unescape(text), exact: !dynamic, present: true };
    }
    case 'printf': {
      const [format, ...rest] = args;
      let i = 0;
      const text = unescape((format?.text ?? '').replace(/%%|%[-+ #0-9.]*[a-zA-Z]/g, (m) => (m === '%%' ? '%' : (rest[i++]?.text ?? ''))));
      return { text: i < rest.length ? `${text} ${rest.slice(i).map((w) => w.text).join(' ')}` : text, exact: !dynamic, present: true };
    }
    case 'cat': {
      const files = args.filter((w) => !w.text.startsWith('-') || w.text === '-');
      if (!files.length) return stdin;
      const contents = files.map((f) => (f.text === '-' ? stdin.text : envFor('cat', [], NO_STDIN).readFile(f)));
      const exact = contents.every((c) => c !== null);
      return { text: exact ? contents.join('') : `${all}\n${contents.filter((c) => c !== null).join('\n')}`, exact, present: true };
    }
    case 'tee':
      return stdin;
    case 'find':
      return { text: `${all}\n${findOutput(envFor('find', args, NO_STDIN)) ?? ''}`, exact: false, present: true };
    default:
      return { text: `${all}\n${stdin.text}`, exact: false, present: true };
  }
}

function unescape(text: string): string {
  return text.replace(/\\([nt\\])/g, (_m, c: string) => (c === 'n' ? '\n' : c === 't' ? '\t' : '\\'));
}
