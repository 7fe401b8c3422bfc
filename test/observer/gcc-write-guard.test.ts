import { describe, expect, it, vi } from 'vitest';
import { gccWriteReason } from '../../src/observer/gcc-write-guard.js';
import type { ShellQuoteParse } from '../../src/runtime/lazy-deps.js';
import { MAX_COMMAND, PARSE_BUDGET } from '../../src/observer/shell-commands.js';

/** Characters handed to the tokenizer: the guard's work, counted instead of timed. */
let parsed = 0;
vi.mock('../../src/runtime/lazy-deps.js', async (original) => {
  const deps = await original<typeof import('../../src/runtime/lazy-deps.js')>();
  const counted = ((s: string, ...rest: Parameters<ShellQuoteParse> extends [string, ...infer R] ? R : never) => {
    parsed += s.length;
    return deps.shellQuoteParse()(s, ...rest);
  }) as ShellQuoteParse;
  return { ...deps, shellQuoteParse: () => counted };
});

const ROOT = '/tmp/gcc-guard-table';
const GCC = `${ROOT}/.GCC`;
const bash = (command: string, cwd = ROOT) => gccWriteReason({ tool: 'Bash', input: { command }, cwd, gccDir: GCC });

/** Commands that plainly write into .GCC/, with what the reason quotes. */
const FLAGGED: [string, string][] = [
  ['echo hi > .GCC/log.md', '> .GCC/log.md'],
  ['echo hi >> ./.GCC/log.md', '> ./.GCC/log.md'],
  ['printf x >| .GCC/a', '> .GCC/a'],
  ['make &> .GCC/build.log', '> .GCC/build.log'],
  ['echo x 2> .GCC/err', '> .GCC/err'],
  [`echo x > ${ROOT}/.GCC/x`, `> ${ROOT}/.GCC/x`],
  ['echo x > ".GCC/quoted name"', '> .GCC/quoted name'],
  ['echo x > .gcc/x', '> .gcc/x'],
  ['npm test 2>&1 | tee .GCC/test.log', 'tee .GCC/test.log'],
  ['rm -rf .GCC', 'rm .GCC'],
  ['rm -rf .GCC/events', 'rm .GCC/events'],
  ['sudo rm -f .GCC/main.md', 'rm .GCC/main.md'],
  ['env A=1 timeout 5 rm .GCC/x', 'rm .GCC/x'],
  ['X=1 nohup rm .GCC/x &', 'rm .GCC/x'],
  ['/bin/rm .GCC/x', 'rm .GCC/x'],
  ['mv .GCC/log.md /tmp/', 'mv .GCC/log.md'],
  ['mv notes.md .GCC/', 'mv .GCC/'],
  ['cp notes.md .GCC/main.md', 'cp .GCC/main.md'],
  ['cp -t .GCC a b', 'cp .GCC'],
  ['ln -sf /etc/passwd .GCC/x', 'ln .GCC/x'],
  ['truncate -s 0 .GCC/log.md', 'truncate .GCC/log.md'],
  ['touch .GCC/x', 'touch .GCC/x'],
  ['mkdir -p .GCC/branches/x', 'mkdir .GCC/branches/x'],
  ['rmdir .GCC/branches/x', 'rmdir .GCC/branches/x'],
  ['chmod -R 000 .GCC', 'chmod .GCC'],
  ['chown -R me .GCC', 'chown .GCC'],
  ["sed -i 's/a/b/' .GCC/main.md", 'sed .GCC/main.md'],
  ["sed -i.bak -e 's/a/b/' .GCC/main.md", 'sed .GCC/main.md'],
  ["perl -pi -e 's/a/b/' .GCC/log.md", 'perl .GCC/log.md'],
  ['dd if=/dev/zero of=.GCC/x bs=1 count=1', 'dd .GCC/x'],
  ['install -m 644 a .GCC/a', 'install .GCC/a'],
  ['rsync -a --delete backup/ .GCC/', 'rsync .GCC/'],
  ['tar -xzf memory.tgz -C .GCC', 'tar .GCC'],
  ['tar xf memory.tar --directory=.GCC', 'tar .GCC'],
  ['tar czf .GCC/backup.tgz src', 'tar .GCC/backup.tgz'],
  ['unzip -o memory.zip -d .GCC', 'unzip .GCC'],
  ['git rm -r .GCC', 'git rm .GCC'],
  ['git restore --staged --worktree .GCC/log.md', 'git restore .GCC/log.md'],
  ['git mv .GCC/main.md notes.md', 'git mv .GCC/main.md'],
  ['git checkout HEAD~1 -- .GCC/main.md', 'git checkout .GCC/main.md'],
  ['git restore --source=HEAD .GCC', 'git restore .GCC'],
  ['git clean -fdx .GCC', 'git clean .GCC'],
  ['git -C sub rm -r ../.GCC', 'git rm ../.GCC'],
  ["find .GCC -name '*.md' -delete", 'find .GCC -delete'],
  ['find .GCC -type f -exec rm {} \\;', 'find .GCC -delete'],
  ['find -L .GCC/branches -execdir rm -f {} +', 'find .GCC/branches -delete'],
  // The directory a plain `cd` moves to, and the commands within it.
  ["cd .GCC && echo '## [C999] fake' >> commit.md", '> commit.md'],
  ['cd .GCC; rm -f log.md', 'rm log.md'],
  ['cd src && rm ../.GCC/log.md', 'rm ../.GCC/log.md'],
  // Separators, newlines, comments, compound commands, substitutions.
  ['npm test && rm .GCC/log.md', 'rm .GCC/log.md'],
  ['ls\nrm .GCC/log.md', 'rm .GCC/log.md'],
  ['ls # a comment\nrm .GCC/log.md', 'rm .GCC/log.md'],
  ["# don't\nrm .GCC/log.md", 'rm .GCC/log.md'],
  ['if true; then rm .GCC/log.md; fi', 'rm .GCC/log.md'],
  ['for f in a b; do\n  echo "$f" >> .GCC/log.md\ndone', '> .GCC/log.md'],
  ['(cd /tmp && ls) ; rm .GCC/x', 'rm .GCC/x'],
  ['{ echo a; echo b; } > .GCC/x', '> .GCC/x'],
  ['echo $(rm .GCC/x)', 'rm .GCC/x'],
  ['cat <<EOF > .GCC/main.md\nbody\nEOF', '> .GCC/main.md'],
  ["cat > notes.md <<'EOF'\nhi\nEOF\nrm .GCC/x", 'rm .GCC/x'],
  ['echo a \\\n  > .GCC/x', '> .GCC/x'],
  ["bash -lc 'rm -rf .GCC/events'", 'rm .GCC/events'],
  ['sh -c "echo x > .GCC/y"', '> .GCC/y'],
  // Codex's apply_patch run through the shell.
  [
    "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: .GCC/log.md\n@@\n-a\n+b\n*** End Patch\nEOF",
    'apply_patch .GCC/log.md',
  ],
  ["cd .GCC && apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: x.md\n+x\n*** End Patch\nEOF", 'apply_patch x.md'],
];

/**
 * Commands that must pass unflagged: ordinary work, reads of .GCC/, writes elsewhere, git's
 * work-tree commands, another memory's .GCC/, and .GCC named as data.
 */
const UNFLAGGED: string[] = [
  'npm test',
  'npm run build --silent && npx vitest run test/observer',
  'npx tsc -p tsconfig.json --noEmit 2>&1 | head -50',
  'git status --short',
  'git diff --stat main',
  'git log --oneline -20',
  'git add -A && git commit -m "Fix the parser"',
  "git commit -m \"$(cat <<'EOF'\nFix: it's done > .GCC/main.md\n\nrm .GCC/x is gone\nEOF\n)\"",
  "git commit -F - <<'EOF'\nDon't touch > .GCC/main.md\nrm -rf .GCC\nEOF",
  'git push origin HEAD',
  'git stash -u',
  'git stash pop',
  'git reset --hard HEAD~1',
  'git checkout .',
  'git checkout main',
  'git checkout -b feature/.gcc-notes',
  'git restore src/a.ts',
  'git clean -fdx',
  'git clean -fd -e .GCC',
  // Index only: how gctx's own fixes untrack a file.
  'git rm -r --cached .GCC/.local',
  'git restore --staged .GCC/main.md',
  "git checkout -- . ':!.GCC'",
  "git stash push -- ':!.GCC'",
  'git add .GCC && git commit -m "agent memory"',
  'git diff .GCC',
  'git log -p -- .GCC/main.md',
  'cat .GCC/main.md',
  'head -n 20 .GCC/log.md',
  'grep -rn TODO .GCC',
  'grep -r "> .GCC" docs',
  'ls -la .GCC',
  'ls .GCC | wc -l',
  'wc -l .GCC/*.md',
  'find .GCC -name "*.md"',
  'find .GCC -name main.md -exec cat {} \\;',
  'diff .GCC/main.md /tmp/main.md',
  "sed -n '1,20p' .GCC/main.md",
  "sed 's/a/b/' .GCC/main.md > /tmp/out.md",
  'cp .GCC/main.md /tmp/main.md',
  'cp -r .GCC /tmp/backup',
  'cp -t /tmp/backup notes.md .GCC/main.md',
  'rsync -a .GCC/ /tmp/backup/',
  'tar czf /tmp/memory.tgz .GCC',
  'tar tzf memory.tgz',
  'ln -s .GCC/main.md notes.md',
  'cat .GCC/main.md > /tmp/x 2>&1',
  'cat .GCC/main.md | tee /tmp/copy.md',
  'python3 -m json.tool .GCC/metadata.json',
  'echo "rm -rf .GCC" > notes.txt',
  "echo 'echo x > .GCC/log.md'",
  'echo .GCC >> .gitignore',
  'gctx commit "rm .GCC/x"',
  'gctx status',
  'gctx context --log > /tmp/log.txt',
  'rm -rf node_modules dist',
  'rm -f /tmp/gcc-test-*.log',
  'rm -rf /tmp/other-project/.GCC',
  'cd /tmp/other && rm -rf .GCC',
  'mkdir -p build && cp -r src build/',
  'mv a.txt b.txt',
  'touch src/new.ts',
  'echo hi > out.txt',
  'echo hi >> .gccache/x',
  'echo hi > GCC/x',
  'echo hi > .GCCX/x',
  'ls 2>&1 >/dev/null',
  'make 2>&1 | tee build.log',
  "sed -i 's/.GCC/.memory/g' README.md",
  "sed -i '/.GCC/d' .gitignore",
  "perl -pi -e 's/\\.GCC/x/' notes.md",
  'dd if=.GCC/log.md of=/tmp/log.md',
  'unzip -l memory.zip',
  'unzip memory.zip -d /tmp/m',
  'find . -name "*.log" -delete',
  'find src -name "*.ts" -exec grep -l TODO {} +',
  'chmod +x scripts/run.sh',
  'truncate -s 0 build.log',
  'ln -sf ../shared/config.json config.json',
  'for f in src/*.ts; do wc -l "$f"; done',
  'while read -r l; do echo "$l"; done < .GCC/log.md',
  'case $1 in build) npm run build;; test) npm test;; esac',
  'f() { ls .GCC; }; f',
  'curl -sS https://example.invalid/api | jq .',
  'docker run --rm -v "$PWD":/w -w /w node:22 npm test',
  'python3 - <<\'PY\'\nopen(".GCC/x", "w")\nimport shutil; shutil.rmtree(".GCC")\nPY',
  'node -e "console.log(1)"',
  'cat <<EOF\n> .GCC/main.md\nEOF',
  'echo "line one\nline two" > notes.md',
  "awk '{print $1}' .GCC/log.md | sort | uniq -c",
  'xargs -n1 echo < list.txt',
  'time npm test',
  'git -C ../other checkout -- .',
  "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: src/a.ts\n@@\n-a\n+b\n*** End Patch\nEOF",
  'echo $((1<<2))',
  'echo done; # > .GCC/x',
];

describe('the write guard, by table', () => {
  it.each(FLAGGED)('flags %j', (command, what) => {
    const reason = bash(command);
    expect(reason).not.toBeNull();
    expect(reason).toContain(`(${what})`);
    expect(reason).toMatch(/^The files under \.GCC\/ are the memory log .*Use the memory tools/);
  });

  it.each(UNFLAGGED)('lets %j through', (command) => {
    expect(bash(command)).toBeNull();
  });

  it('reads a command run from a subdirectory, or from inside .GCC/, against the memory', () => {
    expect(bash('rm ../.GCC/log.md', `${ROOT}/src`)).not.toBeNull();
    expect(bash('rm .GCC/log.md', `${ROOT}/src`)).toBeNull();
    expect(bash('touch x', GCC)).not.toBeNull();
    expect(bash('cat x > /tmp/y', GCC)).toBeNull();
    expect(
      gccWriteReason({ tool: 'Bash', input: { command: 'rm log.md', workdir: '.GCC' }, cwd: ROOT, gccDir: GCC }),
    ).not.toBeNull();
  });
});

describe('the cost of reading a command', () => {
  const count = (command: string) => {
    parsed = 0;
    bash(command);
    return parsed;
  };

  it('hands the tokenizer at most a fixed multiple of the command and a constant, whatever its shape', () => {
    const shapes = [
      Array.from({ length: 1100 }, (_, i) => `grep -v x${i}`).join(' | '),
      Array.from({ length: 400 }, (_, i) => `echo "line ${i}" >> out.txt # note ${i}`).join('\n'),
      Array.from({ length: 300 }, (_, i) => `cat <<EOF${i}\nbody ${i}\nEOF${i}`).join('\n'),
      Array.from({ length: 300 }, () => `bash -c 'echo .GCC # c\necho b'`).join('\n'),
      Array.from({ length: 500 }, () => 'apply_patch <<E\n*** Update File: a\nE').join('\n'),
      '#'.repeat(10_000) + '\nls'.repeat(3_000),
      `echo ${'"'.repeat(20_001)}`,
    ];
    for (const shape of shapes) {
      // A command that names no .GCC is not tokenized at all.
      if (!shape.includes('.GCC')) expect(count(shape)).toBe(0);
      const s = `cat .GCC/main.md\n${shape}`;
      expect(s.length).toBeLessThanOrEqual(MAX_COMMAND);
      // A nested `sh -c` is read once more, one level deep.
      const work = count(s);
      expect(work, s.slice(0, 40)).toBeGreaterThanOrEqual(s.length / 2);
      expect(work, s.slice(0, 40)).toBeLessThanOrEqual(2 * (PARSE_BUDGET.times * s.length + PARSE_BUDGET.plus));
    }
  });

  it('reads past each comment of a script', () => {
    const script = Array.from({ length: 40 }, (_, i) => `# step ${i}\nnpm run step-${i} # and a note`).join('\n');
    expect(bash(`${script}\nrm .GCC/log.md`)).toContain('(rm .GCC/log.md)');
  });

  it('does not read a command longer than its bound', () => {
    expect(count(`${'a'.repeat(MAX_COMMAND)} > .GCC/x`)).toBe(0);
  });

  it('is total on hostile input', () => {
    for (const h of [
      '$('.repeat(20_000),
      '`'.repeat(60_000),
      '${'.repeat(10_000),
      '<<E\n'.repeat(10_000),
      `${'{'.repeat(30_000)}.GCC`,
      "$'\\",
      '\\',
    ]) {
      expect(() => bash(h)).not.toThrow();
    }
  });
});
