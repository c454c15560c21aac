/**
 * When a failed delivery is tried again: 30 s after the first failure, doubling up to one hour,
 * for 24 hours after the event. About 30 attempts in all; a receiver that is down for a night gets
 * every event once it is back. No jitter: one sender does not make a thundering herd, and a
 * schedule an operator can predict is worth more.
 */
export const RETRY_WINDOW_MS = 24 * 60 * 60 * 1000;
const FIRST_DELAY_MS = 30_000;
const MAX_DELAY_MS = 60 * 60 * 1000;

/** The delay after the `failedAttempts`-th failure (1-based). */
export function retryDelayMs(failedAttempts: number): number {
  return Math.min(FIRST_DELAY_MS * 2 ** Math.max(0, failedAttempts - 1), MAX_DELAY_MS);
}

/**
 * The next attempt's time: the backoff, but never past the end of the retry window, where the last
 * attempt is made. Null once that window is over: give up.
 */
export function nextAttemptAt(createdAtMs: number, nowMs: number, failedAttempts: number): number | null {
  const windowEnd = createdAtMs + RETRY_WINDOW_MS;
  return nowMs >= windowEnd ? null : Math.min(nowMs + retryDelayMs(failedAttempts), windowEnd);
}
