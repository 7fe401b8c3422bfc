/** Documents for the search tests: time-ordered ids like the store's, one call per document. */
import type { SearchDoc } from '../../src/context/search-index.js';

const T0 = Date.UTC(2026, 0, 1);

/** Id of the n-th event: 12 hex of milliseconds and 10 hex of counter, as the store makes them. */
export function eventId(n: number): string {
  return (T0 + n * 1000).toString(16).padStart(12, '0') + n.toString(16).padStart(10, '0');
}

export function doc(n: number, fields: Partial<SearchDoc> = {}): SearchDoc {
  return {
    id: eventId(n),
    shard: 'seg-a',
    branch: 'main',
    kind: 'commit',
    at: new Date(T0 + n * 1000).toISOString(),
    ref: `C${String(n).padStart(3, '0')} ${eventId(n).slice(-7)}`,
    text: '',
    ...fields,
  };
}

const WORDS = 'parser cache lock replay index branch merge token budget schema writer reader tail fsync retry commit context segment window snippet'.split(' ');

/** Deterministic filler prose of `n` words (mulberry32 on `seed`). */
export function prose(seed: number, n: number): string {
  let a = seed >>> 0;
  const rnd = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(WORDS[Math.floor(rnd() * WORDS.length)]!);
  return out.join(' ');
}
