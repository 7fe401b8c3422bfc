/**
 * The files a patch writes, from its text alone: Codex's `apply_patch` format (`*** Add File:`,
 * `*** Update File:`, `*** Delete File:`, `*** Move to:`, matched the way Codex does, with the
 * line trimmed) and unified or git diffs (`--- a/x`, `+++ b/x`, `diff --git`, renames).
 */

const CODEX = /^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$/;
const UNIFIED = /^(?:\+\+\+|---) ([^\t]+?)(?:\t.*)?$/;
const GIT_HEADER = /^diff --git (\S+) (\S+)$/;
const RENAME = /^(?:rename|copy) (?:from|to) (.+)$/;

/** Paths named by a patch; `strip` drops leading components of diff paths (`patch -p`, `git apply -p`). */
export function patchTargets(text: string, strip = 0): string[] {
  const out = new Set<string>();
  const diffPath = (p: string) => {
    const path = p.trim().replace(/^"(.*)"$/, '$1');
    if (!path || path === '/dev/null') return;
    out.add(path);
    const parts = path.split('/').filter(Boolean);
    if (strip > 0 && parts.length > strip) out.add(parts.slice(strip).join('/'));
  };
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const codex = CODEX.exec(line);
    if (codex) {
      out.add((codex[1] as string).trim());
      continue;
    }
    const git = GIT_HEADER.exec(line);
    if (git) {
      diffPath(git[1] as string);
      diffPath(git[2] as string);
      continue;
    }
    const m = UNIFIED.exec(line) ?? RENAME.exec(line);
    if (m && !line.startsWith('*** ')) diffPath(m[1] as string);
  }
  return [...out];
}
