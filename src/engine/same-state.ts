/**
 * Whether two states hold the same data, as a snapshot would write them: members whose value
 * is undefined count as absent, key order and prototypes do not count (a state read back from
 * a snapshot has its maps made prototype-free again, and members in the order it found them).
 */
import { crypto } from '../runtime/lazy-deps.js';

/** Where two values first differ, as a path (`branches.feature.life`); null when they hold the same data. */
export function firstDifference(a: unknown, b: unknown, at = 'state'): string | null {
  if (a === b) return null;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return at;
  if (Array.isArray(a) !== Array.isArray(b)) return at;
  if (Array.isArray(a)) {
    const y = b as unknown[];
    if (a.length !== y.length) return at;
    for (let i = 0; i < a.length; i++) {
      const d = firstDifference(a[i], y[i], `${at}[${i}]`);
      if (d) return d;
    }
    return null;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = (o: Record<string, unknown>) => Object.keys(o).filter((k) => o[k] !== undefined);
  const kx = keys(x);
  for (const k of kx) {
    if (!Object.hasOwn(y, k)) return `${at}.${k}`;
    const d = firstDifference(x[k], y[k], `${at}.${k}`);
    if (d) return d;
  }
  // Every member of x is in y with the same data: y differs only by members x lacks.
  const extra = keys(y).find((k) => !Object.hasOwn(x, k) || x[k] === undefined);
  return extra === undefined ? null : `${at}.${extra}`;
}

/**
 * A digest of a value's data, the same for two values of which firstDifference finds none:
 * members in key order, undefined ones left out. Fed a piece at a time, so a large state is
 * never one string.
 */
export function digestOf(value: unknown): string {
  const hash = crypto().createHash('sha256');
  let pending = '';
  const put = (text: string) => {
    pending += text;
    if (pending.length >= 1 << 16) {
      hash.update(pending);
      pending = '';
    }
  };
  const walk = (v: unknown): void => {
    if (typeof v !== 'object' || v === null) {
      put(v === undefined ? 'null' : JSON.stringify(v));
      return;
    }
    if (Array.isArray(v)) {
      put('[');
      v.forEach((x, i) => {
        if (i) put(',');
        walk(x);
      });
      put(']');
      return;
    }
    const o = v as Record<string, unknown>;
    put('{');
    let sep = '';
    for (const k of Object.keys(o).sort()) {
      if (o[k] === undefined) continue;
      put(`${sep}${JSON.stringify(k)}:`);
      sep = ',';
      walk(o[k]);
    }
    put('}');
  };
  walk(value);
  hash.update(pending);
  return hash.digest('hex');
}
