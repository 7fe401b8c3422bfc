/**
 * The built page (dist/page/, scripts/bundle-page.mjs): index.html, revalidated on every load
 * so a new build shows at once, and /assets/*, whose names carry content hashes and so never
 * change: cached for good. Only files that are there are served; no path leaves the folder.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BASE_HEADERS, PAGE_CSP } from './security.js';

/** Set by scripts/bundle.mjs in the `gctx` executable, which sits in dist/bin next to dist/page. */
declare const GCTX_BUNDLED: boolean | undefined;

const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };
/** An asset's name as the build writes it: no folder, nothing but what a hashed name holds. */
const ASSET = /^\/assets\/[\w.-]+$/;

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
  /** Hashed assets never change: read once. */
  private readonly cache = new Map<string, Buffer>();
  readonly built: boolean;

  constructor(readonly dir: string) {
    this.built = existsSync(join(dir, 'index.html'));
  }

  /** `/` or `/assets/<file>`; false when there is no such file (the caller answers 404). */
  serve(pathname: string, res: ServerResponse): boolean {
    const index = pathname === '/' || pathname === '/index.html';
    if (!index && !ASSET.test(pathname)) return false;
    const file = join(this.dir, index ? 'index.html' : pathname.slice(1));
    let body = this.cache.get(file);
    try {
      // index.html is read each time: a rebuild changes it.
      body ??= readFileSync(file);
    } catch {
      return false;
    }
    if (!index) this.cache.set(file, body);
    res.writeHead(200, {
      ...BASE_HEADERS,
      'Content-Type': `${TYPES[extname(file)] ?? 'text/plain'}; charset=utf-8`,
      'Content-Length': body.length,
      'Cache-Control': index ? 'no-cache' : 'public, max-age=31536000, immutable',
      ...(index ? { 'Content-Security-Policy': PAGE_CSP } : {}),
    });
    res.end(body);
    return true;
  }
}
