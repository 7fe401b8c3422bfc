/** The package version, reported by `gctx --version` and the MCP handshake. */
import { readFileSync } from 'node:fs';

/** Set by scripts/bundle.mjs in the `gctx` executable, whose chunks are not where ../package.json is. */
declare const GCTX_VERSION: string | undefined;

function read(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version?: string;
    };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

export const VERSION = typeof GCTX_VERSION === 'string' ? GCTX_VERSION : read();
