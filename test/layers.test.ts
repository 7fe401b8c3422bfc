/**
 * The layers read top-down: a module imports only from its own layer or from layers below it
 * (docs/architecture.md). Read from the sources' own import statements, `import()` included.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '..', 'src');

/** Top first. A folder (or top-level file) of src/ and its rank. */
const LAYERS: readonly (readonly string[])[] = [
  ['adapters', 'index', 'tour'],
  ['operations'],
  ['engine'],
  ['observer'],
  ['context', 'diagrams'],
  ['projections'],
  ['decider'],
  ['machines'],
  ['store'],
  ['log'],
  ['events'],
  ['runtime', 'errors'],
];
const rank = new Map(LAYERS.flatMap((names, i) => names.map((n) => [n, i] as const)));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    if (d.isDirectory()) return d.name === 'page' ? [] : sources(p);
    return d.name.endsWith('.ts') ? [p] : [];
  });
}

const layerOf = (path: string) => relative(SRC, path).split('/')[0]!.replace(/\.ts$/, '');

describe('layers', () => {
  it('every folder of src/ has a layer', () => {
    for (const f of sources(SRC)) expect(rank.has(layerOf(f)), relative(SRC, f)).toBe(true);
  });

  it('no import runs back up', () => {
    const upward: string[] = [];
    for (const f of sources(SRC)) {
      const text = readFileSync(f, 'utf8');
      for (const m of text.matchAll(/(?:from\s+|import\()\s*'(\.{1,2}\/[^']+)'/g)) {
        const target = resolve(dirname(f), m[1]!);
        const [a, b] = [layerOf(f), layerOf(target)];
        if (rank.get(b)! < rank.get(a)!) upward.push(`${relative(SRC, f)} -> ${relative(SRC, target)}`);
      }
    }
    expect(upward).toEqual([]);
  });
});
