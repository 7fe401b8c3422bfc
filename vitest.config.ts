import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // A timeout only stops a hang: on a loaded machine every test is slower, none is wrong.
    testTimeout: process.env.GCC_LONG === '1' ? 3_600_000 : 600_000,
    hookTimeout: 600_000,
    pool: 'forks',
    // Most test time is spent waiting on the processes the tests start (gctx, git, Pi, a
    // browser): twice as many test files as cores keep the cores busy.
    maxWorkers: Math.min(8, 2 * availableParallelism()),
  },
});
