import { describe, expect, it } from 'vitest';
import type { PreRow } from '../../../src/modules/results/metricSources.repo.js';
import { aggregateJoined, aggregateUsers, cupedSums, userValue } from '../../../src/modules/results/perUser.js';
import type { JoinedRow, UserRow } from '../../../src/modules/results/results.repo.js';

// u1: success, total 5; u2: failure only; u3: total 100 (a whale), no success data; u4: success, total -2.
const rows: UserRow[] = [
  ['u1', 1, 5],
  ['u2', 0, null],
  ['u3', null, 100],
  ['u4', 1, -2],
];

describe('per-user sums', () => {
  it.each<[string, number | null, object]>([
    ['uncapped', null, { users_with_event: 4, users_with_success_data: 3, successes: 2, users_with_numeric: 3, sum: 103, sum_squares: 25 + 10000 + 4 }],
    ['capped at 10', 10, { users_with_event: 4, users_with_success_data: 3, successes: 2, users_with_numeric: 3, sum: 13, sum_squares: 25 + 100 + 4 }],
    ['capped below every value', -5, { users_with_event: 4, users_with_success_data: 3, successes: 2, users_with_numeric: 3, sum: -15, sum_squares: 75 }],
  ])('aggregateUsers %s', (_name, cap, expected) => {
    expect(aggregateUsers(rows, cap)).toEqual(expected);
  });

  it('aggregateJoined splits by day of first exposure, leaves out users without one and lists users assigned elsewhere', () => {
    const joined: JoinedRow[] = [
      ['u1', 1, 5, '2025-01-01', 'a'],
      ['u2', 0, null, '2025-01-02', 'b'],
      ['u3', null, 100, null, null],
      ['u4', 1, -2, '2025-01-01', 'a'],
    ];
    const agg = aggregateJoined(joined, 'a', 10);
    expect(agg.totals).toEqual(aggregateUsers(rows, 10));
    expect(agg.days).toEqual([
      { day: '2025-01-01', users_with_event: 2, users_with_success_data: 2, successes: 2, users_with_numeric: 2, sum: 3, sum_squares: 29 },
      { day: '2025-01-02', users_with_event: 1, users_with_success_data: 1, successes: 0, users_with_numeric: 0, sum: 0, sum_squares: 0 },
    ]);
    expect(agg.mismatched).toEqual(['u2']);
  });

  it.each<[string, 'success_rate' | 'mean', number | null, number | null, number | null, number]>([
    ['a success', 'success_rate', 1, 7, null, 1],
    ['no success data', 'success_rate', null, 7, null, 0],
    ['a total', 'mean', 1, 7, null, 7],
    ['a capped total', 'mean', 1, 7, 3, 3],
    ['no total', 'mean', 1, null, 3, 0],
  ])('userValue: %s', (_name, kind, success, total, cap, expected) => {
    expect(userValue(kind, success, total, cap)).toBe(expected);
  });

  it('cupedSums pairs each pre-exposure value with the same user’s value after, 0 without one', () => {
    // Columns: event type 0 (max is_success, Σ numeric), event type 1 (max is_success, Σ numeric).
    const pre: PreRow[] = [
      ['u1', 'a', [1, 2, null, 8]],
      ['u2', 'a', [0, null, null, null]],
      ['u5', 'a', [null, null, null, 20]],
      ['u9', 'b', [1, 4, 1, 1]],
    ];
    const y = new Map([
      ['u1', 6],
      ['u5', 3],
    ]);
    expect(cupedSums('mean', pre, 1, 'a', y, 10)).toEqual({ users_with_pre: 2, sum_x: 18, sum_x2: 64 + 100, sum_xy: 8 * 6 + 10 * 3 });
    expect(cupedSums('success_rate', pre, 0, 'a', y, null)).toEqual({ users_with_pre: 2, sum_x: 1, sum_x2: 1, sum_xy: 6 });
    expect(cupedSums('success_rate', pre, 0, 'b', y, null)).toEqual({ users_with_pre: 1, sum_x: 1, sum_x2: 1, sum_xy: 0 });
  });
});
