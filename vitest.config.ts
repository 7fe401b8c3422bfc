import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most test time is spent waiting on the processes the tests start (gctx, git, Pi, a
    // browser): twice as many test files as cores keep the cores busy.
    maxWorkers: Math.min(8, 2 * availableParallelism()),
  },
});
