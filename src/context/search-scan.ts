/**
 * Search where Node has no `node:sqlite` (before 22.13): the documents as the engine streams
 * them, newest first; every word a case-insensitive substring; only the asked page is kept.
 */
import { clean, RAW_CLOSE, RAW_OPEN, type SearchDoc, type SearchResult, showSnippet } from './search-index.js';

export const UNRANKED = 'ranked search needs Node 22.13 or later; these are the newest entries with every word';
const SNIPPET_CHARS = 200;

const escape = (w: string) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `stream` hands documents newest first to its visitor until it answers false. */
export function scanSearch(
  text: string,
  limit: number,
  page: number,
  stream: (visit: (d: SearchDoc) => boolean) => void,
): SearchResult {
  const words = clean(text, 4_000).split(/\s+/).filter(Boolean).slice(0, 24);
  const tests = words.map((w) => new RegExp(escape(w), 'iu'));
  const marks = new RegExp(
    words
      .map(escape)
      .sort((a, b) => b.length - a.length)
      .join('|'),
    'giu',
  );
  const hits: SearchResult['hits'] = [];
  let total = 0;
  if (words.length) {
    stream((d) => {
      const body = clean(d.text, 64_000);
      const all = `${d.title ?? ''}\n${d.ref ?? ''}\n${body}`;
      if (!tests.every((t) => t.test(all))) return true;
      if (total++ >= (page - 1) * limit && hits.length < limit) {
        const at = Math.max(0, body.search(tests[0]!) - SNIPPET_CHARS / 3);
        const cut = body.slice(at, at + SNIPPET_CHARS).replace(marks, (m) => RAW_OPEN + m + RAW_CLOSE);
        const { text: _, ...doc } = d;
        hits.push({
          doc,
          score: 0,
          snippet: showSnippet((at > 0 ? '…' : '') + cut + (at + SNIPPET_CHARS < body.length ? '…' : '')),
        });
      }
      return true;
    });
  }
  return { hits, total, pages: Math.ceil(total / limit), match: 'all', note: UNRANKED };
}
