import { describe, expect, it } from 'vitest';
import type { AssignedColumns, PreRow } from '../../../src/modules/results/metricSources.repo.js';
import { aggregateJoined, aggregateUsers, cupedSums, userValue, withAssignments } from '../../../src/modules/results/perUser.js';
import { mulberry32 } from '../../support/prng.js';
import type { JoinedColumns, UserColumns } from '../../../src/modules/results/results.repo.js';

// The functions take columns, as SQLite hands them over; the cases are written as rows, easier to read.
type UserRow = [user: string, success: number | null, total: number | null];
type JoinedRow = [user: string, success: number | null, total: number | null, hour: string | null, assigned: string | null];
type AssignedRow = [user: string, variant: string, hour: string, values: Array<number | null> | null];

const userColumns = (rows: readonly UserRow[]): UserColumns => ({ user: rows.map((r) => r[0]), success: rows.map((r) => r[1]), total: rows.map((r) => r[2]) });
const joinedColumns = (rows: readonly JoinedRow[]): JoinedColumns => ({
  ...userColumns(rows.map(([u, success, total]) => [u, success, total])),
  hour: rows.map((r) => r[3]),
  assigned: rows.map((r) => r[4]),
});
const assignments = (rows: readonly AssignedRow[]): AssignedColumns => ({
  user: rows.map((r) => r[0]),
  variant: rows.map((r) => r[1]),
  hour: rows.map((r) => r[2]),
  pre: rows.map((r) => r[3]),
});
/** Pre-exposure rows as the assignments they come from (every user here has a value; the hour does not matter). */
const preAssignments = (pre: readonly PreRow[]): AssignedColumns => assignments(pre.map(([u, v, values]) => [u, v, '2026-01-01T00', values]));

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
    expect(aggregateUsers(userColumns(rows), cap)).toEqual(expected);
  });

  it('aggregateJoined splits by hour of first exposure, leaves out users without one and lists users assigned elsewhere', () => {
    const joined: JoinedRow[] = [
      ['u1', 1, 5, '2025-01-01T09', 'a'],
      ['u2', 0, null, '2025-01-02T00', 'b'],
      ['u3', null, 100, null, null],
      ['u4', 1, -2, '2025-01-01T09', 'a'],
    ];
    const agg = aggregateJoined(joinedColumns(joined), 'a', 10);
    expect(agg.totals).toEqual(aggregateUsers(userColumns(rows), 10));
    expect(agg.hours).toEqual([
      { hour: '2025-01-01T09', users_with_event: 2, users_with_success_data: 2, successes: 2, users_with_numeric: 2, sum: 3, sum_squares: 29 },
      { hour: '2025-01-02T00', users_with_event: 1, users_with_success_data: 1, successes: 0, users_with_numeric: 0, sum: 0, sum_squares: 0 },
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
    // Each user's row after exposure (y: success for a rate, the capped total for a mean); u3 has no pre-exposure value.
    const ys: UserRow[] = [
      ['u1', 1, 6],
      ['u3', 1, 50],
      ['u5', null, 3],
    ];
    expect(cupedSums('mean', preAssignments(pre), 1, 'a', userColumns(ys), 10)).toEqual({ users_with_pre: 2, sum_x: 18, sum_x2: 64 + 100, sum_xy: 8 * 6 + 10 * 3 });
    expect(cupedSums('success_rate', preAssignments(pre), 0, 'a', userColumns(ys), null)).toEqual({ users_with_pre: 2, sum_x: 1, sum_x2: 1, sum_xy: 1 });
    expect(cupedSums('success_rate', preAssignments(pre), 0, 'b', userColumns(ys), null)).toEqual({ users_with_pre: 1, sum_x: 1, sum_x2: 1, sum_xy: 0 });
  });

  it('cupedSums gives, to the last bit, the sums of walking the pre rows with a map of y (users in the same order in both lists)', () => {
    const random = mulberry32(11);
    const value = () => (random() < 0.2 ? null : Math.round(random() * 1e6) / 7);
    const users = Array.from({ length: 2000 }, (_, i) => `user-${i}`).sort();
    const pre: PreRow[] = users
      .filter(() => random() < 0.6)
      .map((u) => [u, random() < 0.5 ? 'a' : 'b', [random() < 0.5 ? null : random() < 0.3 ? 1 : 0, value(), null, value()]]);
    const ys: UserRow[] = users.filter(() => random() < 0.7).map((u) => [u, random() < 0.4 ? null : random() < 0.5 ? 1 : 0, value()]);
    for (const kind of ['mean', 'success_rate'] as const) {
      for (const at of [0, 1]) {
        for (const cap of [null, 50_000]) {
          const yOf = new Map(ys.map(([u, success, total]) => [u, userValue(kind, success, total, cap)]));
          for (const variant of ['a', 'b']) {
            const expected = { users_with_pre: 0, sum_x: 0, sum_x2: 0, sum_xy: 0 };
            for (const [u, v, values] of pre) {
              const [success, total] = [values[2 * at] ?? null, values[2 * at + 1] ?? null];
              if (v !== variant || (kind === 'success_rate' ? success : total) === null) continue;
              const x = userValue(kind, success, total, cap);
              expected.users_with_pre++;
              expected.sum_x += x;
              expected.sum_x2 += x * x;
              expected.sum_xy += x * (yOf.get(u) ?? 0);
            }
            expect(cupedSums(kind, preAssignments(pre), at, variant, userColumns(ys), cap)).toEqual(expected);
            // Ids JavaScript orders differently from SQLite (UTF-16 units against UTF-8 bytes) take the map.
            const odd = (rows: Array<[string, ...unknown[]]>) => rows.map(([u, ...rest]) => [u === users[7] ? '\u{1F600}' : u === users[8] ? '\uFFFF' : u, ...rest]);
            const [preOdd, ysOdd] = [odd(pre) as PreRow[], odd(ys) as UserRow[]];
            const oddY = new Map(ysOdd.map(([u, success, total]) => [u, userValue(kind, success, total, cap)]));
            const oddExpected = { ...expected, sum_xy: 0 };
            for (const [u, v, values] of preOdd) {
              const [success, total] = [values[2 * at] ?? null, values[2 * at + 1] ?? null];
              if (v !== variant || (kind === 'success_rate' ? success : total) === null) continue;
              oddExpected.sum_xy += userValue(kind, success, total, cap) * (oddY.get(u) ?? 0);
            }
            expect(cupedSums(kind, preAssignments(preOdd), at, variant, userColumns(ysOdd), cap)).toEqual(oddExpected);
          }
        }
      }
    }
  });
});

describe('withAssignments', () => {
  // Sorted as SQLite sorts them (UTF-8 bytes): '\uFFFF' before '\u{1F600}', the other way round in JavaScript.
  const assigned: AssignedRow[] = [
    ['a', 'control', '2026-01-01T00', null],
    ['c', 'treatment', '2026-01-02T00', [1, 2]],
    ['d', 'control', '2026-01-03T00', null],
    ['\uFFFF', 'control', '2026-01-04T00', null],
    ['\u{1F600}', 'treatment', '2026-01-05T00', null],
  ];
  const ys: UserRow[] = [
    ['b', 1, null],
    ['c', 0, 3],
    ['d', null, 4],
    ['e', 1, 1],
  ];

  it('joins each per-user row to its assignment as the seek does: hour and variant, or nulls without one', () => {
    expect(withAssignments(userColumns(ys), assignments(assigned.slice(0, 3)))).toEqual(
      joinedColumns([
        ['b', 1, null, null, null],
        ['c', 0, 3, '2026-01-02T00', 'treatment'],
        ['d', null, 4, '2026-01-03T00', 'control'],
        ['e', 1, 1, null, null],
      ]),
    );
    expect(withAssignments(userColumns([]), assignments(assigned))).toEqual(joinedColumns([]));
    expect(withAssignments(userColumns(ys), assignments([]))).toEqual(joinedColumns(ys.map(([u, success, total]) => [u, success, total, null, null])));
  });

  it('takes a map when JavaScript orders the ids differently from SQLite', () => {
    const odd: UserRow[] = [
      ['a', 1, null],
      ['\uFFFF', 0, 2],
      ['\u{1F600}', 1, 5],
    ];
    expect(withAssignments(userColumns(odd), assignments(assigned))).toEqual(
      joinedColumns([
        ['a', 1, null, '2026-01-01T00', 'control'],
        ['\uFFFF', 0, 2, '2026-01-04T00', 'control'],
        ['\u{1F600}', 1, 5, '2026-01-05T00', 'treatment'],
      ]),
    );
  });
});
