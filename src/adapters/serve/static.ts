/**
 * The built page (dist/page/, scripts/bundle-page.mjs): index.html, revalidated on every load
 * so a new build shows at once, and /assets/*, whose names carry content hashes and so never
 * change: cached for good. Only files that are there are served; no path leaves the folder.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { extname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BASE_HEADERS, PAGE_CSP } from './security.js';

/** Set by scripts/bundle.mjs in the `gctx` executable, which sits in dist/bin next to dist/page. */
declare const GCTX_BUNDLED: boolean | undefined;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/**
 * Where the page was built: next to the executable for the bundle (dist/bin → dist/page), in
 * the package for the library (dist/adapters/serve → dist/page), and, for the sources run
 * directly (tests), the build in the checkout.
 */
export function pageDir(): string {
  const candidates = typeof GCTX_BUNDLED === 'boolean' ? ['../page/'] : ['../../page/', '../../../dist/page/'];
  const dirs = candidates.map((c) => fileURLToPath(new URL(c, import.meta.url)));
  return dirs.find((d) => existsSync(join(d, 'index.html'))) ?? dirs[0]!;
}

export class PageFiles {
  private readonly cache = new Map<string, Buffer>();

  constructor(readonly dir: string) {}

  get built(): boolean {
    return existsSync(join(this.dir, 'index.html'));
  }

  /** `/` or `/assets/<file>`; false when there is no such file (the caller answers 404). */
  serve(pathname: string, res: ServerResponse): boolean {
    const index = pathname === '/' || pathname === '/index.html';
    if (!index && !pathname.startsWith('/assets/')) return false;
    let name: string;
    try {
      name = index ? 'index.html' : decodeURIComponent(pathname.slice(1));
    } catch {
      return false;
    }
    if (name.includes('\u0000')) return false;
    const file = resolve(this.dir, name);
    const rel = relative(this.dir, file);
    if (rel.startsWith('..') || rel.split(sep).includes('..')) return false;
    const body = this.read(file, index);
    if (!body) return false;
    res.writeHead(200, {
      ...BASE_HEADERS,
      'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
      'Content-Length': body.length,
      'Cache-Control': index ? 'no-cache' : 'public, max-age=31536000, immutable',
      ...(index ? { 'Content-Security-Policy': PAGE_CSP } : {}),
    });
    res.end(body);
    return true;
  }

  private read(file: string, index: boolean): Buffer | null {
    // index.html is read each time (a rebuild changes it); hashed assets never change.
    const hit = index ? undefined : this.cache.get(file);
    if (hit) return hit;
    try {
      const body = readFileSync(file);
      if (!index) this.cache.set(file, body);
      return body;
    } catch {
      return null;
    }
  }
}
