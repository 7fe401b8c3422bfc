import { type CommandEnv, has, parseOptions, value } from './command-env.js';
import { textMentionsGcc } from './gcc-paths.js';
import type { Word } from './shell-effects.js';

/**
 * sed and awk carry their own little programs, which can write files (`sed 'w out'`,
 * `s/a/b/w out`, awk's `print > "out"`) or run commands (`sed e`, awk's `system()` and pipes).
 * Those programs are scanned here; the files they edit in place are their operands.
 */

export function sedWrites(env: CommandEnv): void {
  const { operands, values } = parseOptions(env.args, { short: 'efl', long: ['expression', 'file', 'line-length'] });
  const scripts = (values.get('e') ?? []).concat(values.get('expression') ?? []);
  for (const f of (values.get('f') ?? []).concat(values.get('file') ?? [])) {
    const text = env.readFile(f);
    scripts.push(text === null ? { text: f.text, dynamic: true } : { text, dynamic: false });
  }
  const files = scripts.length ? operands : operands.slice(1);
  if (!scripts.length && operands[0]) scripts.push(operands[0]);
  const inPlace = env.args.some((w) => /^-[a-zA-Z]*i/.test(w.text) || w.text.startsWith('--in-place'));
  if (inPlace) for (const w of files) env.write(w);
  if (has(values, 'sandbox')) return;
  for (const script of scripts) {
    const found = scanSed(script.text);
    for (const f of found.files) if (f !== '/dev/stdout' && f !== '/dev/stderr') env.write({ text: f, dynamic: script.dynamic });
    for (const c of found.commands) env.nested(c);
    // `s/…/…/e` and a bare `e` run the pattern space: what it holds comes from the input.
    if (found.execPattern && (textMentionsGcc(script.text) || files.some((w) => textMentionsGcc(w.text)))) env.decided('sed executes text naming .GCC');
  }
}

interface SedScan {
  files: string[];
  commands: string[];
  execPattern: boolean;
}

/** Walk a sed script command by command, collecting `w` files and `e` commands. */
export function scanSed(script: string): SedScan {
  const out: SedScan = { files: [], commands: [], execPattern: false };
  const s = script;
  let i = 0;
  const restOfLine = () => {
    const nl = s.indexOf('\n', i);
    const text = s.slice(i, nl < 0 ? s.length : nl);
    i = nl < 0 ? s.length : nl + 1;
    return text.trim();
  };
  const skipDelimited = (delim: string) => {
    // i points just after an opening delimiter; move past the closing one.
    while (i < s.length && s[i] !== delim && s[i] !== '\n') i += s[i] === '\\' ? 2 : 1;
    i++;
  };
  const address = () => {
    if (s[i] === '/') {
      i++;
      skipDelimited('/');
    } else if (s[i] === '\\' && i + 1 < s.length) {
      const d = s[i + 1] as string;
      i += 2;
      skipDelimited(d);
    } else while (i < s.length && /[0-9$~+]/.test(s[i] as string)) i++;
  };
  for (let guard = 0; i < s.length && guard < 100_000; guard++) {
    while (i < s.length && /[\s;]/.test(s[i] as string)) i++;
    if (i >= s.length) break;
    address();
    if (s[i] === ',') {
      i++;
      address();
    }
    while (i < s.length && /[\s!]/.test(s[i] as string)) i++;
    const cmd = s[i++];
    switch (cmd) {
      case '#':
      case 'r':
      case 'R':
      case ':':
        restOfLine();
        break;
      case 'b':
      case 't':
      case 'T':
      case 'v':
        while (i < s.length && !/[;\n}]/.test(s[i] as string)) i++;
        break;
      case 'w':
      case 'W':
        out.files.push(restOfLine());
        break;
      case 'e': {
        const c = restOfLine();
        if (c) out.commands.push(c);
        else out.execPattern = true;
        break;
      }
      case 'a':
      case 'i':
      case 'c': {
        let line = restOfLine();
        while (line.endsWith('\\') && i < s.length) line = restOfLine();
        break;
      }
      case 's':
      case 'y': {
        const d = s[i++] ?? '/';
        skipDelimited(d);
        skipDelimited(d);
        if (cmd === 'y') break;
        while (i < s.length && /[gpiImMe0-9]/.test(s[i] as string)) {
          if (s[i] === 'e') out.execPattern = true;
          i++;
        }
        if (s[i] === 'w') {
          i++;
          out.files.push(restOfLine());
        }
        break;
      }
      default:
        break;
    }
  }
  return out;
}

export function awkWrites(env: CommandEnv): void {
  const { operands, values } = parseOptions(env.args, { short: 'fvFEil', long: ['file', 'assign', 'field-separator', 'exec', 'include', 'load', 'source'] });
  const programs: Word[] = [];
  for (const f of ['f', 'file', 'E', 'exec']) {
    for (const w of values.get(f) ?? []) {
      const text = env.readFile(w);
      programs.push(text === null ? { text: w.text, dynamic: true } : { text, dynamic: false });
    }
  }
  programs.push(...(values.get('source') ?? []));
  const files = programs.length ? operands : operands.slice(1);
  if (!programs.length && operands[0]) programs.push(operands[0]);
  const inplace = [value(values, 'i'), value(values, 'include')].some((w) => w && /^inplace(?:\.awk)?$/.test(w.text));
  if (inplace) for (const w of files) if (!/^[A-Za-z_][A-Za-z0-9_]*=/.test(w.text)) env.write(w);
  // Variables set from outside (-v, operands) may hold the path a redirection writes to.
  const context = [...(values.get('v') ?? []), ...(values.get('assign') ?? []), ...files.filter((w) => w.text.includes('='))].map((w) => w.text).join(' ');
  for (const program of programs) scanAwk(program.text, context, env);
}

const AWK_STRING = /"((?:[^"\\]|\\.)*)"/g;

/** awk output redirections, pipes and `system()` calls, with literal targets analysed exactly. */
function scanAwk(program: string, context: string, env: CommandEnv): void {
  const everything = `${program} ${context}`;
  const literal = (expr: string): string | null => {
    const trimmed = expr.trim().replace(/\)\s*$/, '').trim();
    const parts = [...trimmed.matchAll(AWK_STRING)];
    if (!parts.length || trimmed.replace(AWK_STRING, '').trim()) return null;
    return parts.map((m) => (m[1] as string).replace(/\\(.)/g, (_x, c: string) => (c === 'n' ? '\n' : c))).join('');
  };
  const command = (expr: string, how: string) => {
    const text = literal(expr);
    if (text !== null) env.nested(text);
    else if (textMentionsGcc(everything)) env.decided(`awk ${how} a command built from text naming .GCC`);
  };
  for (const m of program.matchAll(/\bprintf?\b([^;{}\n]*?)(>>|>|\|&|\|)([^;{}\n]*)/g)) {
    const op = m[2] as string;
    const target = m[3] as string;
    if (op.startsWith('|')) command(target, 'pipes into');
    else {
      const text = literal(target);
      if (text !== null) env.write({ text, dynamic: false });
      else env.write({ text: everything, dynamic: true });
    }
  }
  for (const m of program.matchAll(/\bsystem\s*\(([^;{}\n]*)/g)) command(m[1] as string, 'runs');
  for (const m of program.matchAll(/((?:"(?:[^"\\]|\\.)*"\s*)+|[A-Za-z_][A-Za-z0-9_]*)\s*\|&?\s*getline/g)) command(m[1] as string, 'reads from');
}
