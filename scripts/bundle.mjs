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
 * - ajv, which the MCP SDK imports for one feature gctx never uses (checking elicitation
 *   answers), goes the same way: its import in the SDK becomes a stub that loads dist/bin/ajv.cjs
 *   when an Ajv is first constructed (src/adapters/mcp/server.ts defers that too).
 * - zod is imported as a namespace in src/adapters/mcp/, so the unused parts (locales, about
 *   360 KB) are left out.
 */
import { readFileSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = `${root}dist/bin`;
const { version } = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));
const common = { absWorkingDir: root, bundle: true, platform: 'node', target: 'node22', legalComments: 'none', logLevel: 'warning', metafile: true };

/** Where the MCP SDK's own `ajv` import resolves, so the lazily loaded copy is the one it asked for. */
const sdkDir = dirname(fileURLToPath(import.meta.resolve('@modelcontextprotocol/sdk/validation/ajv')));

const LAZY_AJV = {
  ajv: 'export default function Ajv(options) { return new (load().Ajv)(options); }',
  'ajv-formats': 'export default function addFormats(ajv, options) { return load().addFormats(ajv, options); }',
};

/** The SDK's `import Ajv from 'ajv'` / `addFormats from 'ajv-formats'`, as stubs over dist/bin/ajv.cjs. */
const lazyAjv = {
  name: 'lazy-ajv',
  setup(b) {
    b.onResolve({ filter: /^ajv(-formats)?$/ }, (args) => (args.importer.includes('@modelcontextprotocol') ? { path: args.path, namespace: 'lazy-ajv' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'lazy-ajv' }, (args) => ({
      contents: `import { createRequire } from 'node:module';\nconst load = () => createRequire(import.meta.url)('./ajv.cjs');\n${LAZY_AJV[args.path]}\n`,
      loader: 'js',
    }));
  },
};

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
    plugins: [lazyAjv],
  }),
  ...[
    ['yaml', "module.exports = require('yaml');", root],
    ['diff', "module.exports = require('diff');", root],
    ['ajv', "module.exports = { Ajv: require('ajv'), addFormats: require('ajv-formats') };", sdkDir],
  ].map(([name, contents, resolveDir]) => build({ ...common, stdin: { contents, resolveDir, loader: 'js' }, outfile: `${outdir}/${name}.cjs`, format: 'cjs' })),
];

// A bundled CommonJS module requiring something left outside (a builtin) compiles to a
// `__require` that throws in an ES module at run time; refuse to ship that.
for (const r of await Promise.all(results)) {
  for (const file of Object.keys(r.metafile.outputs)) {
    if (file.endsWith('.js') && /\b__require\(\s*["'`]/.test(readFileSync(`${root}${file}`, 'utf8'))) throw new Error(`${file}: a bundled CommonJS module requires a module left outside the bundle`);
  }
}
