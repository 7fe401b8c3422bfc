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
const file = (tool: CanonicalTool, path: string, cwd = ROOT) =>
  gccWriteReason({ tool, input: { file_path: path }, cwd, gccDir: GCC });

const name = fc
  .tuple(
    fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz'.split('')),
    fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789_-'.split('')), maxLength: 8 }),
  )
  .map(([a, b]) => a + b);
const fileName = fc.tuple(name, fc.constantFrom('.md', '.ts', '', '.txt', '.json')).map(([n, e]) => n + e);
/** A path outside the memory. */
const elsewhere = fc
  .tuple(
    fc.constantFrom(
      '',
      'src/',
      './',
      'test/',
      '/tmp/',
      'docs/',
      'a/b/',
      '.github/',
      '.gccache/',
      'GCC/',
      '/tmp/other/.GCC/',
    ),
    fileName,
  )
  .map(([d, f]) => d + f);
/** A path inside the memory, as a shell command may spell it. */
const inside = fc
  .tuple(
    fc.constantFrom('.GCC/', './.GCC/', `${ROOT}/.GCC/`, '.gcc/', 'src/../.GCC/', '.GCC/branches/x/', '.GCC/events/'),
    fileName,
  )
  .map(([d, f]) => d + f);
const quoted = (p: string) => fc.constantFrom(p, `"${p}"`, `'${p}'`);

/** Programs that only read their operands, whatever they name. */
const reading = fc.constantFrom(
  'cat',
  'head -n 5',
  'tail -f',
  'grep -rn TODO',
  'wc -l',
  'ls -la',
  'less',
  'stat',
  'md5sum',
  'diff /tmp/x',
  "sed -n '1,5p'",
  'git add',
  'git diff --',
  'git log -p --',
  'python3 -m json.tool',
  'node scripts/show.js',
  'find',
  'du -sh',
  'file',
  'jq .',
);
/** Commands that write, with their operands elsewhere; a read of .GCC where an operand only reads. */
const writing = fc.constantFrom(
  'rm -f @P',
  'rm -rf @P',
  'mv @P @Q',
  'cp @P @Q',
  'cp -r @G @Q',
  'touch @P',
  'mkdir -p @P',
  "sed -i 's/a/b/' @P",
  'tee @P',
  'tee -a @P',
  'truncate -s 0 @P',
  'ln -s @G @Q',
  'chmod 644 @P',
  'rsync -a @G @Q',
  'tar czf @P @G',
  'dd if=@G of=@P',
  'unzip x.zip -d @P',
  'git rm @P',
  'git checkout -- @P',
  'find @P -delete',
);
/** Things that are neither: tools agents run all day, git's work-tree commands among them. */
const plainTool = fc.constantFrom(
  'npm test',
  'npm run build --silent',
  'npx vitest run',
  'make -j4',
  'cargo test',
  'go test ./...',
  'git status',
  'git stash -u',
  'git stash pop',
  'git reset --hard',
  'git checkout .',
  'git clean -fdx',
  'git pull --rebase',
  'gctx status',
  'gctx commit "x"',
  "git checkout -- . ':!.GCC'",
  'git clean -fd -e .GCC',
  'pwd',
  'true',
);
const redirect = fc
  .tuple(fc.constantFrom('>', '>>', '2>', '&>', '>|', '2>&1 >'), elsewhere)
  .map(([op, p]) => ` ${op} ${p}`);

const simple = fc.oneof(
  fc
    .tuple(reading, fc.array(fc.oneof(inside.chain(quoted), elsewhere), { minLength: 1, maxLength: 3 }))
    .map(([r, ps]) => `${r} ${ps.join(' ')}`),
  fc
    .tuple(writing, elsewhere, elsewhere, inside)
    .map(([w, p, q, g]) => w.replace('@P', p).replace('@Q', q).replace('@G', g)),
  plainTool,
  fc.tuple(fc.constantFrom('echo', 'printf "%s\\n"'), inside.chain(quoted)).map(([e, p]) => `${e} ${p}`),
);
const withRedirect = fc.tuple(simple, fc.option(redirect, { nil: '' })).map(([s, r]) => s + r);
/** Text that merely mentions a write into .GCC/: a comment, a quoted argument, a heredoc's body. */
const mention = fc.constantFrom(' # then > .GCC/main.md', " # don't rm .GCC/log.md", '\n# echo x > .GCC/log.md', '');
const heredoc = fc
  .tuple(fc.constantFrom("cat > notes.md <<'EOF'", 'cat <<EOF', 'git commit -F - <<-END'), inside)
  .map(([h, g]) => {
    const end = h.endsWith("'EOF'") || h.endsWith('EOF') ? 'EOF' : '\tEND';
    return `${h}\n> ${g}\nrm -rf ${g} and don't\n${end}`;
  });
const pipeline = fc
  .array(withRedirect, { minLength: 1, maxLength: 4 })
  .chain((cs) => fc.constantFrom(' | ', ' && ', '; ', ' || ', '\n').map((sep) => cs.join(sep)));
const compound = fc.oneof(
  pipeline,
  pipeline.map((p) => `(${p})`),
  pipeline.map((p) => `{ ${p}; }`),
  pipeline.map((p) => `if true; then\n  ${p}\nfi`),
  pipeline.map((p) => `for f in a b; do ${p}; done`),
  pipeline.map((p) => `echo "$(${p})"`),
);
// A heredoc ends at a line holding its delimiter alone: nothing may follow it there.
const ordinary = fc
  .array(
    fc.oneof(
      fc.tuple(compound, mention).map(([c, m]) => c + m),
      heredoc,
    ),
    { minLength: 1, maxLength: 4 },
  )
  .map((cs) => cs.join('\n'));

describe('the .GCC write guard', () => {
  it('never flags an ordinary command: reads of .GCC, writes elsewhere, .GCC only mentioned', () => {
    fc.assert(
      fc.property(ordinary, (cmd) => {
        expect(bash(cmd), cmd).toBeNull();
      }),
      { numRuns: 2000 },
    );
  });

  it('flags any command with a redirection into .GCC/, wherever it stands', () => {
    const into = fc
      .tuple(fc.constantFrom('>', '>>', '&>', '>|', '2>'), inside.chain(quoted))
      .map(([op, p]) => `${op} ${p}`);
    fc.assert(
      fc.property(ordinary, simple, into, fc.boolean(), (cmd, s, r, first) => {
        const line = `${s} ${r}`;
        const full = first ? `${line}\n${cmd}` : `${cmd}\n${line}`;
        expect(bash(full), full).not.toBeNull();
      }),
      { numRuns: 1500 },
    );
  });

  it('flags a plainly writing program aimed at .GCC/', () => {
    fc.assert(
      fc.property(writing, inside, elsewhere, (w, g, p) => {
        // The operand each form writes is the one put inside the memory.
        const cmd = w
          .replace('@P', g)
          .replace('@Q', /^(mv|cp|ln|rsync) /.test(w) ? g : p)
          .replace('@G', p);
        expect(bash(cmd), cmd).not.toBeNull();
      }),
      { numRuns: 500 },
    );
  });

  it('flags Write and Edit into .GCC and allows them elsewhere; Read never', () => {
    // main.md itself is the one file they may edit (the next test).
    const into = fc
      .tuple(
        fc.constantFrom('.GCC/', './.GCC/', `${ROOT}/.GCC/`, '.gcc/', 'x/../.GCC/', '.GCC/branches/b/', '@.GCC/'),
        fileName,
      )
      .filter(([d, f]) => f !== 'main.md' || d === '.GCC/branches/b/')
      .map(([d, f]) => d + f);
    const outside = fc
      .tuple(fc.constantFrom('src/', '', 'docs/', '.GCCX/', 'notes.GCC/', `${ROOT}/src/`, '/tmp/other/.GCC/'), fileName)
      .map(([d, f]) => d + f);
    fc.assert(
      fc.property(fc.constantFrom<CanonicalTool>('Write', 'Edit'), into, outside, (tool, i, o) => {
        expect(file(tool, i), i).not.toBeNull();
        expect(file(tool, o), o).toBeNull();
        expect(file('Read', i)).toBeNull();
      }),
      { numRuns: 500 },
    );
  });

  it('lets Write and Edit change .GCC/main.md, and nothing else of the memory by that name', () => {
    for (const p of [
      '.GCC/main.md',
      './.GCC/main.md',
      `${ROOT}/.GCC/main.md`,
      '.gcc/main.md',
      'x/../.GCC/main.md',
      '.GCC/branches/../main.md',
      '@.GCC/main.md',
    ]) {
      expect(file('Write', p), p).toBeNull();
      expect(file('Edit', p), p).toBeNull();
    }
    for (const p of [
      '.GCC/branches/b/main.md',
      '.GCC/Main.md',
      '.GCC/main.md.bak',
      '.GCC/events/main.md',
      '.GCC/x/.GCC/main.md',
    ])
      expect(file('Write', p), p).not.toBeNull();
    // A patch's Delete File, or the old path of its Move to, takes it away: refused.
    expect(
      gccWriteReason({ tool: 'Edit', input: { file_path: '.GCC/main.md', removes: true }, cwd: ROOT, gccDir: GCC }),
    ).not.toBeNull();
    // Through the shell, as every other file.
    expect(bash("sed -i 's/- \\[ \\]/- [x]/' .GCC/main.md")).not.toBeNull();
    expect(bash('rm .GCC/main.md')).not.toBeNull();
    expect(bash('echo "- [ ] more" >> .GCC/main.md')).not.toBeNull();
  });

  it('refuses main.md when it is a link to another file of the memory', () => {
    const root = mkdtempSync(join(tmpdir(), 'gcc-guard-'));
    mkdirSync(join(root, '.GCC', 'events'), { recursive: true });
    symlinkSync(join(root, '.GCC', 'events', 'seg.md'), join(root, '.GCC', 'main.md'));
    const write = () =>
      gccWriteReason({ tool: 'Write', input: { file_path: '.GCC/main.md' }, cwd: root, gccDir: join(root, '.GCC') });
    // Dangling: a Write would create the segment through it.
    expect(write()).not.toBeNull();
    writeFileSync(join(root, '.GCC', 'events', 'seg.md'), '');
    expect(write()).not.toBeNull();
  });

  it('follows a symlink into .GCC for file tools', () => {
    const root = mkdtempSync(join(tmpdir(), 'gcc-guard-'));
    mkdirSync(join(root, '.GCC'));
    symlinkSync(join(root, '.GCC'), join(root, 'memory'));
    const guard = (tool: CanonicalTool, p: string) =>
      gccWriteReason({ tool, input: { file_path: p }, cwd: root, gccDir: join(root, '.GCC') });
    expect(guard('Write', 'memory/commit.md')).not.toBeNull();
    expect(guard('Edit', join(root, 'memory', 'log.md'))).not.toBeNull();
    expect(guard('Write', 'src/ok.ts')).toBeNull();
  });

  it('is total on arbitrary hostile input: never throws, always a string or null', () => {
    const hostile = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 400 }),
      fc
        .array(
          fc.constantFrom(
            '$(',
            ')',
            '`',
            "'",
            '"',
            '\\',
            '<<',
            'EOF',
            '\n',
            '>',
            '>>',
            '|',
            '&',
            ';',
            '.GCC',
            '{',
            '}',
            '$',
            '${',
            'cd ',
            'rm ',
            ' ',
            '*',
            '?',
            '[',
            '#',
          ),
          { maxLength: 80 },
        )
        .map((a) => a.join('')),
    );
    fc.assert(
      fc.property(hostile, fc.constantFrom<CanonicalTool>('Bash', 'Write', 'Edit', 'Read', 'Other'), (s, tool) => {
        const r = gccWriteReason({ tool, input: { command: s, file_path: s }, cwd: ROOT, gccDir: GCC });
        expect(r === null || typeof r === 'string').toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});
