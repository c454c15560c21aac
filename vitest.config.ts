import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { HOOK_MS, STEP_MS, TEST_MS } from './test/support/timeLimits.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'sdk/js/test/**/*.test.ts'],
    globalSetup: ['test/support/globalSetup.ts'],
    pool: 'forks',
    // Vitest's own default in `run` mode is one worker fewer than the cores: a single worker on a
    // 2-core machine, which ran the files one at a time while a core sat idle (most files wait on
    // child processes, Chromium or PostgreSQL). One worker per core keeps both busy.
    maxWorkers: availableParallelism(),
    // Backstops, not guesses at the machine's speed: every wait has its own bound and says what it
    // waited for (test/support/timeLimits.ts). expect.poll's own default (1 s) would be a guess.
    testTimeout: TEST_MS,
    hookTimeout: HOOK_MS,
    expect: { poll: { timeout: STEP_MS } },
  },
});
