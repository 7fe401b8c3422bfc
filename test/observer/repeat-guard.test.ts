/**
 * The repeat guard measured on a generated suite: failed approaches drawn from templates (a tool,
 * package or flag tried for a goal, and a reason it failed), calls that retry one in varied
 * phrasings (installing the package, running the tool, passing the flag, editing the approach's
 * file with its words), and ordinary calls of the same projects — which share the goal's words
 * (migration, cache, build) but not the tool. At least 90% of repeats are flagged, at most 2% of
 * ordinary calls.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Approach, approachesOf, repeatOf, repeatText } from '../../src/observer/repeat-guard.js';

const TOOLS = [
  'pgroll',
  'esbuild',
  'knex',
  'prisma',
  'drizzle-orm',
  'memcached',
  'keydb',
  'swc',
  'rollup',
  'turborepo',
  'bullmq',
  'kysely',
  'sequelize',
  'typeorm',
  'pm2',
  'nodemon',
  'jest-circus',
  'happy-dom',
  'msw',
  'nock',
  'undici',
  'got',
  'axios',
  'pino',
  'winston',
  'fastify',
  'koa',
  'hono',
  'socket.io',
  'ws',
  'graphql-yoga',
  'apollo-server',
  'mikro-orm',
  'objection',
  'bull',
  'agenda',
  'node-cron',
  'sharp',
  'jimp',
  'puppeteer',
  'playwright',
  'cypress',
  'zx',
  'execa',
  'tsup',
  'parcel',
  'vite-plugin-checker',
  'ts-node',
  'tsx',
  'bun',
];
const GOALS = [
  'zero-downtime migrations',
  'faster builds',
  'the session cache',
  'background jobs',
  'end-to-end tests',
  'request logging',
  'image resizing',
  'the HTTP client',
  'schema migrations',
  'hot reload',
  'the job queue',
  'the ORM layer',
  'websocket updates',
  'mocking the API in tests',
  'the GraphQL server',
];
const BLOCKERS = [
  'PgBouncer transaction pooling',
  'our Node 18 runtime',
  'the Alpine image',
  'the monorepo layout',
  'ESM-only packages',
  'the corporate proxy',
  'Windows CI runners',
  'the read replica',
  'strict CSP headers',
  'the Lambda size limit',
];
const FAILURES = [
  'rejects its {tool} startup option',
  'crashes {tool} on start',
  'makes {tool} hang forever',
  'breaks {tool} source maps',
  'cannot load {tool} native bindings',
  'times out {tool} after 30 seconds',
];
const WHATS = [
  'Use {tool} for {goal}',
  'Try {tool} to speed up {goal}',
  'Replace the current setup of {goal} with {tool}',
  'Switch {goal} to {tool}',
  'Move {goal} onto {tool}',
  '{tool} for {goal}',
];
const BRANCHES = ['try-{tool}', '{tool}', 'spike/{tool}', 'exp-{tool}-{n}', 'use-{tool}', '{goal}', 'try-{goal}'];
const FLAGS = [
  '--experimental-vm-modules',
  '--no-isolate',
  '--legacy-peer-deps',
  '--unhandled-rejections=strict',
  '--max-semi-space-size',
  '--experimental-strip-types',
  '--pool=forks',
  '--single-threaded',
];

const fill = (t: string, v: Record<string, string>) => t.replace(/\{(\w+)\}/g, (_, k: string) => v[k] ?? '');
const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

interface Case {
  approach: Approach;
  tool: string;
  goal: string;
  flag: string | null;
  file: string;
}

const approach = fc
  .record({
    tool: fc.constantFrom(...TOOLS),
    goal: fc.constantFrom(...GOALS),
    blocker: fc.constantFrom(...BLOCKERS),
    failure: fc.constantFrom(...FAILURES),
    what: fc.constantFrom(...WHATS),
    branch: fc.constantFrom(...BRANCHES),
    n: fc.nat(9),
    flag: fc.option(fc.constantFrom(...FLAGS)),
    files: fc.boolean(),
  })
  .map((r): Case => {
    const v = { tool: r.tool, goal: r.goal, n: String(r.n) };
    const file = `src/${slug(r.goal).split('-').at(-1)}/${slug(r.tool)}.ts`;
    const why = `${r.blocker} ${fill(r.failure, v)}${r.flag ? `, and ${r.flag} did not help` : ''}`;
    return {
      approach: {
        what: fill(r.what, v),
        why,
        branch: fill(r.branch, { ...v, tool: slug(r.tool), goal: slug(r.goal) }),
        ...(r.files ? { files: [file] } : {}),
        abandoned: true,
      },
      tool: r.tool,
      goal: r.goal,
      flag: r.flag,
      file,
    };
  });

/** Calls that retry the approach, in the ways an agent would. */
const REPEATS: ((c: Case, pick: number) => { tool: string; input: unknown })[] = [
  (c) => ({ tool: 'Bash', input: { command: `npm install ${c.tool}` } }),
  (c, p) => ({ tool: 'Bash', input: { command: `pnpm add -D ${c.tool}@^${(p % 5) + 1}.0.0` } }),
  (c) => ({ tool: 'Bash', input: { command: `yarn add ${c.tool} && npm test` } }),
  (c) => ({ tool: 'Bash', input: { command: `npx ${c.tool} --help` } }),
  (c) => ({ tool: 'Bash', input: { command: `npx ${c.tool} init --config ./config/${slug(c.goal)}.json` } }),
  (c) => ({ tool: 'Bash', input: { command: `cd packages/api && npm i -S ${c.tool}` } }),
  (c) => ({
    tool: 'Edit',
    input: {
      file_path: 'package.json',
      edits: [{ old_string: '"dependencies": {', new_string: `"dependencies": {\n    "${c.tool}": "^2.1.0",` }],
    },
  }),
  (c) => ({
    tool: 'Write',
    input: {
      file_path: `src/lib/${slug(c.goal)}.ts`,
      content: `import x from '${c.tool}';\n\nexport const setup = () => x();\n`,
    },
  }),
  (c) => ({
    tool: 'Edit',
    input: {
      file_path: c.file,
      edits: [{ old_string: 'export', new_string: `// ${c.goal} through ${c.tool}\nexport` }],
    },
  }),
  (c) => ({
    tool: 'Bash',
    input: { command: c.flag ? `node ${c.flag} scripts/run.js` : `node_modules/.bin/${c.tool} run` },
  }),
];

/** Calls of the same projects that are not the approach: same goals and files of the kind, other tools. */
const ORDINARY: ((c: Case, other: string, pick: number) => { tool: string; input: unknown })[] = [
  () => ({ tool: 'Bash', input: { command: 'npm test' } }),
  () => ({ tool: 'Bash', input: { command: 'git status && git diff --stat' } }),
  (c) => ({ tool: 'Bash', input: { command: `grep -rn "${c.goal.split(' ').at(-1)}" src | head -20` } }),
  (c) => ({ tool: 'Read', input: { file_path: `src/${slug(c.goal)}/index.ts` } }),
  (_c, o) => ({ tool: 'Bash', input: { command: `npm install ${o}` } }),
  (_c, o, p) => ({
    tool: 'Edit',
    input: {
      file_path: `src/handlers/h${p % 40}.ts`,
      edits: [{ old_string: 'return null;', new_string: `return await ${slug(o).replace(/-/g, '')}.get(key);` }],
    },
  }),
  (c) => ({
    tool: 'Write',
    input: {
      file_path: `docs/${slug(c.goal)}.md`,
      content: `# Notes on ${c.goal}\n\nThe current setup keeps working; measure before changing.\n`,
    },
  }),
  (_c, _o, p) => ({ tool: 'Bash', input: { command: `npx vitest run test/unit/case${p % 90}.test.ts` } }),
  (c) => ({ tool: 'Bash', input: { command: `ls -la src/${slug(c.goal).split('-')[0]} && cat package.json` } }),
  (_c, _o, p) => ({
    tool: 'Edit',
    input: {
      file_path: `src/server/routes/r${p % 30}.ts`,
      edits: [{ old_string: 'const limit = 10;', new_string: 'const limit = 20;' }],
    },
  }),
  () => ({ tool: 'Bash', input: { command: 'npm run build && npm run lint -- --fix' } }),
  (c) => ({ tool: 'Glob', input: { pattern: `**/*${slug(c.goal).split('-').at(-1)}*` } }),
];

const OTHERS = [
  'lodash',
  'date-fns',
  'zod',
  'dotenv',
  'uuid',
  'chalk',
  'commander',
  'yaml',
  'semver',
  'p-limit',
  'nanoid',
  'ms',
  'debug',
  'cors',
  'helmet',
  'express-rate-limit',
];

describe('repeat guard', () => {
  it('flags at least 90% of plain repeats of a failed approach and at most 2% of ordinary calls', () => {
    let repeats = 0;
    let flagged = 0;
    let ordinary = 0;
    let falseFlags = 0;
    const misses: string[] = [];
    const wrong: string[] = [];
    fc.assert(
      fc.property(fc.array(approach, { minLength: 1, maxLength: 6 }), fc.nat(), (cases, seed) => {
        const approaches = cases.map((c) => c.approach);
        const tools = new Set(cases.map((c) => c.tool));
        cases.forEach((c, i) => {
          const call = REPEATS[(seed + i) % REPEATS.length]!(c, seed);
          repeats++;
          if (repeatOf(call, approaches)) flagged++;
          else if (misses.length < 5) misses.push(`${JSON.stringify(call)} ~ ${JSON.stringify(c.approach)}`);
        });
        for (let k = 0; k < 4; k++) {
          const c = cases[(seed + k) % cases.length]!;
          const other = OTHERS[(seed + k) % OTHERS.length]!;
          if (tools.has(other)) continue;
          const call = ORDINARY[(seed + k * 7) % ORDINARY.length]!(c, other, seed + k);
          ordinary++;
          if (repeatOf(call, approaches)) {
            falseFlags++;
            if (wrong.length < 5) wrong.push(`${JSON.stringify(call)} ~ ${JSON.stringify(repeatOf(call, approaches))}`);
          }
        }
      }),
      { numRuns: 1500, seed: 29 },
    );
    const caught = flagged / repeats;
    const falseRate = falseFlags / ordinary;
    if (process.env.GCC_RATES) console.log(`repeats ${flagged}/${repeats}, ordinary ${falseFlags}/${ordinary}`);
    expect(caught, `missed, e.g.:\n${misses.join('\n')}`).toBeGreaterThanOrEqual(0.9);
    expect(falseRate, `flagged, e.g.:\n${wrong.join('\n')}`).toBeLessThanOrEqual(0.02);
  });

  it('names the failed approach and its reason; a branch merged elsewhere is no failed approach', () => {
    const state = {
      failed: [
        {
          branch: 'try-pgroll',
          purpose: 'Use pgroll for zero-downtime migrations',
          reason: "PgBouncer transaction pooling rejects pgroll's search_path option",
        },
        {
          branch: 'swc',
          purpose: 'swc for faster builds',
          reason: 'breaks decorators',
          merged: { into: 'main', title: 'x' },
        },
      ],
    };
    const a = repeatOf(
      { tool: 'Bash', input: { command: 'npm install pgroll && npx pgroll start' } },
      approachesOf(state),
    );
    expect(a && repeatText(a)).toContain(
      "try-pgroll was abandoned: PgBouncer transaction pooling rejects pgroll's search_path option",
    );
    expect(repeatOf({ tool: 'Bash', input: { command: 'npx swc src -d dist' } }, approachesOf(state))).toBeNull();
    expect(repeatOf({ tool: 'Bash', input: { command: 'npm test' } }, approachesOf(state))).toBeNull();
    const ruled = repeatOf(
      { tool: 'Bash', input: { command: 'node --experimental-vm-modules x.js' } },
      approachesOf({
        failed: [],
        failedApproaches: [
          { what: 'run jest with --experimental-vm-modules', why: 'ESM mocks do not work', branch: 'main' },
        ],
      }),
    );
    expect(ruled && repeatText(ruled)).toContain('was ruled out on main: ESM mocks do not work');
  });
});
