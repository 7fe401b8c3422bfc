import { basename } from './command-env.js';
import type { Word } from './shell-effects.js';

/**
 * Prefixes that run the rest of their words as a command (`sudo -u x`, `env A=b`, `timeout 5`,
 * `exec`, `flock FILE`): stripped so the real command is judged. Their own options can matter:
 * `env -C DIR` changes directory, `env -S STRING` and `flock -c CMD` run shell code, `strace -o`
 * and `time -o` write a file.
 */

export interface WrapperHooks {
  chdir(dir: Word): void;
  nested(src: string): void;
  write(w: Word): void;
}

/** Prefixes that run the rest of the words as a command: options taking a value, leading operands to skip. */
const WRAPPERS: Record<string, { short?: string; long?: string[]; lead?: number }> = {
  sudo: { short: 'ugpChDrtUTR', long: ['user', 'group', 'prompt', 'host', 'chdir', 'role', 'type', 'other-user', 'close-from'] },
  doas: { short: 'uC' },
  env: { short: 'uCS', long: ['unset', 'chdir', 'split-string'] },
  nice: { short: 'n', long: ['adjustment'] },
  nohup: {},
  time: { short: 'fo', long: ['format', 'output'] },
  command: {},
  builtin: {},
  exec: { short: 'a' },
  stdbuf: { short: 'ioe', long: ['input', 'output', 'error'] },
  timeout: { short: 'sk', long: ['signal', 'kill-after'], lead: 1 },
  ionice: { short: 'cnp', long: ['class', 'classdata', 'pid'] },
  chronic: {},
  unbuffer: {},
  strace: { short: 'oepsuESPI', long: ['output'] },
  ltrace: { short: 'oepsuS', long: ['output'] },
  flock: { short: 'wEc', long: ['timeout', 'conflict-exit-code', 'command'], lead: 1 },
  busybox: {},
  catchsegv: {},
  setsid: {},
  taskset: { lead: 1 },
  chrt: { lead: 1 },
  caffeinate: {},
  fakeroot: {},
};

/** Drop `sudo -u x`, `env A=b`, `timeout 5`, `exec` and the like in front of the real command. */
export function stripWrappers(words: Word[], hooks: WrapperHooks): Word[] | null {
  let w = words;
  for (let guard = 0; guard < 16 && w.length; guard++) {
    const name = basename((w[0] as Word).text);
    const spec = WRAPPERS[name];
    if (!spec) break;
    if (name === 'command' && w.some((x) => x.text === '-v' || x.text === '-V')) return null;
    let k = 1;
    let lead = spec.lead ?? 0;
    while (k < w.length) {
      const word = w[k] as Word;
      const t = word.text;
      if (t === '--') {
        k++;
        break;
      }
      if (t.startsWith('-') && t.length > 1) {
        const letter = t.startsWith('--') ? t.slice(2).split('=')[0] ?? '' : t.slice(-1);
        const takesValue = t.startsWith('--') ? !t.includes('=') && (spec.long ?? []).includes(letter) : t.length === 2 && (spec.short ?? '').includes(letter);
        const valueWord = takesValue ? w[k + 1] : t.length > 2 && !t.startsWith('--') ? { text: t.slice(2), dynamic: word.dynamic } : t.includes('=') ? { text: t.slice(t.indexOf('=') + 1), dynamic: word.dynamic } : undefined;
        const flag = t.startsWith('--') ? letter : t[1];
        wrapperOption(name, flag ?? '', valueWord, hooks);
        k += takesValue ? 2 : 1;
      } else if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(t) && name === 'env') k++;
      else if (lead > 0) {
        // flock creates its lock file.
        if (name === 'flock') hooks.write(word);
        lead--;
        k++;
      } else break;
    }
    w = w.slice(k);
  }
  return w;
}

function wrapperOption(name: string, flag: string, v: Word | undefined, hooks: WrapperHooks): void {
  if (!v) return;
  if ((name === 'env' || name === 'sudo') && (flag === 'C' || flag === 'chdir' || flag === 'D')) hooks.chdir(v);
  else if ((name === 'env' && (flag === 'S' || flag === 'split-string')) || (name === 'flock' && (flag === 'c' || flag === 'command'))) hooks.nested(v.text);
  else if ((name === 'strace' || name === 'ltrace' || name === 'time') && (flag === 'o' || flag === 'output')) hooks.write(v);
}
