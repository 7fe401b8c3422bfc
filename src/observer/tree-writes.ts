import { existsSync, statSync } from 'node:fs';
import { join, normalize, relative, resolve } from 'node:path';
import { zlib } from '../runtime/lazy-deps.js';
import { basename, type CommandEnv, has, type OptionSpec, parseOptions, value } from './command-env.js';
import { isWithin, type Word } from './shell-effects.js';

/**
 * Commands that put a tree of files somewhere: copies and moves (cp -r, rsync, mv, install, ln),
 * and archive extraction (tar -x, unzip). Into `.GCC/` is a write. Into a folder above it, the
 * question is whether the tree holds a `.GCC` at the matching place: a local source folder is
 * looked at, a tar or zip archive is listed (plain tar, gzip'd tar, zip). A remote source counts
 * as "may hold it". Archives in other formats (xz, bzip2, zstd tarballs, 7z) cannot be listed
 * here and are allowed: the store's integrity checks catch what they overwrite.
 */

const MAX_ARCHIVE_BYTES = 64 << 20;

const COPY_SPECS: Record<string, OptionSpec> = {
  cp: { short: 'tS', long: ['target-directory', 'suffix'] },
  install: { short: 'tSmog', long: ['target-directory', 'suffix', 'mode', 'owner', 'group'] },
  mv: { short: 'tS', long: ['target-directory', 'suffix'] },
  ln: { short: 'tS', long: ['target-directory', 'suffix'] },
  rsync: { short: 'efTBM', long: ['exclude', 'include', 'filter', 'files-from', 'exclude-from', 'include-from', 'rsh', 'rsync-path', 'temp-dir', 'backup-dir', 'compare-dest', 'copy-dest', 'link-dest', 'partial-dir', 'chmod', 'chown', 'log-file', 'password-file', 'timeout', 'bwlimit', 'suffix', 'max-size', 'min-size', 'max-delete', 'out-format', 'usermap', 'groupmap'] },
  scp: { short: 'cFiJloPS' },
  ditto: {},
  cpio: { short: 'EFHIMORV', long: ['file', 'format', 'pattern-file'] },
};

export function copyWrites(env: CommandEnv): void {
  const { name, args } = env;
  const { operands, values } = parseOptions(args, COPY_SPECS[name] ?? {});
  if (name === 'cpio') {
    // Pass-through (-p DIR) copies the names read on stdin into DIR; -i extracts an unseen archive.
    if (has(values, 'p', 'pass-through') && operands[0]) env.write(operands[0]);
    return;
  }
  if (name === 'install' && has(values, 'd', 'directory')) {
    for (const w of operands) env.write(w);
    return;
  }
  const targetDir = value(values, 't', 'target-directory');
  const dest = targetDir ?? operands[operands.length - 1];
  const sources = targetDir ? operands : operands.slice(0, -1);
  if (!dest) return;
  const recursive = name === 'mv' || has(values, 'r', 'R', 'a', 'recursive', 'archive') || name === 'ditto';
  const destAbs = env.absolute(dest);
  const destIsDir = targetDir !== undefined || sources.length > 1 || /\/\.?$/.test(dest.text) || (destAbs !== null && isDir(destAbs));
  const hardLink = (name === 'ln' && !has(values, 's', 'symbolic')) || (name === 'cp' && has(values, 'l', 'link'));
  for (const src of sources) {
    // Moving out of .GCC removes from it; a hard link to a memory file lets later writes bypass the guard.
    if (name === 'mv' || hardLink || (name === 'rsync' && has(values, 'remove-source-files'))) env.write(src, name === 'mv');
    const contents = (name === 'rsync' && src.text.endsWith('/')) || (name === 'cp' && /\/\.$/.test(src.text));
    const mapped: Word = destIsDir && !contents ? { text: `${dest.text.replace(/\/+$/, '')}/${basename(src.text)}`, dynamic: dest.dynamic || src.dynamic } : dest;
    env.write(mapped);
    if (recursive && name !== 'ln') treeInto(env, mapped, src);
  }
  if (!sources.length) env.write(dest);
  // rsync --delete removes whatever the source lacks; into a folder above .GCC it removes .GCC.
  const excludesGcc = [...(values.get('exclude') ?? []), ...(values.get('filter') ?? [])].some((w) => /\.gcc/i.test(w.text));
  if (name === 'rsync' && [...values.keys()].some((k) => k.startsWith('delete')) && !excludesGcc) env.write(dest, true);
}

/** A tree copied from `src` to `mapped`: does it hold something where `.GCC/` is? */
function treeInto(env: CommandEnv, mapped: Word, src: Word): void {
  const gcc = env.mem.gccDir ? resolve(env.mem.gccDir) : undefined;
  const to = env.absolute(mapped);
  if (!gcc || to === null || !isWithin(gcc, to) || gcc === to) return;
  const rel = relative(to, gcc);
  const remote = /^[^/]*:/.test(src.text) && !src.text.startsWith('./');
  const from = remote ? null : env.absolute(src);
  if (from === null) {
    env.write(mapped, true);
    return;
  }
  const first = rel.split('/')[0] as string;
  if (existsSync(join(from, first))) env.write({ text: `${mapped.text.replace(/\/+$/, '')}/${rel}`, dynamic: false });
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

export function archiveWrites(env: CommandEnv): void {
  if (env.name === 'tar') return tar(env);
  if (env.name === 'unzip') return unzip(env);
  if (env.name === 'zip') {
    const { operands, values } = parseOptions(env.args, { short: 'bntxiPZO', long: ['out', 'temp-path', 'suffixes', 'password'] });
    if (operands[0]) env.write(operands[0]);
    const out = value(values, 'O', 'out');
    if (out) env.write(out);
    // -m moves the files into the archive: they are deleted.
    if (has(values, 'm', 'move')) for (const w of operands.slice(1)) env.write(w, true);
    return;
  }
  // 7z: `x`/`e` extract into -oDIR (default the current folder); a/u/d/rn change the archive.
  const [cmd, archive] = env.args.filter((w) => !w.text.startsWith('-'));
  const out = env.args.find((w) => w.text.startsWith('-o'));
  if (cmd && /^[xe]$/.test(cmd.text)) env.write(out ? { text: out.text.slice(2), dynamic: out.dynamic } : { text: '.', dynamic: false });
  else if (cmd && /^(?:a|u|d|rn)$/.test(cmd.text) && archive) env.write(archive);
}

const TAR_VALUES = 'fCTXbHKLNVgFI';
const TAR_LONG = ['file', 'directory', 'files-from', 'exclude-from', 'exclude', 'listed-incremental', 'use-compress-program', 'transform', 'xform', 'strip-components', 'owner', 'group', 'mode', 'mtime', 'newer', 'after-date', 'label', 'format', 'to-command', 'blocking-factor', 'record-size', 'index-file', 'rmt-command', 'rsh-command', 'volno-file', 'info-script', 'new-volume-script', 'tape-length', 'suffix', 'warning', 'add-file'];

function tar(env: CommandEnv): void {
  let args = env.args;
  // Old style: `tar xzf FILE -C DIR`: the first word is a cluster whose value letters take the next words.
  const first = args[0];
  if (first && /^[a-zA-Z]+$/.test(first.text)) {
    const expanded: Word[] = [];
    let k = 1;
    for (const letter of first.text) {
      expanded.push({ text: `-${letter}`, dynamic: false });
      if (TAR_VALUES.includes(letter) && args[k]) expanded.push(args[k++] as Word);
    }
    args = [...expanded, ...args.slice(k)];
  }
  const { operands, values } = parseOptions(args, { short: TAR_VALUES, long: TAR_LONG });
  const file = value(values, 'f', 'file');
  const extracting = has(values, 'x', 'extract', 'get');
  for (const w of values.get('g') ?? []) env.write(w);
  if (has(values, 'c', 'create', 'r', 'append', 'u', 'update', 'A', 'catenate', 'concatenate', 'delete')) {
    if (file && file.text !== '-') env.write(file);
    if (has(values, 'remove-files')) for (const w of operands) env.write(w, true);
    return;
  }
  if (!extracting || has(values, 'O', 'to-stdout', 'to-command')) return;
  const dir = value(values, 'C', 'directory') ?? { text: '.', dynamic: false };
  env.write(dir);
  const strip = Number(value(values, 'strip-components')?.text ?? '0') || 0;
  const members = file && file.text !== '-' ? listArchive(env, file, 'tar') : null;
  extractInto(env, dir, members, strip, operands);
}

function unzip(env: CommandEnv): void {
  const { operands, values } = parseOptions(env.args, { short: 'dxPIO' });
  if (has(values, 'l', 't', 'v', 'Z', 'p', 'c', 'z')) return;
  const dir = value(values, 'd') ?? { text: '.', dynamic: false };
  env.write(dir);
  const archive = operands[0];
  extractInto(env, dir, archive ? listArchive(env, archive, 'zip') : null, 0, operands.slice(1));
}

/** Report the members that land at or under `.GCC/` when extracted into `dir`. */
function extractInto(env: CommandEnv, dir: Word, members: string[] | null, strip: number, only: Word[]): void {
  const gcc = env.mem.gccDir ? resolve(env.mem.gccDir) : undefined;
  const to = env.absolute(dir);
  if (!gcc || to === null || members === null || !isWithin(gcc, to) || gcc === to) return;
  for (const raw of members) {
    const parts = normalize(raw).replace(/^(?:\.?\/)+/, '').split('/').filter(Boolean).slice(strip);
    if (!parts.length) continue;
    const member = parts.join('/');
    if (only.length && !only.some((w) => member === w.text.replace(/^\.\//, '') || member.startsWith(`${w.text.replace(/^\.\/|\/$/g, '')}/`))) continue;
    if (isWithin(join(to, member), gcc)) {
      env.write({ text: `${dir.text.replace(/\/+$/, '')}/${member}`, dynamic: false });
      return;
    }
  }
}

/** Member names of a plain or gzip'd tar, or a zip; null when the archive cannot be read. */
function listArchive(env: CommandEnv, file: Word, kind: 'tar' | 'zip'): string[] | null {
  const abs = env.absolute(file);
  if (abs === null) return null;
  try {
    if (statSync(abs).size > MAX_ARCHIVE_BYTES) return null;
  } catch {
    return null;
  }
  const text = env.readFile(file, MAX_ARCHIVE_BYTES);
  if (text === null) return null;
  let buf = Buffer.from(text, 'latin1');
  try {
    if (kind === 'zip' || (buf[0] === 0x50 && buf[1] === 0x4b)) return zipMembers(buf);
    if (buf[0] === 0x1f && buf[1] === 0x8b) buf = zlib().gunzipSync(buf, { maxOutputLength: MAX_ARCHIVE_BYTES });
    return tarMembers(buf);
  } catch {
    return null;
  }
}

function tarMembers(buf: Buffer): string[] | null {
  if (buf.length < 512 || buf.toString('latin1', 257, 262) !== 'ustar') return null;
  const out: string[] = [];
  let longName: string | null = null;
  for (let off = 0; off + 512 <= buf.length && out.length < 100_000; ) {
    const header = buf.subarray(off, off + 512);
    if (header.every((b) => b === 0)) break;
    const cstr = (a: number, b: number) => header.toString('utf8', a, b).replace(/\0.*$/s, '');
    const size = parseInt(cstr(124, 136).trim() || '0', 8) || 0;
    const type = String.fromCharCode(header[156] ?? 48);
    const body = buf.subarray(off + 512, off + 512 + size);
    off += 512 + Math.ceil(size / 512) * 512;
    if (type === 'L') {
      longName = body.toString('utf8').replace(/\0.*$/s, '');
      continue;
    }
    if (type === 'x') {
      const path = /\d+ path=([^\n]*)\n/.exec(body.toString('utf8'));
      if (path) longName = path[1] as string;
      continue;
    }
    if (type === 'g') continue;
    const prefix = cstr(345, 500);
    out.push(longName ?? (prefix ? `${prefix}/${cstr(0, 100)}` : cstr(0, 100)));
    longName = null;
  }
  return out;
}

function zipMembers(buf: Buffer): string[] | null {
  const from = Math.max(0, buf.length - 65_557);
  let eocd = -1;
  for (let i = buf.length - 22; i >= from; i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) return null;
  const count = buf.readUInt16LE(eocd + 10);
  let off = buf.readUInt32LE(eocd + 16);
  const out: string[] = [];
  for (let n = 0; n < count && off + 46 <= buf.length; n++) {
    if (buf.readUInt32LE(off) !== 0x02014b50) return null;
    const nameLen = buf.readUInt16LE(off + 28);
    const extra = buf.readUInt16LE(off + 30);
    const comment = buf.readUInt16LE(off + 32);
    out.push(buf.toString('utf8', off + 46, off + 46 + nameLen));
    off += 46 + nameLen + extra + comment;
  }
  return out;
}
