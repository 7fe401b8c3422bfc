/**
 * This package's `gctx` executable on disk, for what hands it to another process: git's merge
 * driver and hooks, Pi's MCP server. The same source runs from two places: tsc's output
 * (dist/runtime/self.js, the library) and the bundle in dist/bin/ (scripts/bundle.mjs), whose chunks
 * sit next to the executable and where the bundler defines GCTX_BUNDLED.
 */
import { fileURLToPath } from 'node:url';

declare const GCTX_BUNDLED: boolean | undefined;

export function gctxBin(): string {
  return fileURLToPath(new URL(typeof GCTX_BUNDLED === 'boolean' ? './gctx.js' : '../bin/gctx.js', import.meta.url));
}
