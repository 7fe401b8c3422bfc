/**
 * A small POSIX/bash lexer, enough to find where a command writes: words with their quoting
 * removed, operators, redirections and here-documents. It never executes or fully parses
 * anything; what it cannot resolve statically (command substitutions, unknown variables) it
 * marks `dynamic` so the caller can err on the side of caution.
 *
 * Linear in the input; substitutions are returned as nested sources for the caller to lex again
 * (with a depth bound), never recursed into here.
 */

export type Token =
  | { kind: 'word'; text: string; dynamic: boolean; vars: string[] }
  | { kind: 'sep'; op: string }
  | { kind: 'redir'; op: string; fd?: string }
  | { kind: 'heredoc'; body: string };

export interface Lexed {
  tokens: Token[];
  /** Bodies of `$(…)`, backticks and `<(…)`/`>(…)`: commands in their own right. */
  nested: string[];
}

/** Placeholder that marks an unexpanded `$NAME` inside a word's text. */
export const VAR_MARK = '\u0000';

const SEPARATORS = ['&&', '||', ';;', '|&', ';', '|', '&', '\n', '(', ')'];

export function lexShell(src: string): Lexed {
  const tokens: Token[] = [];
  const nested: string[] = [];
  const pendingHeredocs: { token: { kind: 'heredoc'; body: string }; delimiter: string; stripTabs: boolean }[] = [];
  let i = 0;
  let word = '';
  let inWord = false;
  let dynamic = false;
  let vars: string[] = [];
  let quotedWord = false;

  const flush = () => {
    if (inWord) tokens.push({ kind: 'word', text: word, dynamic, vars });
    word = '';
    inWord = false;
    dynamic = false;
    vars = [];
    quotedWord = false;
  };

  /** Read a balanced `(...)` starting after the opening paren; returns the index after `)`. */
  const readParens = (start: number): number => {
    let depth = 1;
    let j = start;
    while (j < src.length && depth > 0) {
      const c = src[j];
      if (c === '\\') j += 2;
      else if (c === "'") {
        const end = src.indexOf("'", j + 1);
        j = end < 0 ? src.length : end + 1;
      } else if (c === '"') {
        j++;
        while (j < src.length && src[j] !== '"') j += src[j] === '\\' ? 2 : 1;
        j++;
      } else {
        if (c === '(') depth++;
        else if (c === ')') depth--;
        j++;
      }
    }
    return j;
  };

  const readVariable = (start: number): number => {
    // `start` points at the char after `$`.
    const c = src[start];
    if (c === '{') {
      const end = src.indexOf('}', start + 1);
      const body = src.slice(start + 1, end < 0 ? src.length : end);
      const name = /^(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*])/.exec(body)?.[0];
      if (name && name.length === body.length) {
        word += `${VAR_MARK}${name}${VAR_MARK}`;
        vars.push(name);
      } else {
        // ${X:-default}, ${X/a/b}: keep the text (it may spell a path) and mark it dynamic.
        word += body;
        dynamic = true;
      }
      return end < 0 ? src.length : end + 1;
    }
    const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(start, start + 256));
    if (m) {
      word += `${VAR_MARK}${m[0]}${VAR_MARK}`;
      vars.push(m[0]);
      return start + m[0].length;
    }
    // Positional parameters ($1, $@) stay named: `sh -c 'rm "$1"' sh .GCC/x` binds them.
    if (c !== undefined && /[0-9@*]/.test(c)) {
      word += `${VAR_MARK}${c}${VAR_MARK}`;
      vars.push(c);
      return start + 1;
    }
    if (c !== undefined && /[#?$!-]/.test(c)) {
      dynamic = true;
      return start + 1;
    }
    word += '$';
    return start;
  };

  const readSubstitution = (start: number): number => {
    // `start` points after `$(` / `<(` / `>(`.
    const end = readParens(start);
    nested.push(src.slice(start, Math.max(start, end - 1)));
    word += src.slice(start, Math.max(start, end - 1));
    dynamic = true;
    inWord = true;
    return end;
  };

  const readBackticks = (start: number): number => {
    let j = start;
    while (j < src.length && src[j] !== '`') j += src[j] === '\\' ? 2 : 1;
    nested.push(src.slice(start, j).replace(/\\`/g, '`'));
    word += src.slice(start, j);
    dynamic = true;
    inWord = true;
    return Math.min(src.length, j + 1);
  };

  const readHeredocBodies = (start: number): number => {
    let j = start;
    for (const h of pendingHeredocs) {
      const lines: string[] = [];
      while (j < src.length) {
        const nl = src.indexOf('\n', j);
        const line = src.slice(j, nl < 0 ? src.length : nl);
        j = nl < 0 ? src.length : nl + 1;
        const cmp = h.stripTabs ? line.replace(/^\t+/, '') : line;
        if (cmp === h.delimiter) break;
        lines.push(line);
      }
      h.token.body = lines.join('\n');
    }
    pendingHeredocs.length = 0;
    return j;
  };

  while (i < src.length) {
    const c = src[i] as string;

    // Comments start only at the beginning of a word.
    if (c === '#' && !inWord) {
      const nl = src.indexOf('\n', i);
      i = nl < 0 ? src.length : nl;
      continue;
    }
    if (c === '\\') {
      if (src[i + 1] === '\n') {
        i += 2;
        continue;
      }
      word += src[i + 1] ?? '';
      inWord = true;
      i += 2;
      continue;
    }
    if (c === "'") {
      const end = src.indexOf("'", i + 1);
      word += src.slice(i + 1, end < 0 ? src.length : end);
      inWord = true;
      quotedWord = true;
      i = end < 0 ? src.length : end + 1;
      continue;
    }
    if (c === '$' && src[i + 1] === "'") {
      const { text, end } = readAnsiC(src, i + 2);
      word += text;
      inWord = true;
      quotedWord = true;
      i = end;
      continue;
    }
    if (c === '"') {
      inWord = true;
      quotedWord = true;
      let j = i + 1;
      while (j < src.length && src[j] !== '"') {
        const d = src[j] as string;
        if (d === '\\' && j + 1 < src.length && '"\\$`\n'.includes(src[j + 1] as string)) {
          if (src[j + 1] !== '\n') word += src[j + 1];
          j += 2;
        } else if (d === '$' && src[j + 1] === '(') j = readSubstitution(j + 2);
        else if (d === '$') j = readVariable(j + 1);
        else if (d === '`') j = readBackticks(j + 1);
        else {
          word += d;
          j++;
        }
      }
      i = j + 1;
      continue;
    }
    if (c === '$' && src[i + 1] === '(') {
      inWord = true;
      i = readSubstitution(i + 2);
      continue;
    }
    if (c === '$') {
      inWord = true;
      i = readVariable(i + 1);
      continue;
    }
    if (c === '`') {
      inWord = true;
      i = readBackticks(i + 1);
      continue;
    }
    if ((c === '<' || c === '>') && src[i + 1] === '(') {
      // Process substitution: its body is a command; the word itself is a pipe path.
      flush();
      inWord = true;
      i = readSubstitution(i + 2);
      flush();
      continue;
    }
    if (c === '<' || c === '>' || (c === '&' && src[i + 1] === '>')) {
      // A word made only of digits right before a redirection is its file descriptor.
      let fd: string | undefined;
      if (inWord && !quotedWord && !dynamic && /^[0-9]+$/.test(word)) {
        fd = word;
        word = '';
        inWord = false;
      }
      flush();
      const op = /^(?:&>>|&>|<<<|<<-|<<|<>|<&|>>|>&|>\||<|>)/.exec(src.slice(i, i + 3))?.[0] ?? c;
      i += op.length;
      if (op === '<<' || op === '<<-') {
        while (src[i] === ' ' || src[i] === '\t') i++;
        const m = /^(?:'([^']*)'|"([^"]*)"|([^\s;&|<>()]+))/.exec(src.slice(i, i + 512));
        const delimiter = (m?.[1] ?? m?.[2] ?? m?.[3] ?? '').replace(/\\/g, '');
        i += m?.[0].length ?? 0;
        const token = { kind: 'heredoc' as const, body: '' };
        tokens.push(token);
        pendingHeredocs.push({ token, delimiter, stripTabs: op === '<<-' });
        continue;
      }
      tokens.push(fd === undefined ? { kind: 'redir', op } : { kind: 'redir', op, fd });
      continue;
    }
    const sep = SEPARATORS.find((s) => src.startsWith(s, i));
    if (sep) {
      flush();
      tokens.push({ kind: 'sep', op: sep });
      i += sep.length;
      if (sep === '\n' && pendingHeredocs.length) i = readHeredocBodies(i);
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      flush();
      i++;
      continue;
    }
    word += c;
    inWord = true;
    i++;
  }
  flush();
  if (pendingHeredocs.length) readHeredocBodies(src.length);
  return { tokens, nested };
}

/** Decode bash's `$'…'` quoting (\xHH, \NNN, \uHHHH, \n …); returns the text and the end index. */
function readAnsiC(src: string, start: number): { text: string; end: number } {
  let text = '';
  let j = start;
  while (j < src.length && src[j] !== "'") {
    if (src[j] !== '\\') {
      text += src[j];
      j++;
      continue;
    }
    const e = src[j + 1] ?? '';
    const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', e: '\x1b', a: '\x07', b: '\b', f: '\f', v: '\v', '\\': '\\', "'": "'", '"': '"', '?': '?' };
    if (e in simple) {
      text += simple[e];
      j += 2;
      continue;
    }
    const hex = /^x([0-9a-fA-F]{1,2})/.exec(src.slice(j + 1, j + 4));
    const uni = /^[uU]([0-9a-fA-F]{1,8})/.exec(src.slice(j + 1, j + 10));
    const oct = /^([0-7]{1,3})/.exec(src.slice(j + 1, j + 4));
    if (hex) {
      text += String.fromCharCode(parseInt(hex[1] as string, 16));
      j += 1 + hex[0].length;
    } else if (uni) {
      const cp = parseInt(uni[1] as string, 16);
      text += cp <= 0x10ffff ? String.fromCodePoint(cp) : '';
      j += 1 + uni[0].length;
    } else if (oct) {
      text += String.fromCharCode(parseInt(oct[1] as string, 8) & 0xff);
      j += 1 + oct[0].length;
    } else {
      text += `\\${e}`;
      j += 2;
    }
  }
  return { text, end: Math.min(src.length, j + 1) };
}

/** Function definitions in the text, with the body between the braces (null when it has none). */
export function functionBodies(src: string): Map<string, string | null> {
  const out = new Map<string, string | null>();
  for (const m of src.matchAll(/(?:^|[\s;&|({])(?:function\s+([A-Za-z_][\w.-]*)(?:\s*\(\s*\))?|([A-Za-z_][\w.-]*)\s*\(\s*\))\s*/g)) {
    const name = (m[1] ?? m[2]) as string;
    const open = (m.index ?? 0) + m[0].length;
    if (src[open] !== '{' && src[open] !== '(') {
      out.set(name, null);
      continue;
    }
    const close = src[open] === '{' ? '}' : ')';
    let depth = 0;
    let end = -1;
    for (let i = open; i < src.length && end < 0; i++) {
      const ch = src[i];
      if (ch === "'" || ch === '"') {
        const q = src.indexOf(ch, i + 1);
        i = q < 0 ? src.length : q;
      } else if (ch === src[open]) depth++;
      else if (ch === close && --depth === 0) end = i;
    }
    out.set(name, end < 0 ? null : src.slice(open + 1, end));
  }
  return out;
}
