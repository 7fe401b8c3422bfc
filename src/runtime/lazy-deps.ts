/**
 * yaml, diff, xstate and shell-quote, loaded on first use. Most calls — a hook recording a tool
 * call, a commit without files, a status — never render metadata.yaml, apply a patch, move a
 * branch or session machine or read a shell command, and short-lived processes (every `gctx
 * hook`) should not pay to load them. `require` keeps the call sites synchronous; all ship
 * CommonJS builds, and Node's `import` of xstate is its CommonJS build too, so code that
 * imports it shares the one instance.
 */
import { createRequire } from 'node:module';

type Yaml = typeof import('yaml');
type Diff = typeof import('diff');
export type ShellQuoteParse = typeof import('shell-quote/parse.js');
export type XState = typeof import('xstate');

/** Set by scripts/bundle.mjs: the `gctx` executable has each one bundled into a file next to it. */
declare const GCTX_BUNDLED: boolean | undefined;

const require = createRequire(import.meta.url);

/** A module required on first call: the package, or in the executable the file bundled next to it. */
function lazy<T>(name: string, bundledFile: string): () => T {
  let module: T | undefined;
  return () => {
    module ??= require(typeof GCTX_BUNDLED === 'boolean' ? bundledFile : name) as T;
    return module;
  };
}

export const yamlLib = lazy<Yaml>('yaml', './yaml.cjs');
export const diffLib = lazy<Diff>('diff', './diff.cjs');
export const xstateLib = lazy<XState>('xstate', './xstate.cjs');
/** shell-quote's tokenizer, for the write guard (a PreToolUse hook) alone. */
export const shellQuoteParse = lazy<ShellQuoteParse>('shell-quote/parse.js', './shell-quote.cjs');

/*
 * Builtins only some paths call — git, hashing, random bytes, archives — taken when first
 * called: importing one loads it at start-up, and crypto or child_process cost a process
 * milliseconds that a status, or a hook that runs no git, never needs.
 */
export const childProcess = (): typeof import('node:child_process') => process.getBuiltinModule('node:child_process');
export const crypto = (): typeof import('node:crypto') => process.getBuiltinModule('node:crypto');
export const zlib = (): typeof import('node:zlib') => process.getBuiltinModule('node:zlib');
