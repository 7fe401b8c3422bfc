/**
 * Test support for the write-guard corpus: a throwaway project holding a `.GCC/` tree (an
 * `events/` folder with segment files, generated files), a real git repository in one of two
 * states, archives, patches and scripts for the commands to use, and a fake Codex `apply_patch`
 * on PATH. A command is run for real with `bash -c` inside a fresh copy, and `.GCC/` is
 * snapshotted before and after: every path, its type, mode, owner, link count, size, mtime and
 * content hash.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, cpSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { gzipSync } from 'node:zlib';
import { dirname, join } from 'node:path';

export type Variant = 'uncommitted' | 'committed';

/** Programs the corpus runs, with the Debian package that brings each. */
export const PACKAGES: Record<string, string> = {
  bash: 'bash', git: 'git', tar: 'tar', gzip: 'gzip', bzip2: 'bzip2', xz: 'xz-utils', zstd: 'zstd', lz4: 'lz4', compress: 'ncompress',
  rsync: 'rsync', zip: 'zip', unzip: 'unzip', patch: 'patch', python3: 'python3', perl: 'perl', ruby: 'ruby', gawk: 'gawk', node: 'nodejs',
  shred: 'coreutils', truncate: 'coreutils', find: 'findutils', xargs: 'findutils', sed: 'sed', base64: 'coreutils', less: 'less',
};

/** Programs on PATH that are missing, each with its package. */
export function missingPrograms(names: Iterable<string>): string[] {
  const out: string[] = [];
  for (const n of new Set(names)) {
    const r = spawnSync('bash', ['-c', `command -v ${n}`], { encoding: 'utf8' });
    if (r.status !== 0) out.push(`${n} (Debian package: ${PACKAGES[n] ?? n})`);
  }
  return out;
}

const APPLY_PATCH = `#!/usr/bin/env node
// A stand-in for Codex's apply_patch: Add, Delete, Update (with Move to), headers matched trimmed.
const fs = require('fs');
const path = require('path');
let lines = (process.argv[2] ?? fs.readFileSync(0, 'utf8')).trim().split('\\n');
if (/^<<['"]?EOF['"]?$/.test(lines[0])) lines = lines.slice(1, -1);
const ops = [];
let cur = null;
for (const raw of lines) {
  const t = raw.trim();
  const h = /^\\*\\*\\* (Add|Update|Delete) File: (.+)$/.exec(t);
  if (h) { cur = { op: h[1], path: h[2].trim(), add: [], old: [], neu: [] }; ops.push(cur); continue; }
  if (!cur) continue;
  const m = /^\\*\\*\\* Move to: (.+)$/.exec(t);
  if (m) { cur.move = m[1].trim(); continue; }
  if (t.startsWith('***') || raw.startsWith('@@')) continue;
  if (cur.op === 'Add' && raw.startsWith('+')) cur.add.push(raw.slice(1));
  else if (raw.startsWith('-')) cur.old.push(raw.slice(1));
  else if (raw.startsWith('+')) cur.neu.push(raw.slice(1));
  else if (raw.startsWith(' ')) { cur.old.push(raw.slice(1)); cur.neu.push(raw.slice(1)); }
}
for (const o of ops) {
  if (o.op === 'Add') { fs.mkdirSync(path.dirname(o.path), { recursive: true }); fs.writeFileSync(o.path, o.add.join('\\n') + '\\n'); }
  else if (o.op === 'Delete') fs.unlinkSync(o.path);
  else {
    const out = fs.readFileSync(o.path, 'utf8').replace(o.old.join('\\n'), o.neu.join('\\n'));
    const dest = o.move ?? o.path;
    fs.mkdirSync(path.dirname(dest), { recursive: true });
    fs.writeFileSync(dest, out);
    if (o.move) fs.unlinkSync(o.path);
  }
}
console.log('Done!');
`;

const PATCH = (file: string, prefix: boolean) =>
  `--- ${prefix ? 'a/' : ''}${file}\n+++ ${prefix ? 'b/' : ''}${file}\n@@ -1,2 +1,2 @@\n # main\n-alpha beta\n+patched\n`;

export interface Sandbox {
  /** Holds the project, its HOME, templates and bin/. */
  root: string;
  /** The project: where commands run. */
  proj: string;
  gccDir: string;
  env: NodeJS.ProcessEnv;
}

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** Build the template once per variant; each case runs in a copy. */
export function template(variant: Variant): Sandbox {
  const root = mkdtempSync(join(tmpdir(), `gcc-corpus-${variant}-`));
  const proj = join(root, 'proj');
  const gcc = join(proj, '.GCC');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: root,
    PATH: `${join(root, 'bin')}:${process.env.PATH ?? ''}`,
    GIT_CONFIG_GLOBAL: join(root, 'gitconfig'),
    GIT_CONFIG_NOSYSTEM: '1',
    LC_ALL: 'C',
  };
  write(join(root, 'gitconfig'), '[user]\n\tname = Corpus\n\temail = corpus@example.invalid\n[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n[advice]\n\tdetachedHead = false\n');
  write(join(root, 'bin/apply_patch'), APPLY_PATCH);
  chmodSync(join(root, 'bin/apply_patch'), 0o755);
  symlinkSync('apply_patch', join(root, 'bin/applypatch'));

  write(join(gcc, 'events/0001.seg'), '{"seq":1,"type":"session.started"}\n');
  write(join(gcc, 'events/0002.seg'), '{"seq":2,"type":"tool.recorded"}\n');
  write(join(gcc, 'main.md'), '# main\nalpha beta\n');
  write(join(gcc, 'log.md'), '# log\nalpha entry\n');
  writeFileSync(join(gcc, 'old.md.gz'), gzipSync('# an older projection\n'));
  write(join(gcc, 'branches/feature/commit.md'), '# feature\nalpha\n');
  mkdirSync(join(gcc, 'branches/empty'), { recursive: true });
  write(join(gcc, 'branches/empty/.keep'), '');
  write(join(proj, 'src/app.ts'), 'export const a = 1;\n');
  write(join(proj, 'notes.md'), 'alpha notes\n');
  write(join(proj, '.GCC-notes/todo.md'), 'alpha todo\n');
  write(join(proj, 'x.GCC'), 'not the memory\n');
  write(join(proj, 'list.txt'), '.GCC/main.md\n');
  write(join(proj, 'script.sh'), 'rm -f .GCC/log.md\n');
  write(join(proj, 'read.sh'), 'cat .GCC/main.md\n');
  write(join(proj, 'gcc.patch'), PATCH('.GCC/main.md', true));
  write(join(proj, 'main.patch'), PATCH('main.md', false));
  write(join(proj, 'src.patch'), '--- a/src/app.ts\n+++ b/src/app.ts\n@@ -1 +1 @@\n-export const a = 1;\n+export const a = 2;\n');
  mkdirSync(join(proj, 'backup-dir'));
  // Templates to copy or archive: one holds a .GCC/, one does not.
  write(join(root, 'tpl/.GCC/main.md'), '# restored from a backup\n');
  write(join(root, 'tpl-safe/docs/readme.md'), '# docs\n');
  const run = (cmd: string, args: string[], cwd: string) => execFileSync(cmd, args, { cwd, env, stdio: 'pipe' });
  run('tar', ['-cf', join(proj, 'backup.tar'), '.GCC'], join(root, 'tpl'));
  run('tar', ['-czf', join(proj, 'backup.tgz'), '.GCC'], join(root, 'tpl'));
  run('tar', ['-cf', join(proj, 'safe.tar'), 'docs'], join(root, 'tpl-safe'));
  run('zip', ['-qr', join(proj, 'backup.zip'), '.GCC'], join(root, 'tpl'));
  run('zip', ['-qr', join(proj, 'safe.zip'), 'docs'], join(root, 'tpl-safe'));

  run('git', ['init', '-q'], proj);
  if (variant === 'committed') {
    run('git', ['add', '-A'], proj);
    run('git', ['commit', '-qm', 'everything'], proj);
  } else {
    // One segment committed and then appended to, one never added: both unknown to git.
    run('git', ['add', '-A', '--', '.', ':!.GCC/events/0002.seg'], proj);
    run('git', ['commit', '-qm', 'all but the newest segment'], proj);
    writeFileSync(join(gcc, 'events/0001.seg'), '{"seq":1,"type":"session.started"}\n{"seq":3,"type":"commit"}\n');
  }
  write(join(proj, 'scratch.txt'), 'untracked\n');
  write(join(proj, 'src/scratch.txt'), 'untracked\n');
  return { root, proj, gccDir: gcc, env };
}

let copies = 0;

/** A fresh copy of a template, with the same layout and git state. */
export function fresh(t: Sandbox): Sandbox {
  const root = `${t.root}-case${++copies}`;
  cpSync(t.root, root, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true });
  const proj = join(root, 'proj');
  const env = { ...t.env, HOME: root, PATH: `${join(root, 'bin')}:${process.env.PATH ?? ''}`, GIT_CONFIG_GLOBAL: join(root, 'gitconfig') };
  // A copied repository's index holds the old inodes: refresh it, as a repository used in place would be.
  spawnSync('git', ['update-index', '-q', '--refresh'], { cwd: proj, env, stdio: 'ignore' });
  return { root, proj, gccDir: join(proj, '.GCC'), env };
}

/** Run the command for real, as an agent's shell tool would. */
export function runBash(command: string, sb: Sandbox): { status: number | null; output: string } {
  const r = spawnSync('bash', ['-c', command], { cwd: sb.proj, env: sb.env, encoding: 'utf8', timeout: 30_000, stdio: ['ignore', 'pipe', 'pipe'] });
  return { status: r.status, output: `${r.stdout}${r.stderr}`.slice(0, 2000) };
}

export type Snapshot = Record<string, string>;

/** Every path under `dir` with what a change could touch; `{}` when `dir` is gone. */
export function snapshot(dir: string, rel = ''): Snapshot {
  const out: Snapshot = {};
  const here = join(dir, rel);
  let st;
  try {
    st = lstatSync(here);
  } catch {
    return out;
  }
  const meta = `${st.mode.toString(8)} ${st.uid}:${st.gid} n${st.nlink}`;
  if (st.isSymbolicLink()) out[rel || '.'] = `link ${meta} -> ${readlinkSync(here)}`;
  else if (st.isDirectory()) {
    out[rel || '.'] = `dir ${st.mode.toString(8)} ${st.uid}:${st.gid}`;
    for (const e of readdirSync(here).sort()) Object.assign(out, snapshot(dir, rel ? `${rel}/${e}` : e));
  } else {
    const hash = createHash('sha256').update(readFileSync(here)).digest('hex').slice(0, 16);
    out[rel] = `file ${meta} ${st.size} ${st.mtimeMs} ${hash}`;
  }
  return out;
}

/** What differs between two snapshots, for a failure message. */
export function diff(a: Snapshot, b: Snapshot): string[] {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  return keys.filter((k) => a[k] !== b[k]).map((k) => `${k}: ${a[k] ?? '(absent)'} => ${b[k] ?? '(absent)'}`);
}

/** Event files lost or altered: content only, so a rewrite with the same bytes is no loss. */
export function lostEvents(before: Snapshot, after: Snapshot): string[] {
  const content = (v: string | undefined) => v?.split(' ').at(-1);
  return Object.keys(before)
    .filter((k) => k.startsWith('events/') && before[k]?.startsWith('file'))
    .filter((k) => content(before[k]) !== content(after[k]));
}
