/**
 * Search over a memory. Interim: a scan, newest first, for entries holding every word.
 */
import { clip } from '../context/budget.js';
import type { SearchHit, SearchKind } from '../context/search-index.js';
import type { GccEvent } from '../events/types.js';
import { scanNewest } from './reader.js';
import type { Memory } from './memory.js';

function docOf(e: GccEvent): { kind: SearchKind; ref?: string; text: string } | null {
  switch (e.type) {
    case 'commit.recorded':
      return { kind: e.data.merge ? 'synthesis' : e.data.abandon ? 'abandon' : 'commit', ref: `${e.data.label} ${e.data.id}`, text: `${e.data.title}\n${e.data.contribution}` };
    case 'branch.created':
      return { kind: 'purpose', ref: e.data.name, text: `${e.data.purpose}\n${e.data.hypotheses.join('\n')}` };
    case 'branch.abandoned':
      return { kind: 'abandon', ref: e.data.branch, text: e.data.reason };
    case 'ota.logged':
      return { kind: 'log', text: `${e.data.observation}\n${e.data.thought}\n${e.data.action}` };
    case 'tool.recorded':
      return { kind: 'tool', ref: e.data.tool, text: `${e.data.input}\n${e.data.result}` };
    case 'objective.added':
    case 'objective.edited':
      return { kind: 'objective', text: e.data.text };
    default:
      return null;
  }
}

export function searchMemory(m: Memory, text: string, o: { limit: number; page: number; branch?: string }): { hits: SearchHit[]; total: number; pages: number; mode: string } {
  const words = text.toLowerCase().split(/\s+/).filter(Boolean);
  const hits: SearchHit[] = [];
  scanNewest(m.store, o.branch ? { branch: o.branch } : {}, (e) => {
    const d = docOf(e);
    if (!d) return true;
    const hay = d.text.toLowerCase();
    if (words.every((w) => hay.includes(w))) {
      const at = hay.indexOf(words[0]!);
      hits.push({ doc: { id: e.id, branch: e.branch, kind: d.kind, at: e.at, ...(d.ref ? { ref: d.ref } : {}) }, score: 1, snippet: clip(d.text.slice(Math.max(0, at - 60), at + 140), 200) });
    }
    return true;
  });
  const pages = Math.max(1, Math.ceil(hits.length / o.limit));
  return { hits: hits.slice((o.page - 1) * o.limit, o.page * o.limit), total: hits.length, pages, mode: '' };
}
