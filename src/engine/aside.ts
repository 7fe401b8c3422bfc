/**
 * Setting a person's file aside under `.GCC/aside/`, which is committed (`.GCC/.gitignore`
 * lets aside/ through): the copy is redacted as every command's text is, so a secret typed
 * into main.md or metadata.yaml reaches no file git may take. The original is neither read
 * through a link nor written through one.
 */
import { mkdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertNoSymlink, type Layout } from '../store/paths.js';
import { readText } from '../store/text-file.js';
import type { Redact } from '../projections/adopt.js';

export type { Redact };

export interface SetAside {
  target: string;
  /** Some secret in the file was replaced by [REDACTED] in the copy. */
  redacted: boolean;
}

/**
 * Write `path`'s text, redacted, to `aside/<name>`; with `move`, remove `path` after. Null when `path` cannot be read.
 */
export function setAside(l: Layout, path: string, name: string, redact: Redact, move = false): SetAside | null {
  assertNoSymlink(l.root, path);
  const text = readText(path);
  if (text === null) return null;
  const target = join(l.aside, name);
  assertNoSymlink(l.root, target);
  mkdirSync(l.aside, { recursive: true });
  const clean = redact(text);
  writeFileSync(target, clean, { flag: 'wx' }); // a new name: never over a file, nor through a link
  if (move) unlinkSync(path);
  return { target, redacted: clean !== text };
}

/** What a warning adds when the copy is not the person's text byte for byte. */
export const REDACTED_NOTE = ' (secrets in it were replaced by [REDACTED]: aside/ is committed)';
