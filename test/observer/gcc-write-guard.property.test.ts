import fc from 'fast-check';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CanonicalTool } from '../../src/observer/envelope.js';
import { gccWriteReason } from '../../src/observer/gcc-write-guard.js';

const ROOT = '/tmp/gcc-guard-project';
const GCC = `${ROOT}/.GCC`;

const bash = (command: string, cwd = ROOT) => gccWriteReason({ tool: 'Bash', input: { command }, cwd, gccDir: GCC });
const file = (tool: CanonicalTool, path: string, cwd = ROOT) => gccWriteReason({ tool, input: { file_path: path }, cwd, gccDir: GCC });

const name = fc
  .tuple(fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz'.split('')), fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789_-'.split('')), maxLength: 9 }))
  .map(([a, b]) => a + b);
const fileName = fc.tuple(name, fc.constantFrom('.md', '.yaml', '', '.txt')).map(([n, e]) => n + e);

/** Ways to spell a path inside .GCC that a shell resolves to it. */
const gccPathInShell = fc.tuple(
  fc.constantFrom(
    '.GCC/', './.GCC/', `${ROOT}/.GCC/`, '.gcc/', '".GCC"/', "'.GCC'/", ".G''CC/", '.G"C"C/', '.G?C/', '.[G]CC/', '.GC*/',
    "$'\\x2eGCC'/", '\\.GCC/', 'sub/../.GCC/', '$PWD/.GCC/', '"$PWD/.GCC"/', '.GCC/branches/x/', '.{GCC,nothing}/',
  ),
  fileName,
).map(([dir, f]) => dir + f);

/** Command shapes that write their path argument P. */
const writeForm = fc.constantFrom(
  'echo hi > P', 'echo hi >> P', 'printf x >| P', 'cat a.txt | tee P', 'cat a | tee -a P', "sed -i 's/a/b/' P", "sed -i.bak -e 's/a/b/' P",
  "perl -pi -e 's/a/b/' P", 'rm -f P', 'rm -rf P', 'mv P /tmp/elsewhere', 'mv a.txt P', 'cp a.txt P', 'cp -r dir P', 'touch P', 'truncate -s 0 P',
  'dd if=/dev/zero of=P bs=1 count=1', 'ln -sf /etc/passwd P', 'chmod 600 P', 'git checkout -- P', 'git restore P', 'sudo rm P',
  'env A=1 rm P', 'timeout 5 rm P', 'install -m 644 a P', 'curl -o P https://x', 'exec 3> P', 'echo x 2> P', 'echo x &> P', ': > P',
  'cat <<EOF > P\nbody\nEOF', 'unlink P', 'shred -u P', 'rsync -a src/ P', 'find P -delete', 'xargs rm < list.txt; rm P',
);

/** Harmless context around the command. */
const wrap = fc.constantFrom('X', `cd ${ROOT} && X`, 'true; X', '(X)', 'X || true', 'X 2>/dev/null', 'set -e\nX\necho done', '{ X; }', 'if true; then X; fi');

// Function replacements: a path like $'\x2eGCC' must not be read as a `$'` replacement pattern.
const build = (form: string, path: string, context: string) => context.replace('X', () => form.replaceAll('P', () => path));

describe('the .GCC write guard', () => {
  it('blocks every write form into .GCC, however the path is spelled', () => {
    fc.assert(
      fc.property(writeForm, gccPathInShell, wrap, (form, path, context) => {
        const cmd = build(form, path, context);
        expect(bash(cmd), cmd).not.toBeNull();
      }),
      { numRuns: 1500 },
    );
  });

  it('blocks writes that reach .GCC through cd, variables, substitutions, nested shells and inline scripts', () => {
    const indirect = fc.constantFrom(
      'cd .GCC && echo x > @F', 'cd .GCC; rm @F', 'cd ./.GCC/branches && rm -rf *', 'D=.GCC; echo x > $D/@F', 'export D=.GCC && rm "$D/@F"',
      'D=.GCC; echo > ${D}/@F', 'echo x > "$(echo .GCC)/@F"', 'echo x > `echo .GCC`/@F', "bash -c 'echo x >> .GCC/@F'", 'sh -c "rm .GCC/@F"',
      "eval 'rm .GCC/@F'", "python3 -c \"open('.GCC/@F','w').write('x')\"", "node -e \"require('fs').writeFileSync('.GCC/@F','x')\"",
      "python3 - <<'PY'\nimport shutil\nshutil.rmtree('.GCC')\nPY", 'ls .GCC | xargs rm', 'find . -name @F -path "*.GCC*" -exec rm {} \\;',
      'rm -rf .', 'rm -rf ./', `rm -rf ${ROOT}`, 'rm -rf ..', 'find . -delete', 'echo x | tee >(cat > .GCC/@F)', 'tar xf a.tar -C .GCC',
      "awk -i inplace '{print}' .GCC/@F", 'bash <<EOF\nrm .GCC/@F\nEOF', "node --eval \"require('fs').rmSync('.GCC',{recursive:true})\"",
      "perl -ne 'unlink \".GCC/@F\"'", "deno eval \"Deno.removeSync('.GCC/@F')\"", "php -r 'unlink(\".GCC/@F\");'",
    );
    fc.assert(
      fc.property(indirect, fileName, (form, f) => {
        const cmd = form.replaceAll('@F', () => f);
        expect(bash(cmd), cmd).not.toBeNull();
      }),
      { numRuns: 500 },
    );
  });

  it('lets reads of .GCC through', () => {
    const readForm = fc.constantFrom(
      'cat P', 'head -n 20 P', 'tail -f P', 'grep -n foo P', 'wc -l P', 'less P', 'cat P > /tmp/out.txt', 'cat P | grep x',
      'diff P /tmp/x', 'sed -n 1,5p P', "sed 's/a/b/' P", 'cp P /tmp/copy', 'git add P', 'git diff -- P', 'git log -p P', 'stat P',
      'grep -r foo P 2>&1', 'ls -la P', 'find P -name "*.md"', 'md5sum P', 'awk "{print}" P', 'cat P >/dev/null 2>&1', 'python3 -m json.tool P',
    );
    fc.assert(
      fc.property(readForm, gccPathInShell, wrap, (form, path, context) => {
        const cmd = build(form, path, context);
        expect(bash(cmd), cmd).toBeNull();
      }),
      { numRuns: 1000 },
    );
  });

  it("lets reads of .GCC through whatever the file is called (a script's arguments are not its code)", () => {
    const word = fc.constantFrom('rm', 'tee', 'mv', 'cp', 'write', 'copy', 'move', 'remove', 'os.x', 'fs.x', 'open(x', 'shutil');
    const reader = fc.constantFrom('python3 -m json.tool P', 'python3 show.py P', 'node print.js P', 'perl -ne print P', 'ruby dump.rb P');
    fc.assert(
      fc.property(reader, word, fc.constantFrom('', '-1', '.md', '_x.yaml'), (form, w, tail) => {
        const cmd = form.replace('P', `.GCC/${w}${tail}`);
        expect(bash(cmd), cmd).toBeNull();
      }),
      { numRuns: 200 },
    );
  });

  it('lets writes elsewhere through', () => {
    const path = fc.tuple(fc.constantFrom('src/', './', 'test/', '/tmp/', 'docs/', 'a/b/', '.github/', '.gccache/', 'GCC/'), fileName).map(([d, f]) => d + f);
    fc.assert(
      fc.property(writeForm, path, wrap, (form, p, context) => {
        const cmd = build(form, p, context);
        expect(bash(cmd), cmd).toBeNull();
      }),
      { numRuns: 1000 },
    );
  });

  it('blocks Write and Edit into .GCC and allows them elsewhere', () => {
    // main.md itself is the one file they may edit (the next test).
    const inside = fc
      .tuple(fc.constantFrom('.GCC/', './.GCC/', `${ROOT}/.GCC/`, '.gcc/', 'x/../.GCC/', '.GCC/branches/b/', '@.GCC/'), fileName)
      .filter(([d, f]) => f !== 'main.md' || d === '.GCC/branches/b/')
      .map(([d, f]) => d + f);
    const outside = fc.tuple(fc.constantFrom('src/', '', 'docs/', '.GCCX/', 'notes.GCC/', `${ROOT}/src/`), fileName).map(([d, f]) => d + f);
    fc.assert(
      fc.property(fc.constantFrom<CanonicalTool>('Write', 'Edit'), inside, outside, (tool, i, o) => {
        expect(file(tool, i), i).not.toBeNull();
        expect(file(tool, o), o).toBeNull();
        // Reads never block, even of .GCC itself.
        expect(file('Read', i)).toBeNull();
      }),
      { numRuns: 500 },
    );
  });

  it('lets Write and Edit change .GCC/main.md, and nothing else of the memory by that name', () => {
    for (const p of ['.GCC/main.md', './.GCC/main.md', `${ROOT}/.GCC/main.md`, '.gcc/main.md', 'x/../.GCC/main.md', '.GCC/branches/../main.md', '@.GCC/main.md']) {
      expect(file('Write', p), p).toBeNull();
      expect(file('Edit', p), p).toBeNull();
    }
    for (const p of ['.GCC/branches/b/main.md', '.GCC/Main.md', '.GCC/main.md.bak', '.GCC/events/main.md', '.GCC/x/.GCC/main.md', '.G?C/main.md']) expect(file('Write', p), p).not.toBeNull();
    // A patch's Delete File, or the old path of its Move to, takes it away: refused.
    expect(gccWriteReason({ tool: 'Edit', input: { file_path: '.GCC/main.md', removes: true }, cwd: ROOT, gccDir: GCC })).not.toBeNull();
    // Through the shell, as every other file.
    expect(bash("sed -i 's/- \\[ \\]/- [x]/' .GCC/main.md")).not.toBeNull();
    expect(bash('rm .GCC/main.md')).not.toBeNull();
    expect(bash('echo "- [ ] more" >> .GCC/main.md')).not.toBeNull();
  });

  it('refuses main.md when it is a link to another file of the memory', () => {
    const root = mkdtempSync(join(tmpdir(), 'gcc-guard-'));
    mkdirSync(join(root, '.GCC', 'events'), { recursive: true });
    symlinkSync(join(root, '.GCC', 'events', 'seg.md'), join(root, '.GCC', 'main.md'));
    const write = () => gccWriteReason({ tool: 'Write', input: { file_path: '.GCC/main.md' }, cwd: root, gccDir: join(root, '.GCC') });
    // Dangling: a Write would create the segment through it.
    expect(write()).not.toBeNull();
    writeFileSync(join(root, '.GCC', 'events', 'seg.md'), '');
    expect(write()).not.toBeNull();
  });

  it('follows a symlink into .GCC', () => {
    const root = mkdtempSync(join(tmpdir(), 'gcc-guard-'));
    mkdirSync(join(root, '.GCC'));
    symlinkSync(join(root, '.GCC'), join(root, 'memory'));
    const guard = (tool: CanonicalTool, p: string) => gccWriteReason({ tool, input: { file_path: p }, cwd: root, gccDir: join(root, '.GCC') });
    expect(guard('Write', 'memory/commit.md')).not.toBeNull();
    expect(guard('Edit', join(root, 'memory', 'log.md'))).not.toBeNull();
    expect(guard('Write', 'src/ok.ts')).toBeNull();
  });

  it('is total on arbitrary hostile input: never throws, always a string or null', () => {
    const hostile = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 400 }),
      fc.array(fc.constantFrom('$(', ')', '`', "'", '"', '\\', '<<', 'EOF', '\n', '>', '>>', '|', '&', ';', '.GCC', '{', '}', '$', '${', 'cd ', 'rm ', ' ', '*', '?', '[', '#'), { maxLength: 80 }).map((a) => a.join('')),
    );
    fc.assert(
      fc.property(hostile, fc.constantFrom<CanonicalTool>('Bash', 'Write', 'Edit', 'Read', 'Other'), (s, tool) => {
        const r = gccWriteReason({ tool, input: { command: s, file_path: s }, cwd: ROOT, gccDir: GCC });
        expect(r === null || typeof r === 'string').toBe(true);
      }),
      { numRuns: 2000 },
    );
    // Deep nesting and huge inputs complete.
    for (const h of ['$('.repeat(50_000), '`'.repeat(100_001), `echo ${'"'.repeat(100_001)}`, `${'a'.repeat(200_000)} > .GCC/x`, '<<E\n'.repeat(20_000), '{'.repeat(50_000) + '.GCC'])
      expect(() => bash(h)).not.toThrow();
    expect(bash(`${'a'.repeat(200_000)} > .GCC/x`)).not.toBeNull();
  });
});
