/**
 * yaml, diff and minisearch, loaded on first use. Most calls — a hook recording a tool call, a commit
 * without files — never render metadata.yaml or apply a patch, and short-lived processes
 * (every `gctx hook`) should not pay to load them; only a search needs minisearch. `require`
 * keeps the call sites synchronous; all three ship CommonJS builds.
 */
import { createRequire } from 'node:module';

type Yaml = typeof import('yaml');
type Diff = typeof import('diff');
type Search = typeof import('minisearch').default;

/** Set by scripts/bundle.mjs: the `gctx` executable has each one bundled into a file next to it. */
declare const GCTX_BUNDLED: boolean | undefined;

const require = createRequire(import.meta.url);
const bundled = typeof GCTX_BUNDLED === 'boolean';
let yaml: Yaml | undefined;
let diff: Diff | undefined;
let search: Search | undefined;

export function yamlLib(): Yaml {
  yaml ??= require(bundled ? './yaml.cjs' : 'yaml') as Yaml;
  return yaml;
}

export function diffLib(): Diff {
  diff ??= require(bundled ? './diff.cjs' : 'diff') as Diff;
  return diff;
}

/** The MiniSearch class. */
export function miniSearchLib(): Search {
  search ??= require(bundled ? './minisearch.cjs' : 'minisearch') as Search;
  return search;
}
