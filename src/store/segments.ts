/** The logs on disk: the segments under `.GCC/events/` (the local log is named LOCAL). */
import { type Dirent, lstatSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { GccError } from '../errors.js';
import { type Layout, linkRefused, MONTH_DIR, SEGMENT_NAME } from './paths.js';
import { recordSetAside, setAsideNames } from './set-aside.js';

/** The local log's name among the logs. */
export const LOCAL = 'local';

/** Segment names in name order, and the modification time of each folder listed (events/ and its months). */
export interface Listing {
  names: string[];
  mtimes: Map<string, number>;
}

/**
 * Segment names on disk, in name order; anything else in events/ is reported, never read. A
 * month folder or a segment that is a symbolic link is never followed: it would be read as the
 * memory, and this clone's appends would land wherever it leads: E_PATH_ESCAPE. One that
 * `teammates` says git brought (a teammate committed it) is set aside instead (set-aside.ts),
 * like the files set aside before, and the listing that reports (`warnings`) records it and
 * says so once.
 */
export function listSegments(
  layout: Layout,
  warnings?: string[],
  teammates?: (name: string) => boolean,
  now = new Date(),
): Listing {
  const out: string[] = [];
  const mtimes = new Map<string, number>();
  const rel = (path: string) => relative(layout.root, path);
  let months: Dirent[];
  try {
    // Each folder's time is taken before it is listed: a segment added meanwhile moves it again.
    const st = lstatSync(layout.events);
    if (st.isSymbolicLink()) throw linkRefused(rel(layout.events));
    months = readdirSync(layout.events, { withFileTypes: true });
    mtimes.set(layout.events, st.mtimeMs);
  } catch (err) {
    if (err instanceof GccError) throw err;
    return { names: out, mtimes };
  }
  const aside = setAsideNames(layout);
  const link = (name: string, path: string) => {
    // This clone's own file (or one git does not hold) a link: refused, as damage to mend.
    if (!teammates?.(name)) throw linkRefused(rel(path));
    if (!warnings) return;
    const said = recordSetAside(layout, name, 'it is a symbolic link, which gctx never follows', now);
    if (said) warnings.push(said);
  };
  for (const m of months.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const dir = join(layout.events, m.name);
    if (aside.has(m.name)) continue;
    if (m.isSymbolicLink()) {
      link(m.name, dir);
      continue;
    }
    if (!MONTH_DIR.test(m.name)) {
      warnings?.push(`${rel(dir)} is not a memory file; gctx ignores it`);
      continue;
    }
    let names: Dirent[];
    try {
      const st = lstatSync(dir);
      names = readdirSync(dir, { withFileTypes: true });
      mtimes.set(dir, st.mtimeMs);
    } catch {
      continue;
    }
    for (const n of names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const name = `${m.name}/${n.name}`;
      if (aside.has(name)) continue;
      if (n.isSymbolicLink()) {
        link(name, join(dir, n.name));
        continue;
      }
      if (SEGMENT_NAME.test(name)) out.push(name);
      else if (!n.name.includes('.tmp-'))
        warnings?.push(`${rel(join(dir, n.name))} is not a memory segment; gctx ignores it`);
    }
  }
  return { names: out, mtimes };
}
