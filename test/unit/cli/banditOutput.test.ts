import { describe, expect, it } from 'vitest';
import { allocationTable, banditSummary } from '../../../src/cli/banditOutput.js';

describe("the CLI's bandit output (experiments show)", () => {
  it('prints one row per period: each arm’s weight and, in brackets, its probability of being best', () => {
    const text = allocationTable(
      ['a', 'b'],
      [
        { period: 0, started_at: '2026-03-02T08:00:00.000Z', weights: { a: 0.5, b: 0.5 }, p_best: null, dropped: [] },
        { period: 1, started_at: '2026-03-02T09:00:00.000Z', weights: { a: 0.05, b: 0.95 }, p_best: { a: 0.012, b: 0.988 }, dropped: ['a'] },
      ],
    );
    expect(text.split('\n')).toEqual([
      'allocation history: weight of new users (probability best)',
      'PERIOD  FROM                      A            B              DROPPED',
      '0       2026-03-02T08:00:00.000Z  50.0% (-)    50.0% (-)',
      '1       2026-03-02T09:00:00.000Z  5.0% (1.2%)  95.0% (98.8%)  a',
    ]);
  });
  it('says the settings in one line', () => {
    expect(banditSummary({ floor: null, stop_threshold: 0.95, stop_after_minutes: 1440 })).toBe(
      'bandit: re-weighted hourly; floor 1/(10·k) of new users for k arms in play; stops and ships an arm best with probability >= 0.95 for 1440 minutes',
    );
    expect(banditSummary({ floor: 0.05, stop_threshold: 0.99, stop_after_minutes: 60 })).toMatch(/floor 5\.0% of new users/);
  });
});
