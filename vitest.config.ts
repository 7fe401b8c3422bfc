import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Files that change what every module of their process sees (a module mock, process.env and
 * PATH, the Pi host's globals): each runs in a process of its own.
 */
const ISOLATED = [
  'test/adapters/pi/**/*.test.ts',
  'test/observer/gcc-write-guard.test.ts',
  'test/engine/git-files-calls.test.ts',
  'test/context/stale.test.ts',
];

export default defineConfig({
  test: {
    // A timeout only stops a hang: on a loaded machine every test is slower, none is wrong.
    testTimeout: process.env.GCC_LONG === '1' ? 3_600_000 : 600_000,
    hookTimeout: 600_000,
    pool: 'forks',
    // Most test time is spent waiting on the processes the tests start (gctx, git, Pi, a
    // browser): twice as many test files as cores keep the cores busy.
    maxWorkers: Math.min(8, 2 * availableParallelism()),
    projects: [
      {
        extends: true,
        // Loading the sources again for every file cost about as much as the unit tests
        // themselves: the other files share their worker's modules.
        test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: ISOLATED, isolate: false },
      },
      { extends: true, test: { name: 'isolated', include: ISOLATED } },
    ],
  },
});
