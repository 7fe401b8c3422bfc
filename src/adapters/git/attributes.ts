/**
 * `.GCC/.gitattributes`: how git stores and merges the files of a memory. It lives inside
 * `.GCC/` so it travels with the memory, applies to it alone (in a monorepo too) and never
 * touches the project's own attributes. Patterns without a slash match at any depth, so
 * `log.md` covers main's log and every `branches/<name>/log.md`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeTextAtomic } from '../../store/text-file.js';

export const LOG_DRIVER = 'gcc-log';
export const PROJECTION_DRIVER = 'gcc-projection';

export const GITATTRIBUTES = `# Written by \`gctx git install\`: how git stores and merges this agent memory (docs/git.md).
# Exact bytes, no line-ending conversion: every log entry carries a checksum of its bytes
# and every projection must equal a replay of the logs byte for byte.
* -text
# Logs are unioned by event id. The driver is registered per clone: \`gctx git install\`.
log.md merge=${LOG_DRIVER}
# Projections are rebuilt from the merged logs, so a merge just keeps this clone's copy.
main.md merge=${PROJECTION_DRIVER}
metadata.yaml merge=${PROJECTION_DRIVER}
commit.md merge=${PROJECTION_DRIVER}
summary.md merge=${PROJECTION_DRIVER}
`;

/** Write the file when it differs; returns whether it changed. */
export function writeAttributes(gccDir: string): boolean {
  const path = join(gccDir, '.gitattributes');
  let have: string | null = null;
  try {
    have = readFileSync(path, 'utf8');
  } catch {
    /* not there yet */
  }
  if (have === GITATTRIBUTES) return false;
  writeTextAtomic(path, GITATTRIBUTES);
  return true;
}
