import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'sdk/js/test/**/*.test.ts'],
    globalSetup: ['test/support/globalSetup.ts'],
    pool: 'forks',
    // Vitest's own default in `run` mode is one worker fewer than the cores: a single worker on a
    // 2-core machine, which ran the files one at a time while a core sat idle (most files wait on
    // child processes, Chromium or PostgreSQL). One worker per core keeps both busy.
    maxWorkers: availableParallelism(),
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
