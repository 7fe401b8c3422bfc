/**
 * A person's edits of main.md and metadata.yaml: adopted as events where they can be (ticked,
 * added, reworded objectives; Notes; config values), kept aside with a warning where they
 * cannot, and the file regenerated either way. Fail safe: an edit that cannot be read (too
 * large, a missing heading, anything that throws) changes nothing in memory.
 */
import { basename, relative } from 'node:path';
import type { MemoryState } from '../decider/state.js';
import type { NewEvent } from '../events/types.js';
import { adoptMain, adoptMetadata, type Adoption } from '../projections/adopt.js';
import { renderMain } from '../projections/render-main.js';
import { renderMetadata } from '../projections/render-metadata.js';
import { runGit } from '../store/git-probe.js';
import { assertNoSymlink, type Layout } from '../store/paths.js';
import { readText } from '../store/text-file.js';
import { type Redact, REDACTED_NOTE, setAside } from './aside.js';
import type { ViewWriter } from './views.js';

export interface Reconciled {
  events: NewEvent[];
  warnings: string[];
  /** Some file differs from what gctx wrote and must be regenerated. */
  dirty: boolean;
}

/** The file kept aside, redacted (aside/ is committed); the warning says where and why. */
function keepAside(l: Layout, path: string, why: string[], redact: Redact): string {
  const kept = setAside(
    l,
    path,
    `${basename(path)}.${new Date().toISOString().replace(/[:.]/g, '-')}.${process.pid}`,
    redact,
  );
  // Quoted lines of the edit are in the reason too: it is shown to the agent.
  const reason = `${basename(path)}: ${redact(why.join('; '))}.`;
  if (!kept) return `${reason} It could not be read to be kept, and the file was regenerated`;
  const note = kept.redacted ? REDACTED_NOTE : '';
  return `${reason} Your version is kept at ${kept.target}${note} and the file was regenerated`;
}

/**
 * Whether git tracks a view (a teammate force-added it: views are ignored): then what stands
 * there came from git, or is an edit of git's copy; either way not this clone's own edit to
 * adopt. 'git' when it is git's copy (index or HEAD), 'edited' when it differs from both.
 */
function trackedView(l: Layout, path: string): 'git' | 'edited' | null {
  try {
    if (runGit(l.root, ['ls-files', '--with-tree=HEAD', '--', path]).trim() === '') return null;
  } catch {
    return null; // no git, or git cannot tell: the edit is this clone's
  }
  const same = (args: string[]) => {
    try {
      runGit(l.root, ['diff', '--quiet', '--no-ext-diff', ...args, '--', path]);
      return true;
    } catch {
      return false;
    }
  };
  return same([]) || same(['HEAD']) ? 'git' : 'edited';
}

/** Said of a view git tracks, which is regenerated: how to stop git carrying it. */
function fromGitWarning(l: Layout, path: string, how: 'git' | 'edited', redact: Redact): string {
  const rel = `.GCC/${basename(path)}`;
  const head =
    `${rel} is tracked by git (a commit added it; gctx generates it on each machine), ` +
    'so it was not taken as an edit of yours';
  const untrack = `stop git carrying it: \`git rm --cached ${rel}\` and commit`;
  if (how === 'git') return `${head}; it was regenerated — ${untrack}`;
  return `${keepAside(l, path, ["it differs from git's copy too"], redact)}. ${head}; ${untrack}`;
}

/**
 * Compare main.md and metadata.yaml with what gctx wrote; with `redact` null only say whether
 * anything differs. `redact` is applied to all the person's text taken in, as events or set
 * aside. `looked`: signatures of either file taken a moment ago under the same lock, with
 * nothing written since, not taken again.
 */
export function reconcileEdits(
  l: Layout,
  w: ViewWriter,
  state: MemoryState,
  nonce: () => string,
  redact: Redact | null,
  looked?: ReadonlyMap<string, string | null>,
): Reconciled {
  const events: NewEvent[] = [];
  const warnings: string[] = [];
  let dirty = false;
  const checks: [string, (s: MemoryState) => string, (base: string, disk: string, redact: Redact) => Adoption][] = [
    [l.mainMd, renderMain, (base, disk, r) => adoptMain(state, base, disk, nonce, r)],
    [l.metadata, renderMetadata, (base, disk) => adoptMetadata(base, disk)],
  ];
  for (const [path, render, adopt] of checks) {
    if (looked?.has(path) ? w.isSeen(path, looked.get(path)!) : w.isSeen(path)) continue;
    assertNoSymlink(l.root, path); // never take a file outside the tree in as a hand edit
    const disk = readText(path);
    if (disk === null) continue; // missing: rebuilt with the other views
    if (disk === '') {
      // What a crash leaves of a file whose data never reached the disk (see replaceText).
      dirty = true;
      continue;
    }
    const rendered = render(state);
    if (disk === rendered) {
      if (redact) w.markSeen(path);
      continue;
    }
    dirty = true;
    if (!redact) continue;
    const tracked = trackedView(l, path);
    if (tracked) {
      warnings.push(fromGitWarning(l, path, tracked, redact));
      continue;
    }
    let a: Adoption;
    try {
      a = adopt(rendered, disk, redact);
    } catch (err) {
      a = { events: [], unadopted: [`it could not be read as an edit (${(err as Error).message})`] };
    }
    events.push(...a.events);
    if (a.unadopted.length) warnings.push(keepAside(l, path, a.unadopted, redact));
  }
  return { events, warnings, dirty };
}

/**
 * After the logs changed underneath gctx (a pull, a checkout): keep aside main.md /
 * metadata.yaml when they match neither what gctx last wrote nor a render of the new state,
 * since only then may they hold an edit. Nothing is adopted: the other side's newer events
 * must not read as the person's deletions.
 */
export function setAsideUnexplained(
  l: Layout,
  w: ViewWriter,
  state: MemoryState,
  redact: Redact,
  why = 'the logs changed meanwhile (a pull or a checkout)',
): string[] {
  const warnings: string[] = [];
  for (const [path, render] of [
    [l.mainMd, renderMain],
    [l.metadata, renderMetadata],
  ] as const) {
    assertNoSymlink(l.root, path);
    const disk = readText(path);
    if (disk === null || disk === '' || w.isSeen(path) || disk === render(state)) continue;
    const tracked = trackedView(l, path);
    if (tracked) {
      warnings.push(fromGitWarning(l, path, tracked, redact));
      continue;
    }
    warnings.push(keepAside(l, path, [`it differs from what gctx wrote, and ${why}`], redact));
  }
  return warnings;
}

/**
 * Views other than main.md and metadata.yaml that git tracks and that stand as git's copy (a
 * teammate force-added them): paths relative to the project. Only asked when HEAD moved; once
 * regenerated they differ from git's copy, so they are found (and the user told) once.
 */
export function viewsFromGit(l: Layout): string[] {
  try {
    const dir = relative(l.root, l.gcc);
    const tracked = runGit(l.root, ['ls-files', '-z', '--with-tree=HEAD', '--', dir])
      .split('\0')
      .filter((p) => {
        const rest = p.slice(dir.length + 1);
        return p && !/^(events|aside)\//.test(rest) && !['.gitignore', 'main.md', 'metadata.yaml'].includes(rest);
      });
    if (tracked.length === 0) return [];
    const edited = new Set(
      runGit(l.root, ['diff', '--name-only', '-z', '--no-ext-diff', '--', ...tracked]).split('\0'),
    );
    return tracked.filter((p) => !edited.has(p));
  } catch {
    return [];
  }
}

/** What the user is told of views git brought (viewsFromGit), regenerated. */
export function viewsFromGitWarning(paths: readonly string[]): string {
  const them = paths.length === 1 ? 'it' : 'them';
  return (
    `${paths.join(', ')} came from git (a commit tracks ${them}; gctx generates views on each machine): ` +
    `regenerated from the logs — stop git carrying ${them}: \`git rm --cached ${paths.join(' ')}\` and commit`
  );
}
