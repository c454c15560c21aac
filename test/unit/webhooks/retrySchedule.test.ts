import { describe, expect, it } from 'vitest';
import { nextAttemptAt, RETRY_WINDOW_MS, retryDelayMs } from '../../../src/modules/webhooks/retrySchedule.js';

const S = 1000;
const H = 3600 * S;

describe('the retry schedule', () => {
  it.each<[number, number]>([
    [1, 30 * S],
    [2, 60 * S],
    [3, 120 * S],
    [7, 1920 * S],
    [8, H], // 3840 s capped at an hour
    [30, H],
  ])('after failure %i, waits %i ms', (failures, delay) => {
    expect(retryDelayMs(failures)).toBe(delay);
  });

  it.each<[string, number, number, number | null]>([
    ['the first retry', 0, 1, 30 * S],
    ['a retry well inside the window', 10 * H, 8, 11 * H],
    ['a retry that would pass the window is made at its end', 23.5 * H, 20, RETRY_WINDOW_MS],
    ['the attempt at the end of the window is the last', RETRY_WINDOW_MS, 30, null],
  ])('%s', (_case, now, failures, expected) => {
    expect(nextAttemptAt(0, now, failures)).toBe(expected);
  });

  it('tries about 30 times in 24 hours when every attempt fails', () => {
    let now = 0;
    let attempts = 1;
    for (let next = nextAttemptAt(0, now, attempts); next !== null; next = nextAttemptAt(0, now, attempts)) {
      now = next;
      attempts++;
    }
    expect(now).toBe(RETRY_WINDOW_MS);
    expect(attempts).toBe(31);
  });
});
