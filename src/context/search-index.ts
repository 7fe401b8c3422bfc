/**
 * Ranked full-text search kept in one SQLite database (FTS5, through Node's built-in
 * `node:sqlite`): BM25 over title (×2), label and text, the Porter stemmer over Unicode words
 * with accents folded, snippets cut by SQLite. A derived cache: the engine (engine/search.ts)
 * feeds it documents, this module never reads the store.
 *
 * Query text never reaches FTS5 as syntax: every word is a quoted string, so quotes, NEAR,
 * `*`, `:` and parentheses are only ever searched for.
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';

export type SearchKind =
  | 'commit'
  | 'purpose'
  | 'hypothesis'
  | 'synthesis'
  | 'abandon'
  | 'objective'
  | 'log'
  | 'tool'
  | 'notes';

/** Bump when what the tables hold changes: a database of another format is rebuilt. */
export const SEARCH_FORMAT = 1;
/** Text indexed per document, in UTF-16 units (~2,000 tokens); the rest is not searchable. */
const TEXT_LIMIT = 8_000;
const TITLE_LIMIT = 500;
const REF_LIMIT = 200;
/** Words a query may carry, and characters per word: the rest is ignored. */
const MAX_WORDS = 24;
const MAX_WORD = 200;
/** The last word is completed as a prefix from this many characters. */
const MIN_PREFIX = 3;
/** Matches ranked at most, the last indexed: ranking every match of a common word in a long history takes seconds. */
const MAX_RANKED = 10_000;
/** What a snippet shows at most, in words and characters. */
const SNIPPET_WORDS = 24;
const SNIPPET_CHARS = 240;
/** A match in a snippet is marked with this pair, and nothing else in a snippet is. */
const MARK_OPEN = '«';
const MARK_CLOSE = '»';
/** SQLite's marks, never in indexed text (control characters are dropped as it is indexed). */
export const RAW_OPEN = '\u0002';
export const RAW_CLOSE = '\u0003';
/** SQLite's page cache, in KiB (negative: a size, not a page count). */
const CACHE_KIB = 2_048;

export interface SearchDoc {
  /** The event id (time-ordered), with a suffix when one event yields several documents. */
  id: string;
  branch: string;
  kind: SearchKind;
  /** ISO time. */
  at: string;
  /** What the reader calls it: `C003`, a branch name, a tool… */
  ref?: string;
  /** Weighted double: commit titles, branch names. */
  title?: string;
  /** A commit's hash, shown with its label where the label is not unique on its branch. */
  hash?: string;
  text: string;
}

export interface SearchHit {
  doc: Omit<SearchDoc, 'text'>;
  score: number;
  snippet: string;
}

export interface SearchResult {
  hits: SearchHit[];
  /** Documents matching. */
  total: number;
  /** Pages that can be asked for: of MAX_RANKED matches at most. */
  pages: number;
  /** 'all': every word of the query matched; 'any': no document has them all, so hits have some. */
  match: 'all' | 'any';
  /** Something the reader should know about this answer (the index was rebuilt, ranking unavailable). */
  note?: string;
}

/** What is remembered of a log: what it was when last fed, and how far into it. */
export interface LogRow {
  size: number;
  sum: number;
  /** Events indexed, and the id of the last of them. */
  events: number;
  last: string;
}

export type Sqlite = typeof import('node:sqlite');

const CONTROL = /[\p{Cc}\u2028\u2029]/gu;
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
/** Identifiers written in camelCase, indexed by their words too (`retryWithBackoff` → retry with backoff). */
const CAMEL_TOKEN = /[\p{L}\p{N}]*[\p{Ll}\p{N}]\p{Lu}[\p{L}\p{N}]*/gu;
const CAMEL_CUT = /(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/u;
const WORDY = /[\p{L}\p{N}]/u;

/** Node's `node:sqlite`, or null where this Node has none (before 22.13); its ExperimentalWarning never shown. */
export function loadSqlite(): Sqlite | null {
  const emit = process.emitWarning;
  process.emitWarning = function (this: unknown, warning: string | Error, ...rest: unknown[]) {
    const type = typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: unknown } | undefined)?.type;
    const name = warning instanceof Error ? warning.name : type;
    if (name === 'ExperimentalWarning' && /SQLite/i.test(String(warning instanceof Error ? warning.message : warning)))
      return;
    return (emit as (...a: unknown[]) => void).call(process, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    return (process.getBuiltinModule?.('node:sqlite') as Sqlite | undefined) ?? null;
  } catch {
    return null;
  } finally {
    process.emitWarning = emit;
  }
}

/** Text as indexed: cut, control characters (and so SQLite's marks) spaces, bidi overrides dropped. */
export const clean = (s: string, max: number) => s.slice(0, max).replace(CONTROL, ' ').replace(BIDI, '');

/** A snippet as shown: one line, the text's own « » as ‹ ›, SQLite's marks as « », at most SNIPPET_CHARS. */
export function showSnippet(raw: string): string {
  let s = raw.replace(/«/g, '‹').replace(/»/g, '›');
  s = s.replaceAll(RAW_OPEN, MARK_OPEN).replaceAll(RAW_CLOSE, MARK_CLOSE);
  s = s.replace(CONTROL, ' ').replace(BIDI, '').replace(/\s+/g, ' ').trim().toWellFormed();
  if (s.length <= SNIPPET_CHARS) return s;
  s = s.slice(0, SNIPPET_CHARS - 1);
  if (s.lastIndexOf(MARK_OPEN) > s.lastIndexOf(MARK_CLOSE)) s += MARK_CLOSE;
  return `${s}…`;
}

/** The FTS5 queries of some words: all of them, and any of them; null when the text holds no word. */
function ftsQuery(text: string): { all: string; any: string; words: number } | null {
  const words = text
    .replace(CONTROL, ' ')
    .split(/\s+/)
    .filter((w) => WORDY.test(w))
    .slice(0, MAX_WORDS)
    .map((w) => w.slice(0, MAX_WORD));
  if (!words.length) return null;
  const quoted = words.map((w, i) => {
    const q = `"${w.replace(/"/g, '""')}"`;
    const tail = /[\p{L}\p{N}]+$/u.exec(w)?.[0] ?? '';
    return i === words.length - 1 && tail.length >= MIN_PREFIX ? `${q} *` : q;
  });
  return { all: quoted.join(' AND '), any: quoted.join(' OR '), words: words.length };
}

const SCHEMA = `
  CREATE TABLE logs(name TEXT PRIMARY KEY, size INTEGER, sum INTEGER, events INTEGER, last TEXT) WITHOUT ROWID;
  CREATE TABLE docs(n INTEGER PRIMARY KEY, log TEXT NOT NULL, id TEXT, at TEXT, branch TEXT, kind TEXT, hash TEXT);
  CREATE INDEX docs_log ON docs(log);
  CREATE VIRTUAL TABLE fts USING fts5(title, ref, body, words, tokenize = 'porter unicode61 remove_diacritics 2');
  PRAGMA user_version = ${SEARCH_FORMAT};`;

/** An open index. Every method may throw SQLite's errors: the engine rebuilds on them. */
export class SearchIndex {
  private readonly stmts = new Map<string, StatementSync>();

  private constructor(private readonly db: DatabaseSync) {}

  /** Opens the database at `path`, creating its tables in an empty one; null when it is of another format. */
  static open(sqlite: Sqlite, path: string): SearchIndex | null {
    const idx = new SearchIndex(new sqlite.DatabaseSync(path));
    try {
      idx.db.exec(
        `PRAGMA busy_timeout = 30000; PRAGMA cache_size = -${CACHE_KIB}; ` +
          'PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL',
      );
      const version = () => (idx.db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version;
      // Created under the write lock, by whichever process gets it first.
      if (version() === 0) idx.write(() => version() === 0 && idx.db.exec(SCHEMA));
      if (version() === SEARCH_FORMAT) return idx;
      idx.close();
      return null;
    } catch (err) {
      idx.close();
      throw err;
    }
  }

  close(): void {
    try {
      this.db.close();
    } catch {
      // Closed already.
    }
  }

  private stmt(sql: string): StatementSync {
    let s = this.stmts.get(sql);
    if (!s) this.stmts.set(sql, (s = this.db.prepare(sql)));
    return s;
  }

  logs(): Map<string, LogRow> {
    const rows = this.stmt('SELECT name, size, sum, events, last FROM logs').all() as unknown as (LogRow & {
      name: string;
    })[];
    return new Map(rows.map(({ name, ...row }) => [name, row]));
  }

  log(name: string): LogRow | undefined {
    return this.stmt('SELECT size, sum, events, last FROM logs WHERE name = ?').get(name) as LogRow | undefined;
  }

  /** Run `work` holding SQLite's write lock, in one transaction. */
  write<T>(work: () => T): T {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      const out = work();
      this.db.exec('COMMIT');
      return out;
    } catch (err) {
      try {
        this.db.exec('ROLLBACK');
      } catch {
        // No transaction left to roll back.
      }
      throw err;
    }
  }

  /** Forget a log: its documents and its row. */
  drop(name: string): void {
    this.stmt('DELETE FROM fts WHERE rowid IN (SELECT n FROM docs WHERE log = ?)').run(name);
    this.stmt('DELETE FROM docs WHERE log = ?').run(name);
    this.stmt('DELETE FROM logs WHERE name = ?').run(name);
  }

  setLog(name: string, row: LogRow): void {
    this.stmt('INSERT OR REPLACE INTO logs(name, size, sum, events, last) VALUES (?, ?, ?, ?, ?)').run(
      name,
      row.size,
      row.sum,
      row.events,
      row.last,
    );
  }

  add(log: string, d: SearchDoc): void {
    const { lastInsertRowid: n } = this.stmt(
      'INSERT INTO docs(log, id, at, branch, kind, hash) VALUES (?, ?, ?, ?, ?, ?)',
    ).run(log, d.id, d.at, d.branch, d.kind, d.hash ?? null);
    const body = clean(d.text, TEXT_LIMIT);
    const words = (body.match(CAMEL_TOKEN) ?? []).map((t) => t.split(CAMEL_CUT).join(' ')).join(' ');
    this.stmt('INSERT INTO fts(rowid, title, ref, body, words) VALUES (?, ?, ?, ?, ?)').run(
      n,
      clean(d.title ?? '', TITLE_LIMIT),
      clean(d.ref ?? '', REF_LIMIT),
      body,
      words,
    );
  }

  /** Ranked: every word first; when no document has them all, those with some. */
  search(text: string, limit: number, page: number): SearchResult {
    const q = ftsQuery(text);
    if (!q) return { hits: [], total: 0, pages: 0, match: 'all' };
    const count = (m: string) =>
      (this.stmt('SELECT count(*) AS c FROM fts WHERE fts MATCH ?').get(m) as { c: number }).c;
    let match: 'all' | 'any' = 'all';
    let fts = q.all;
    let total = count(fts);
    if (total === 0 && q.words > 1 && (total = count(q.any)) > 0) [match, fts] = ['any', q.any];
    const floor =
      total <= MAX_RANKED
        ? 0
        : (
            this.stmt('SELECT rowid AS n FROM fts WHERE fts MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?').get(
              fts,
              MAX_RANKED - 1,
            ) as { n: number }
          ).n;
    // The page ranked, then its snippets cut in one more pass over the matches in its rowid range: a MATCH per row
    // would merge a prefix's doclists once a row. The row filter is an expression SQLite cannot hand to FTS5.
    const top = this.stmt(
      `SELECT fts.rowid AS n, bm25(fts, 2.0, 1.0, 1.0, 1.0) AS score, d.id, d.at, d.branch, d.kind, d.hash
       FROM fts JOIN docs d ON d.n = fts.rowid WHERE fts MATCH ?1 AND fts.rowid >= ?4
       ORDER BY score, d.at DESC, d.id DESC LIMIT ?2 OFFSET ?3`,
    ).all(fts, limit, (page - 1) * limit, floor) as unknown as Ranked[];
    const cut = new Map<number, Cut>();
    if (top.length) {
      const ns = top.map((r) => r.n);
      const rows = this.stmt(
        `SELECT rowid AS n, ref, title, snippet(fts, 2, char(2), char(3), '…', ${SNIPPET_WORDS}) AS snip FROM fts
         WHERE fts MATCH ?1 AND rowid >= ?2 AND rowid <= ?3 AND instr(?4, ',' || rowid || ',') > 0`,
      ).all(fts, Math.min(...ns), Math.max(...ns), `,${ns.join(',')},`) as unknown as Cut[];
      for (const r of rows) cut.set(r.n, r);
    }
    const hits = top.map((r) => {
      const c = cut.get(r.n);
      const doc: SearchHit['doc'] = { id: r.id, branch: r.branch, kind: r.kind, at: r.at };
      if (c?.ref) doc.ref = c.ref;
      if (c?.title) doc.title = c.title;
      if (r.hash) doc.hash = r.hash;
      return { doc, score: -r.score, snippet: showSnippet(c?.snip ?? '') };
    });
    return { hits, total, pages: Math.ceil(Math.min(total, MAX_RANKED) / limit), match };
  }
}

interface Ranked {
  n: number;
  score: number;
  id: string;
  at: string;
  branch: string;
  kind: SearchKind;
  hash: string | null;
}

interface Cut {
  n: number;
  ref: string;
  title: string;
  snip: string;
}
