/**
 * Git hooks that rebuild a memory's projections right after git changed its logs
 * (post-merge, post-checkout, post-rewrite). Hooks are optional: without them the next
 * gctx call rebuilds the projections anyway. What the hooks add is knowing that the
 * projection files on disk are exactly what git checked out, so they are replaced quietly
 * instead of being kept aside as possible hand edits (see docs/git.md).
 *
 * Our lines live in a marked block, one per project folder, so an existing hook (a team's
 * own, or another tool's) is extended rather than replaced, and re-running install
 * rewrites only our block.
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { shellQuote } from './git.js';

export const HOOKS = ['post-merge', 'post-checkout', 'post-rewrite'] as const;

export interface HookResult {
  hook: string;
  path: string;
  action: 'created' | 'updated' | 'unchanged' | 'skipped';
  why?: string;
}

function markers(project: string): [string, string] {
  return [`# >>> gctx ${project}`, `# <<< gctx ${project}`];
}

/** The block for one project: `project` is its folder relative to the working tree's top, where git runs hooks. */
export function hookBlock(command: string, project: string): string {
  const [open, close] = markers(project);
  return [
    open,
    '# Rebuild agent memory projections after git changed .GCC/ logs (`gctx git install`).',
    '# Never fails the git command: a broken memory is reported by the next gctx call.',
    `${command} git sync --dir ${shellQuote(project)} >/dev/null || true`,
    close,
    '',
  ].join('\n');
}

export function installHook(dir: string, hook: string, block: string, project: string): HookResult {
  const path = join(dir, hook);
  const [open, close] = markers(project);
  let text: string | null = null;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    /* no such hook yet */
  }
  if (text === null) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path, `#!/bin/sh\n${block}`);
    chmodSync(path, 0o755);
    return { hook, path, action: 'created' };
  }
  const start = text.indexOf(open);
  const end = text.indexOf(close, start);
  if (start !== -1 && end !== -1) {
    const next = text.slice(0, start) + block + text.slice(end + close.length).replace(/^\n/, '');
    if (next === text) return { hook, path, action: 'unchanged' };
    writeFileSync(path, next);
    return { hook, path, action: 'updated' };
  }
  // Only a shell script can take our lines; another interpreter's hook is left alone.
  if (!/^#!\s*(\/bin\/|\/usr\/bin\/env\s+)(ba|da|z)?sh\b/.test(text)) {
    return {
      hook,
      path,
      action: 'skipped',
      why: 'existing hook is not a shell script; add the line from docs/git.md to it by hand',
    };
  }
  writeFileSync(path, `${text}${text.endsWith('\n') ? '' : '\n'}${block}`);
  chmodSync(path, 0o755);
  return { hook, path, action: 'updated' };
}
