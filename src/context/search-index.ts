/**
 * Interim: the ranked index lands from the search work; this placeholder keeps the interface.
 */
export type SearchKind = 'commit' | 'purpose' | 'hypothesis' | 'synthesis' | 'abandon' | 'objective' | 'log' | 'tool';
export interface SearchDoc {
  id: string;
  shard: string;
  branch: string;
  kind: SearchKind;
  at: string;
  ref?: string;
  title?: string;
  text: string;
}
export interface SearchHit {
  doc: Omit<SearchDoc, 'text' | 'shard'>;
  score: number;
  snippet: string;
}
