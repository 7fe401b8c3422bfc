/**
 * Builds the `gctx` executable (package.json `bin`): dist/bin/, an esbuild bundle of the CLI
 * as tsc compiled it (dist/adapters/cli/gctx.js). Run by `npm run build`, after tsc. The
 * library (dist/index.js, dist/adapters/pi/) stays tsc's output; only the executable is bundled.
 *
 * Why: a host starts `gctx hook` as a fresh process for every tool call and `gctx mcp` once per
 * session. Unbundled, those processes spent much of their start-up finding, reading and linking
 * separate modules: ~30 for a hook that decides nothing, ~70 once the engine is needed, ~400
 * for the MCP SDK with zod and ajv.
 *
 * - Code splitting keeps every `import()` in the sources a chunk of its own, so a hook still
 *   loads the engine only when its event needs it, and never the MCP SDK.
 * - yaml and diff are `require`d synchronously on first use (src/lazy-deps.ts): each is bundled
 *   into a CommonJS file of its own (dist/bin/yaml.cjs, diff.cjs) rather than left as dozens of
 *   files in node_modules.
 */
import { readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = `${root}dist/bin`;
const { version } = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));
const common = { absWorkingDir: root, bundle: true, platform: 'node', target: 'node22', legalComments: 'none', logLevel: 'warning', metafile: true };

// Chunk names carry content hashes: stale chunks from an earlier build would pile up.
rmSync(outdir, { recursive: true, force: true });

const results = [
  await build({
    ...common,
    entryPoints: { gctx: 'dist/adapters/cli/gctx.js' },
    outdir,
    splitting: true,
    // A chunk is named after the module an `import()` loads (server-…, memory-…); the tests
    // check by name which ones a process loads.
    chunkNames: '[name]-[hash]',
    format: 'esm',
    // Read by src/version.ts, src/self.ts and src/lazy-deps.ts, which otherwise find
    // package.json, the executable and their dependencies relative to their own file.
    define: { GCTX_VERSION: JSON.stringify(version), GCTX_BUNDLED: 'true' },
  }),
  ...[
    ['yaml', "module.exports = require('yaml');", root],
    ['diff', "module.exports = require('diff');", root],
  ].map(([name, contents, resolveDir]) => build({ ...common, stdin: { contents, resolveDir, loader: 'js' }, outfile: `${outdir}/${name}.cjs`, format: 'cjs' })),
];

// A bundled CommonJS module requiring something left outside (a builtin) compiles to a
// `__require` that throws in an ES module at run time; refuse to ship that.
for (const r of await Promise.all(results)) {
  for (const file of Object.keys(r.metafile.outputs)) {
    if (file.endsWith('.js') && /\b__require\(\s*["'`]/.test(readFileSync(`${root}${file}`, 'utf8'))) throw new Error(`${file}: a bundled CommonJS module requires a module left outside the bundle`);
  }
}
