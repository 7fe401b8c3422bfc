/**
 * Reads the daemon's JSON endpoints. URLs are relative and same-origin, so the cookie the
 * daemon set when the page was opened authorizes every request; the page holds no token.
 */
import type { CommitItem, GraphSource, LogItem, Overview, Page, SearchResult } from './contract.js';

class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function getJson<T>(
  path: string,
  params: Record<string, string | number | null | undefined> = {},
  cache: RequestCache = 'no-store',
): Promise<T> {
  const url = new URL(path, location.href);
  for (const [k, v] of Object.entries(params))
    if (v !== null && v !== undefined && v !== '') url.searchParams.set(k, String(v));
  const res = await fetch(url, { credentials: 'same-origin', headers: { Accept: 'application/json' }, cache });
  if (!res.ok) {
    const why =
      res.status === 401 || res.status === 403
        ? 'not authorized: open the address `gctx serve status` prints'
        : `${res.status} ${res.statusText}`;
    throw new ApiError(res.status, `${url.pathname}: ${why}`);
  }
  return (await res.json()) as T;
}

const PAGE_SIZE = 25;

export const api = {
  overview: () => getJson<Overview>('/api/overview'),
  // Revalidated with the ETag the daemon sent: an unchanged graph costs a 304, not its source.
  graph: () => getJson<GraphSource>('/api/graph', {}, 'no-cache'),
  commits: (branch: string, before: string | null) =>
    getJson<Page<CommitItem>>('/api/commits', { branch, before, limit: PAGE_SIZE }),
  log: (branch: string, before: string | null) =>
    getJson<Page<LogItem>>('/api/log', { branch, before, limit: PAGE_SIZE }),
  search: (q: string, page: number) => getJson<SearchResult>('/api/search', { q, page }),
};

/** A message fit to show for any failure. */
export function describeError(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
