/**
 * Builds the `gctx` executable (package.json `bin`): dist/bin/, an esbuild bundle of the CLI
 * as tsc compiled it. Run by `npm run build`, after tsc. The library (dist/index.js,
 * dist/adapters/pi/) stays tsc's output; only the executable is bundled.
 *
 * Why: a host starts `gctx hook` as a fresh process for every tool call and `gctx mcp` once per
 * session. Unbundled, those processes spent much of their start-up finding, reading and linking
 * separate modules: ~30 for a hook that decides nothing, ~70 once the engine is needed, ~400
 * for the MCP SDK with zod and ajv. Every file still costs a process about 0.7 ms, so:
 *
 * - gctx.js is the bootstrap alone (src/adapters/cli/gctx.ts). Each of its imports is a front
 *   door built on its own: hook-main.js (every hook), mcp-main.js (`gctx mcp`: the SDK and the
 *   engine), main.js (the command table, everything else). Nothing is shared between doors, so
 *   no module becomes a chunk just because two doors use it.
 * - Within a door, each `import()` in the sources stays a chunk loaded on demand: a hook loads
 *   the engine (memory-….js) only when its event needs the memory.
 * - esbuild puts the modules reached from the same set of entries (a door, each `import()`) in
 *   one chunk. The modules loaded on demand that reach part of the engine each import all of it
 *   in the bundle (`engineFirst`), so the engine is one chunk rather than a dozen split along
 *   what each of them uses: those the engine loads once it is loaded itself (search, the
 *   decider, the command redactor), those of commands that open the memory first (the gitGraph
 *   of `gctx graph`, the git hooks `gctx init` installs); and, loading the engine with them,
 *   the git merge driver of the logs, the machines' diagrams and the live inspector (`gctx
 *   viz`, GCC_INSPECT: tools for looking at the machines).
 * - yaml, diff, xstate and shell-quote are `require`d synchronously on first use
 *   (src/runtime/lazy-deps.ts): each is bundled into a CommonJS file of its own (yaml.cjs,
 *   diff.cjs, xstate.cjs, shell-quote.cjs) rather than dozens in node_modules, and no ES chunk
 *   needs esbuild's CommonJS helpers (a chunk of their own, one more file for every hook). xstate is only
 *   ever reached that way, so a process holds one copy of it.
 * - ajv, which the MCP SDK imports for one feature gctx never uses (checking elicitation
 *   answers), goes the same way: its import in the SDK becomes a stub that loads ajv.cjs when
 *   an Ajv is first constructed (src/adapters/mcp/server.ts defers that too).
 * - zod is imported as a namespace whose members are used by name (src/operations/schema.ts),
 *   so its unused parts (locales, about 360 KB) are left out. The command line loads it
 *   (schema-….js) only to check the arguments of a call that gives some.
 * - No module of the ES bundle imports a Node builtin statically (`builtins`): such an import
 *   makes Node build the builtin's ES module facade, which reads every export once, getters
 *   included, and fs's getters (`promises`, the stream classes) load fs/promises, Node's file
 *   streams and readline's internals, which gctx never uses. Each module's imports of a
 *   builtin instead become a stand-in of that module's own, taking the builtin with
 *   `process.getBuiltinModule` and exporting the names the module uses; reached from that
 *   module alone, it lands in the module's chunk (a stand-in shared by several modules would
 *   be a chunk of its own: one more file for every process). An `import()` of a builtin stays.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = `${root}dist/bin`;
const { version } = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));
const DOORS = ['hook-main', 'mcp-main', 'main'];

// The Stately inspector is an optional peer, installed by hand for live inspection: resolved
// where the package is installed, at run time, never bundled.
const common = {
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  target: 'node22',
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
  external: ['@statelyai/inspect'],
};
const esm = {
  outdir,
  format: 'esm',
  // A chunk is named after the module an `import()` loads (memory-…); the tests check by
  // name which files a process loads.
  chunkNames: '[name]-[hash]',
  // Read by src/runtime/version.ts, src/runtime/self.ts and src/runtime/lazy-deps.ts, which otherwise find
  // package.json, the executable and their dependencies relative to their own file.
  define: { GCTX_VERSION: JSON.stringify(version), GCTX_BUNDLED: 'true' },
  // An optional peer dependency (live inspection, src/diagrams/inspect.ts): loaded from the
  // user's node_modules when installed, and said to be missing when not — never bundled.
  external: ['@statelyai/inspect'],
};

/**
 * Modules loaded on demand that reach part of the engine (src/engine/memory.ts); see the header. In the hook's door
 * the slim path (adapters/hook/slim-record) records a call with the decider and the command redactor but without the
 * engine: there they stay apart from it.
 */
const AFTER_ENGINE =
  /\/dist\/(engine\/search|engine\/redact-command|decider\/decide|adapters\/hook\/slim-record|diagrams\/gitgraph|engine\/git\/install|engine\/git\/merge-driver|diagrams\/cli|diagrams\/inspect)\.js$/;
const HOOK_AFTER_ENGINE =
  /\/dist\/(engine\/search|diagrams\/gitgraph|engine\/git\/install|engine\/git\/merge-driver|diagrams\/cli|diagrams\/inspect)\.js$/;
const engineFirst = (filter) => ({
  name: 'engine-first',
  setup(b) {
    b.onLoad({ filter }, (args) => ({
      contents: `import ${JSON.stringify(`${root}dist/engine/memory.js`)};\n${readFileSync(args.path, 'utf8')}`,
      loader: 'js',
      resolveDir: dirname(args.path),
    }));
  },
});

/**
 * The hook door's modules loaded on demand. Each imports the door first, so that what the door
 * shares with any of them is one chunk; and those that reach what the slim path
 * (adapters/hook/slim-record) loads import it first too, so that the store, the codec, the decider
 * and the redactors a logged call needs are one chunk more, rather than a dozen split along which
 * of them uses what: every file costs a hook process its load.
 */
const HOOK_ON_DEMAND =
  /\/dist\/(decider\/decide|engine\/redact-command|engine\/search|adapters\/hook\/slim-record|engine\/memory|observer\/gcc-write-guard|observer\/redact|diagrams\/inspect)\.js$/;
const HOOK_AFTER_SLIM = /\/dist\/(engine\/memory|observer\/redact|decider\/decide|engine\/redact-command)\.js$/;

/** Modules matching a rule's filter import its module first (engineFirst's, for several rules). */
const importsFirst = (rules) => ({
  name: 'imports-first',
  setup(b) {
    const filter = new RegExp(rules.map(([re]) => re.source).join('|'));
    b.onLoad({ filter }, (args) => {
      const first = rules
        .filter(([re]) => re.test(args.path))
        .map(([, m]) => `import ${JSON.stringify(`${root}${m}`)};\n`);
      return {
        contents: first.join('') + readFileSync(args.path, 'utf8'),
        loader: 'js',
        resolveDir: dirname(args.path),
      };
    });
  },
});
const hookFirsts = importsFirst([
  [HOOK_ON_DEMAND, 'dist/adapters/cli/hook-main.js'],
  [HOOK_AFTER_SLIM, 'dist/adapters/hook/slim-record.js'],
  [HOOK_AFTER_ENGINE, 'dist/engine/memory.js'],
]);

/**
 * The `main` door's modules loaded on demand, each after main.js: each imports it in the
 * bundle, so main's own modules are one chunk too rather than split along what each of
 * them uses (the engine's modules import it through memory.js).
 */
const AFTER_MAIN =
  /\/dist\/(engine\/memory|operations\/schema|adapters\/hook\/install|adapters\/serve\/state-file|adapters\/serve\/control|adapters\/cli\/hook-main|observer\/redact|observer\/gcc-write-guard)\.js$/;
/**
 * Small modules that both the engine and other modules loaded on demand in the `main` door use
 * (git's probes: the engine and the serve token; the write guard's words: the fold and the
 * guard): main.js holds them, or each would be a chunk of its own, one file more for every
 * command that opens the memory.
 */
const MAIN_HOLDS = ['dist/events/guard.js', 'dist/store/git-probe.js'];
const mainHolds = {
  name: 'main-holds',
  setup(b) {
    b.onLoad({ filter: /\/dist\/adapters\/cli\/main\.js$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      // After a `#!` line, which must stay first.
      const at = text.startsWith('#!') ? text.indexOf('\n') + 1 : 0;
      const holds = MAIN_HOLDS.map((m) => `import ${JSON.stringify(`${root}${m}`)};\n`).join('');
      return { contents: text.slice(0, at) + holds + text.slice(at), loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};
const mainFirst = {
  name: 'main-first',
  setup(b) {
    b.onLoad({ filter: AFTER_MAIN }, (args) => ({
      contents: `import ${JSON.stringify(`${root}dist/adapters/cli/main.js`)};\n${readFileSync(args.path, 'utf8')}`,
      loader: 'js',
      resolveDir: dirname(args.path),
    }));
  },
};

/** The bootstrap's imports of the doors stay imports: the doors sit next to it in dist/bin. */
const doorsOutside = {
  name: 'doors-outside',
  setup(b) {
    b.onResolve({ filter: new RegExp(`^\\./(${DOORS.join('|')})\\.js$`) }, (args) => ({
      path: args.path,
      external: true,
    }));
  },
};

/** Where the MCP SDK's own `ajv` import resolves, so the lazily loaded copy is the one it asked for. */
const sdkDir = dirname(fileURLToPath(import.meta.resolve('@modelcontextprotocol/sdk/validation/ajv')));
const LAZY_AJV = {
  ajv: 'export default function Ajv(options) { return new (load().Ajv)(options); }',
  'ajv-formats': 'export default function addFormats(ajv, options) { return load().addFormats(ajv, options); }',
};

/** The SDK's `import Ajv from 'ajv'` / `addFormats from 'ajv-formats'`, as stubs over ajv.cjs. */
const lazyAjv = {
  name: 'lazy-ajv',
  setup(b) {
    b.onResolve({ filter: /^ajv(-formats)?$/ }, (args) =>
      args.importer.includes('@modelcontextprotocol') ? { path: args.path, namespace: 'lazy-ajv' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'lazy-ajv' }, (args) => ({
      contents: `const load = () => process.getBuiltinModule('node:module').createRequire(import.meta.url)('./ajv.cjs');\n${LAZY_AJV[args.path]}\n`,
      loader: 'js',
    }));
  },
};

/**
 * The names `source` takes from `specifier` by its static imports and re-exports; undefined
 * when it takes all of them. What does not read as an import clause (words in a comment) is
 * passed over: a name missed that way fails the build, as one the stand-in does not export.
 */
function importedNames(source, specifier) {
  const names = new Set();
  const re = new RegExp(
    `\\b(import|export)\\s*((?:(?!\\b(?:import|export)\\b)[^'";])*?)\\s*from\\s*(['"])${specifier.replace(/[/]/g, '\\/')}\\3`,
    'g',
  );
  for (const [, keyword, clause] of source.matchAll(re)) {
    if (keyword === 'export' && clause === '*') return undefined;
    const m = /^(?:([\w$]+)\s*(?:,\s*|$))?(?:\*\s*as\s+([\w$]+)|\{([^}]*)\})?$/.exec(clause);
    if (!m) continue;
    const [, , namespace, list] = m;
    if (namespace) {
      // Only `ns.name` uses are read; any other use of the namespace takes every plain export.
      const uses = source.match(new RegExp(`(?<![\\w$.])${namespace}(?![\\w$])`, 'g')).length - 1;
      const members = [...source.matchAll(new RegExp(`(?<![\\w$.])${namespace}\\s*\\??\\.\\s*([\\w$]+)`, 'g'))].map(
        (u) => u[1],
      );
      if (members.length !== uses) return undefined;
      for (const n of members) names.add(n);
    }
    for (const item of list?.split(',') ?? []) {
      const name = item.trim().split(/\s+as\s+/)[0];
      if (name && !name.startsWith('type ')) names.add(name);
    }
  }
  return names;
}

/**
 * A module's static imports of a Node builtin, as a stand-in of its own (one per importing
 * module, so that it lands in that module's chunk; see the header). A name imported that
 * the builtin lacks fails the build rather than being undefined at run time.
 */
const builtins = {
  name: 'builtins',
  setup(b) {
    b.onResolve({ filter: /^(node:)?[a-z_0-9]+(\/[a-z_0-9]+)*$/ }, (args) => {
      if (args.kind !== 'import-statement' || args.namespace !== 'file' || !isBuiltin(args.path)) return undefined;
      const names = importedNames(readFileSync(args.importer, 'utf8'), args.path);
      const id = args.path.startsWith('node:') ? args.path : `node:${args.path}`;
      return {
        path: `${id}?importer=${relative(root, args.importer)}`,
        namespace: 'builtin',
        pluginData: { id, names },
      };
    });
    b.onLoad({ filter: /.*/, namespace: 'builtin' }, ({ pluginData: { id, names } }) => {
      const mod = process.getBuiltinModule(id);
      // All of it: every export but the getters, which the facade would have read.
      const list = names
        ? [...names].filter((n) => n !== 'default')
        : Object.keys(mod).filter((k) => !Object.getOwnPropertyDescriptor(mod, k).get);
      for (const n of list) if (!(n in mod)) throw new Error(`${id} has no export ${n}`);
      return {
        contents: [
          `const m = process.getBuiltinModule(${JSON.stringify(id)});`,
          'export default m;',
          ...list.map((n) => `export const ${n} = m.${n};`),
        ].join('\n'),
        loader: 'js',
      };
    });
  },
};

/**
 * secretlint's patterns as data: src/observer/redact-provider.ts reads them from the preset
 * when loaded, which costs a hook process more than the redaction itself; the executable gets
 * what it reads now, from the installed package.
 */
const { extractProviderPatterns } = await import(`${root}dist/observer/redact-provider.js`);
const providerData = {
  name: 'provider-data',
  setup(b) {
    b.onLoad({ filter: /\/dist\/observer\/redact-provider\.js$/ }, () => ({
      contents: `export const PROVIDER_PATTERNS = ${JSON.stringify(extractProviderPatterns())};\n`,
      loader: 'js',
    }));
  },
};

// Chunk names carry content hashes: stale chunks from an earlier build would pile up.
rmSync(outdir, { recursive: true, force: true });

// One build at a time, each file checked: two doors may emit the same chunk, which must then
// be the same bytes (a chunk's name hashes its content).
const written = new Map();
async function emit(options) {
  const r = await build(options);
  for (const file of Object.keys(r.metafile.outputs)) {
    const text = readFileSync(`${root}${file}`, 'utf8');
    if (written.has(file) && written.get(file) !== text)
      throw new Error(`${file} was emitted twice with different contents`);
    written.set(file, text);
  }
}

await emit({
  ...common,
  ...esm,
  entryPoints: { gctx: 'dist/adapters/cli/gctx.js' },
  plugins: [doorsOutside, builtins],
});
for (const door of DOORS) {
  const plugins = [
    lazyAjv,
    builtins,
    providerData,
    ...(door === 'main' ? [mainFirst, mainHolds] : []),
    door === 'hook-main' ? hookFirsts : engineFirst(AFTER_ENGINE),
  ];
  await emit({ ...common, ...esm, entryPoints: { [door]: `dist/adapters/cli/${door}.js` }, splitting: true, plugins });
}
for (const [name, contents, resolveDir] of [
  ['yaml', "module.exports = require('yaml');", root],
  ['diff', "module.exports = require('diff');", root],
  ['xstate', "module.exports = require('xstate');", root],
  ['shell-quote', "module.exports = require('shell-quote/parse.js');", root],
  ['ajv', "module.exports = { Ajv: require('ajv'), addFormats: require('ajv-formats') };", sdkDir],
]) {
  await emit({
    ...common,
    stdin: { contents, resolveDir, loader: 'js' },
    outfile: `${outdir}/${name}.cjs`,
    format: 'cjs',
  });
}

// Node looks up the package scope of every module it loads; one next to them ends each walk
// at the first folder, and is read once.
writeFileSync(`${outdir}/package.json`, '{ "type": "module" }\n');

// A bundled CommonJS module requiring something left outside (a builtin) compiles to a
// `__require` that throws in an ES module at run time; refuse to ship that.
for (const [file, text] of written) {
  if (file.endsWith('.js') && /\b__require\(\s*["'`]/.test(text))
    throw new Error(`${file}: a bundled CommonJS module requires a module left outside the bundle`);
}

// The preset's patterns are data in the executable: one that loads the preset is refused.
for (const [file, text] of written) {
  if (/["']@secretlint\//.test(text))
    throw new Error(`${file}: loads secretlint's preset instead of its patterns as data`);
}

// A builtin imported statically builds its ES module facade (see the header): refuse that too.
for (const [file, text] of written) {
  if (file.endsWith('.js') && /\bfrom\s*"node:/.test(text))
    throw new Error(`${file}: imports a Node builtin statically`);
}
