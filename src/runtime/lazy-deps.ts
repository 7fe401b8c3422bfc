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
const bundled = typeof GCTX_BUNDLED === 'boolean';
let yaml: Yaml | undefined;
let diff: Diff | undefined;
let xstate: XState | undefined;
let shellQuote: ShellQuoteParse | undefined;

export function yamlLib(): Yaml {
  yaml ??= require(bundled ? './yaml.cjs' : 'yaml') as Yaml;
  return yaml;
}

export function diffLib(): Diff {
  diff ??= require(bundled ? './diff.cjs' : 'diff') as Diff;
  return diff;
}

export function xstateLib(): XState {
  xstate ??= require(bundled ? './xstate.cjs' : 'xstate') as XState;
  return xstate;
}

/** shell-quote's tokenizer, for the write guard (a PreToolUse hook) alone. */
export function shellQuoteParse(): ShellQuoteParse {
  shellQuote ??= require(bundled ? './shell-quote.cjs' : 'shell-quote/parse.js') as ShellQuoteParse;
  return shellQuote;
}

/*
 * Builtins only some paths call — git, hashing, random bytes, archives — taken when first
 * called: importing one loads it at start-up, and crypto or child_process cost a process
 * milliseconds that a status, or a hook that runs no git, never needs.
 */
export const childProcess = (): typeof import('node:child_process') => process.getBuiltinModule('node:child_process');
export const crypto = (): typeof import('node:crypto') => process.getBuiltinModule('node:crypto');
export const zlib = (): typeof import('node:zlib') => process.getBuiltinModule('node:zlib');
