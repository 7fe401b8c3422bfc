import { resolve } from 'node:path';
import type { CommandEnv } from './command-env.js';
import { pathMentionsGcc, textMentionsGcc } from './gcc-paths.js';
import { isWithin, type Word } from './shell-effects.js';

/**
 * Interpreters given code inline (`python3 -c`, `node -e`, `perl -e`, a here-document on stdin,
 * a script file that exists): the code is split into statements, names bound to `.GCC` paths
 * are followed (`p = '.GCC/x'`, `for f in glob('.GCC/*')`), and a statement that both reaches
 * `.GCC` and calls a writing API (open for writing, write_text, unlink, rmtree, writeFileSync,
 * rmSync, File.write …) is a write. Calls that run a command (os.system, subprocess, execSync,
 * backticks) have their string literals analysed as shell code. So a one-liner that only reads
 * `.GCC` passes. Code that builds the path by computation (`'.G' + 'CC'`, base64) is not seen.
 */

type Family = 'python' | 'js' | 'perl' | 'ruby' | 'php' | 'other';

const FAMILY: Record<string, Family> = {
  python: 'python', python2: 'python', python3: 'python', pypy: 'python', pypy3: 'python',
  node: 'js', nodejs: 'js', deno: 'js', bun: 'js', tsx: 'js', 'ts-node': 'js',
  perl: 'perl', ruby: 'ruby', php: 'php', lua: 'other', Rscript: 'other', osascript: 'other', pwsh: 'other', powershell: 'other',
};

export const INTERPRETERS = new Set(Object.keys(FAMILY));

/** Flags whose value is code, per family; perl and ruby also take clusters ending in e (`-ne`, `-lpe`). */
const CODE_FLAGS: Record<Family, RegExp> = {
  python: /^-c$/,
  js: /^(?:-e|--eval|-p|--print|-pe|-ep)$/,
  perl: /^-[a-zA-Z0-9]*[eE]$/,
  ruby: /^-[a-zA-Z0-9]*e$/,
  php: /^-[rBRE]$/,
  other: /^(?:-e|-Command|-command|-c|--command)$/,
};
/** Options whose value is not code and not a script (`-m json.tool`, `-r ./setup`). */
const VALUE_FLAGS = /^(?:-[mWXIrCEMlxdSf]|--require|--import|--loader|--input-type|-C|--conditions|--env-file)$/;

export function interpreterWrites(env: CommandEnv): void {
  const family = FAMILY[env.name] ?? 'other';
  const args = env.args;
  const code: string[] = [];
  const operands: Word[] = [];
  let inPlace = false;
  let module = false;
  let k = 0;
  // deno/bun: `deno eval CODE`, `deno run FILE`, `bun run FILE`.
  if ((env.name === 'deno' || env.name === 'bun') && (args[0]?.text === 'eval' || args[0]?.text === 'run' || args[0]?.text === 'x')) {
    if (args[0]?.text === 'eval' && args[1]) code.push(args[1].text);
    k = args[0]?.text === 'eval' ? 2 : 1;
  }
  for (; k < args.length; k++) {
    const w = args[k] as Word;
    const t = w.text;
    if (operands.length || module) {
      operands.push(w);
      continue;
    }
    if (CODE_FLAGS[family].test(t)) {
      if (args[k + 1]) code.push((args[k + 1] as Word).text);
      if ((family === 'perl' || family === 'ruby') && /^-[a-zA-Z]*i/.test(t)) inPlace = true;
      k++;
    } else if (family === 'python' && t === '-m') module = true;
    else if ((family === 'perl' || family === 'ruby') && /^-[a-zA-Z]*i/.test(t)) inPlace = true;
    else if (VALUE_FLAGS.test(t) && family !== 'perl') k++;
    else if (t === '-' || !t.startsWith('-')) operands.push(w);
  }
  // Without inline code the first operand is the script (`-` or none: standard input).
  let files = operands;
  if (!code.length && !module) {
    const script = operands[0];
    if (script && script.text !== '-') {
      const text = env.readFile(script);
      if (text !== null) code.push(text);
    } else if (env.stdin.present) code.push(env.stdin.text);
    files = operands.slice(1);
  }
  if (inPlace) for (const w of files) env.write(w);
  // Run from inside .GCC (`cd .GCC && python3 …`), every relative path the code writes is there.
  const here = env.absolute({ text: '.', dynamic: false });
  const gcc = env.mem.gccDir ? resolve(env.mem.gccDir) : undefined;
  const inside = (env.base !== null && pathMentionsGcc(env.base)) || (here !== null && gcc !== undefined && isWithin(here, gcc));
  analyzeCode(code.join('\n'), family, env, inside);
}

const WRITE_OP = new RegExp(
  [
    // open/fopen/openSync/sysopen with a writing mode: 'w', 'a', 'x', '+', perl's '>', '>>', '+<', '|', O_WRONLY …
    String.raw`open\w*\s*\([^;]*?,\s*(?:mode\s*=\s*|flags\s*=\s*)?(?:['"]\s*(?:[rbtU]*[wax+]|\+?>|\+<|\|)|[\w.]*O_(?:WRONLY|RDWR|CREAT|TRUNC|APPEND))`,
    String.raw`\bopen\s+(?:my\s+)?\$?\w+\s*,\s*['"]\s*(?:\+?>|\+<|\|)`,
    String.raw`\.(?:write_text|write_bytes|unlink|rmdir|mkdir|touch|rename|chmod|lchmod|symlink_to|hardlink_to|link_to)\s*\(`,
    String.raw`\bos\.(?:remove|unlink|rmdir|removedirs|rename|renames|replace|makedirs|mkdir|chmod|chown|lchown|truncate|symlink|link|utime|mkfifo|mknod|write|ftruncate)\b`,
    String.raw`\bshutil\.(?:rmtree|move|copy\w*|make_archive|unpack_archive|chown)\b`,
    String.raw`\b(?:writeFile|appendFile|writeFileSync|appendFileSync|rmSync|rmdirSync|unlinkSync|mkdirSync|renameSync|copyFileSync|cpSync|truncateSync|chmodSync|chownSync|lchownSync|symlinkSync|linkSync|utimesSync|createWriteStream|mkdtempSync|outputFile\w*|outputJson\w*|writeJson\w*|removeSync|emptyDir\w*|ensureFile\w*|ensureDir\w*|moveSync|copySync)\b`,
    String.raw`\bfs(?:\.promises)?\.(?:rm|rmdir|unlink|mkdir|rename|copyFile|cp|truncate|chmod|chown|symlink|link|utimes|writeFile|appendFile)\b`,
    String.raw`\bDeno\.(?:writeTextFile|writeFile|remove|rename|mkdir|truncate|chmod|chown|symlink|link|create|copyFile|utime|makeTemp)\w*`,
    String.raw`\bBun\.write\b`,
    String.raw`\b(?:unlink|rmdir|mkdir|rename|chmod|chown|utime|symlink|link|truncate|rmtree|remove_tree|make_path|mkpath|sysopen|file_put_contents|fputs|fwrite|tempnam|copy|move|touch)\b\s*[\s(]`,
    String.raw`\$\^I\b`,
    String.raw`\bFile\.(?:write|delete|unlink|rename|chmod|chown|symlink|link|truncate|utime|lchmod|lchown|binwrite)\b`,
    String.raw`\bFileUtils\.\w+`,
    String.raw`\bDir\.(?:mkdir|rmdir|delete|unlink)\b`,
    String.raw`\bIO\.(?:write|binwrite)\b`,
    String.raw`\b(?:save\w*|dump|to_csv|to_json|to_parquet|to_excel|savefig|extractall|extract)\s*\(`,
  ].join('|'),
);
const POWERSHELL_WRITE = /\b(?:Set-Content|Add-Content|Out-File|Remove-Item|Move-Item|Copy-Item|New-Item|Rename-Item|Clear-Content)\b/i;
const SHELL_OUT = /\b(?:os\.system|os\.popen|os\.exec\w*|os\.spawn\w*|subprocess\.\w+|pty\.spawn|execSync|execFileSync|spawnSync|exec|execFile|spawn|system|shell_exec|passthru|proc_open|popen|Open3\.\w+|Deno\.Command|Deno\.run|Start-Process|Invoke-Expression)\b/;
const BACKTICK_SHELL = /`|\bqx\s*[{(/]|%x[{(]/;

const ASSIGNED = [
  /(?:^|[\s;(,{])(?:const|let|var|my|our|local)?\s*[$@%]?([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)?(?:=(?![=~>])|\+=|\.=)/g,
  /\bfor\s*\(?\s*(?:const|let|var|my)?\s*\$?([A-Za-z_]\w*)\s+(?:in|of)\b/g,
  /\bforeach\s+(?:my\s+)?\$([A-Za-z_]\w*)/g,
  /\|\s*([A-Za-z_]\w*)\s*\|/g,
  /\bas\s+([A-Za-z_]\w*)/g,
  /\(?\s*([A-Za-z_]\w*)\s*\)?\s*=>/g,
];

const CHDIR = /\b(?:chdir|Set-Location)\b[^;\n]*/;

function analyzeCode(code: string, family: Family, env: CommandEnv, insideGcc: boolean): void {
  if (!code.trim()) return;
  const statements = splitStatements(code);
  const tainted = new Set<string>();
  // After a chdir into .GCC, relative paths land there too.
  const everywhere = insideGcc || statements.some((s) => CHDIR.test(s) && textMentionsGcc(s));
  const mentions = (s: string) => everywhere || textMentionsGcc(s) || [...tainted].some((n) => new RegExp(`(?<![\\w])\\$?${n}(?![\\w])`).test(s));
  for (let pass = 0; pass < 6; pass++) {
    const before = tainted.size;
    for (const s of statements) if (mentions(s)) for (const re of ASSIGNED) for (const m of s.matchAll(re)) if (m[1]) tainted.add(m[1]);
    if (tainted.size === before) break;
  }
  const shellOut = family === 'perl' || family === 'ruby' || family === 'php' ? new RegExp(`${SHELL_OUT.source}|${BACKTICK_SHELL.source}`) : SHELL_OUT;
  for (const s of statements) {
    if (!mentions(s)) continue;
    if (WRITE_OP.test(s) || POWERSHELL_WRITE.test(s)) {
      env.decided(`inline ${env.name} code writes into .GCC`);
      return;
    }
    if (shellOut.test(s)) {
      const literals = [...s.matchAll(/'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"|`((?:[^`\\]|\\.)*)`/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? '');
      const shell = literals.join(' ');
      // Reaches .GCC only through a variable: the command line cannot be rebuilt, so it counts.
      if (!textMentionsGcc(shell) && !everywhere) {
        env.decided(`inline ${env.name} code runs a command on a .GCC path`);
        return;
      }
      env.nested(shell);
    }
  }
}

/** Statements split at `;` and line ends outside quotes and brackets. */
function splitStatements(code: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quote = '';
  let start = 0;
  for (let i = 0; i < code.length; i++) {
    const c = code[i] as string;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
      continue;
    }
    if (c === '"' || c === "'" || c === '`') quote = c;
    else if (c === '(' || c === '[' || c === '{') depth++;
    else if ((c === ')' || c === ']' || c === '}') && depth > 0) depth--;
    else if ((c === ';' || c === '\n') && depth === 0) {
      out.push(code.slice(start, i));
      start = i + 1;
    }
  }
  out.push(code.slice(start));
  return out.filter((s) => s.trim());
}
