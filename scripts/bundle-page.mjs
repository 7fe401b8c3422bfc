/**
 * Builds the `gctx serve` page into dist/page/: index.html, and under assets/ the page's
 * script and style with Mermaid as chunks loaded on first use. Run by `npm run build`, after
 * scripts/bundle.mjs. Nothing is fetched at run time from anywhere but the daemon: no CDN,
 * no web fonts.
 *
 * - The page's TypeScript is checked first, with its own tsconfig (DOM types, no Node types):
 *   esbuild only strips types, and `npm run typecheck` leaves the page out.
 * - File names carry content hashes (the daemon serves /assets/ as immutable), and index.html
 *   is rewritten to name them; it is the one file a browser must revalidate.
 * - The page draws only gitGraph and stateDiagram-v2. Mermaid loads each diagram type, layout
 *   engine and grammar through its own `import()`; every one the page cannot use resolves to
 *   one stub that throws, so the package does not ship ~4 MB of them. The build fails if a
 *   kept one is not found (a Mermaid upgrade renamed it).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const src = 'src/adapters/serve/page';
const outdir = `${root}dist/page`;

const tsc = spawnSync(
  process.execPath,
  [`${root}node_modules/typescript/bin/tsc`, '-p', `${root}${src}/tsconfig.json`],
  { stdio: 'inherit' },
);
if (tsc.status !== 0) throw new Error(`${src}: type errors (tsc -p ${src}/tsconfig.json)`);

/** The `import()`s of Mermaid and its parser the page needs: two diagrams, their grammar, their layout. */
const KEEP = ['gitGraphDiagram-', 'stateDiagram-v2-', 'gitGraph-', 'dagre-'];
const kept = new Set();
const onlyOurDiagrams = {
  name: 'only-our-diagrams',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind !== 'dynamic-import' || !/[/\\]node_modules[/\\](mermaid|@mermaid-js)[/\\]/.test(args.importer))
        return undefined;
      const name = basename(args.path);
      const keep = KEEP.find((k) => name.startsWith(k));
      if (keep) {
        kept.add(keep);
        return undefined;
      }
      return { path: 'unbundled', namespace: 'only-our-diagrams' };
    });
    b.onLoad({ filter: /.*/, namespace: 'only-our-diagrams' }, () => ({
      contents: "throw new Error('This diagram type is not part of the gctx page bundle.');",
      loader: 'js',
    }));
  },
};

rmSync(outdir, { recursive: true, force: true });
mkdirSync(`${outdir}/assets`, { recursive: true });

const result = await build({
  absWorkingDir: root,
  entryPoints: [`${src}/page.ts`, `${src}/page.css`],
  outdir: `${outdir}/assets`,
  entryNames: '[name]-[hash]',
  chunkNames: '[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'browser',
  target: ['chrome111', 'firefox115', 'safari16.4'],
  minify: true,
  legalComments: 'linked',
  define: { 'process.env.NODE_ENV': '"production"' },
  plugins: [onlyOurDiagrams],
  metafile: true,
  logLevel: 'warning',
});
const missing = KEEP.filter((k) => !kept.has(k));
if (missing.length > 0)
  throw new Error(`Mermaid no longer imports ${missing.join(', ')}: update KEEP in scripts/bundle-page.mjs`);

// index.html names the hashed files.
const outputs = Object.entries(result.metafile.outputs);
const entryFile = (name) => {
  const found = outputs.find(([, o]) => o.entryPoint === `${src}/${name}`);
  if (!found) throw new Error(`no output for ${name}`);
  return basename(found[0]);
};
const html = readFileSync(`${root}${src}/index.html`, 'utf8')
  .replace('/assets/page.js', `/assets/${entryFile('page.ts')}`)
  .replace('/assets/page.css', `/assets/${entryFile('page.css')}`);
if (html.includes('/assets/page.js') || html.includes('/assets/page.css'))
  throw new Error('index.html: asset names not rewritten');
writeFileSync(`${outdir}/index.html`, html);

// Sizes: what a first visit loads (the page, its static imports, then Mermaid and the two
// diagrams) and everything shipped.
const byFile = new Map(outputs.map(([file, o]) => [file, o]));
const closure = (start, follow) => {
  const seen = new Set();
  const visit = (file) => {
    if (seen.has(file) || !byFile.has(file)) return;
    seen.add(file);
    for (const imp of byFile.get(file).imports) if (follow(imp)) visit(imp.path);
  };
  for (const f of start) visit(f);
  return seen;
};
const pageJs = outputs.find(([, o]) => o.entryPoint === `${src}/page.ts`)[0];
const first = closure([pageJs], (imp) => imp.kind === 'import-statement');
const all = closure([pageJs], (imp) => imp.kind === 'import-statement' || imp.kind === 'dynamic-import');
const size = (files) => {
  let raw = 0;
  let gz = 0;
  for (const f of files) {
    const bytes = readFileSync(`${root}${f}`);
    raw += bytes.length;
    gz += gzipSync(bytes).length;
  }
  return `${(raw / 1024).toFixed(0)} KB (${(gz / 1024).toFixed(0)} KB gzipped)`;
};
const css = outputs.filter(([f]) => f.endsWith('.css')).map(([f]) => f);
console.log(
  `dist/page: page ${size([...first, ...css])}, with Mermaid ${size([...all, ...css])}; ${outputs.length + 1} files`,
);
