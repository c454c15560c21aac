/**
 * The time limits of the tests, in one place. None is a guess at the machine's speed: each bounds
 * one wait for an event (a process's "listening" line or its exit, a row, a page's element) at ten
 * times what it takes on a quiet machine or more, and the wait says what it was waiting for when
 * it gives up. A test's own limit (vitest's) is a backstop: the sum of the bounds of the waits it
 * makes one after the other (`timeLimit`), so a late event fails with its own message first.
 *
 * What a start costs, measured as CPU time (what it takes on a quiet machine) on this project's
 * 2-core machine: the built server listening, about 1.3 s; one CLI command, 1.5 to 2.2 s (Node's
 * start and the code the command loads). Chromium's launch keeps Playwright's own bound (180 s).
 */

/** One process start: the built server listening, a CLI command (or npm) exiting. */
export const START_MS = 60_000;
/** Waiting for one of the machine's start slots (./startSlots.ts) before a start: each holder is done or killed within START_MS. */
export const SLOT_WAIT_MS = 60_000;
/**
 * One bounded step that is not a start: a Playwright action, navigation or element (support/browser.ts
 * sets it for every page), an `expect.poll` (vitest.config.ts sets its default to this), a line a
 * running process prints. Most take well under a second on a quiet machine; at a load of 20 on two
 * cores, a console page took more than 30 s to show its first element.
 */
export const STEP_MS = 60_000;

/**
 * A test with no limit of its own (vitest.config.ts): in-process work (the app, the fake provider,
 * PostgreSQL) that takes up to 12 s on a quiet machine, or one process start. Heavier tests set
 * their own, with `timeLimit`.
 */
export const TEST_MS = 120_000;
/**
 * A hook with no limit of its own (vitest.config.ts): starting a server and Chromium, or a test
 * app on a database of its own and its cleanup (the app's close, up to 20 s, then DATABASE_MS), several times.
 */
export const HOOK_MS = 300_000;

/** A PostgreSQL test database made or dropped, as support/postgres.ts bounds it: a connection, a statement, the goodbye. */
export const DATABASE_MS = 10_000 + 30_000 + 5_000;

/**
 * No test's backstop is longer: a test that waits on something unbounded (a bug) still ends well
 * within CI's time for the whole run, with its name in the report. The longest tests (twenty CLI
 * commands in a row) take under a minute on a quiet machine: ten times that is within it.
 */
const LONGEST_TEST_MS = 15 * 60_000;

/**
 * A test's backstop: the sum of the bounds of what it waits for in sequence, up to
 * LONGEST_TEST_MS. `starts` counts processes started one after the other (servers, CLI commands,
 * Chromium: each may wait for a slot, then start), `steps` the other bounded waits (in a browser
 * test, each `await` of a page action, a navigation or a poll), `ms` anything else bounded on its own.
 */
export function timeLimit({ starts = 0, steps = 0, ms = 0 }: { starts?: number; steps?: number; ms?: number }): number {
  return Math.min(starts * (SLOT_WAIT_MS + START_MS) + steps * STEP_MS + ms, LONGEST_TEST_MS);
}
