/**
 * Codex edits files with `apply_patch`, whose hook input is the raw patch body:
 *
 *   *** Begin Patch
 *   *** Add File: a.txt        (+ lines follow)
 *   *** Update File: b.txt     (optionally *** Move to: c.txt, then @@ hunks of ' ', '-', '+')
 *   *** Delete File: d.txt
 *   *** End Patch
 *
 * The write guard needs every path the patch touches, and "Files touched" needs line counts,
 * so the patch is read into one entry per file. Anything unparseable yields no files: the call
 * is then logged as text and never blocked on a guess.
 */

export interface PatchFile {
  op: 'add' | 'update' | 'delete';
  path: string;
  /** Update with `*** Move to:` */
  moveTo?: string;
  /** The patch's old side (context and removed lines); null for an added file. */
  before: string | null;
  /** The patch's new side (context and added lines); null for a deleted file. */
  after: string | null;
}

const HEADER = /^\*\*\* (Add|Update|Delete) File: (.+)$/;
const MOVE = /^\*\*\* Move to: (.+)$/;

export function parsePatch(body: string): PatchFile[] {
  const files: PatchFile[] = [];
  let cur: (PatchFile & { old: string[]; neu: string[] }) | null = null;
  const flush = () => {
    if (!cur) return;
    const { old, neu, ...file } = cur;
    if (file.op === 'add') file.after = neu.join('\n');
    if (file.op === 'update') {
      file.before = old.join('\n');
      file.after = neu.join('\n');
    }
    files.push(file);
    cur = null;
  };
  for (const raw of body.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    // Codex trims a header line before matching it, so an indented header still applies.
    const h = HEADER.exec(line.trim());
    if (h) {
      flush();
      const op = h[1] === 'Add' ? 'add' : h[1] === 'Update' ? 'update' : 'delete';
      cur = { op, path: h[2]!.trim(), before: op === 'delete' ? '' : null, after: null, old: [], neu: [] };
      continue;
    }
    if (!cur) continue;
    const m = MOVE.exec(line.trim());
    if (m) {
      cur.moveTo = m[1]!.trim();
      continue;
    }
    if (line.trim().startsWith('***') || line.startsWith('@@')) continue;
    if (line.startsWith('+')) cur.neu.push(line.slice(1));
    else if (line.startsWith('-')) cur.old.push(line.slice(1));
    else if (line.startsWith(' ')) {
      cur.old.push(line.slice(1));
      cur.neu.push(line.slice(1));
    }
  }
  flush();
  return files;
}
