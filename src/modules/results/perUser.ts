import type { OutcomeKind } from '../experiments/metrics.js';
import type { AssignedRow, PreRow } from './metricSources.repo.js';
import type { CupedSums } from './measured.js';
import type { JoinedAgg, JoinedRow, MetricAgg, UserRow } from './results.repo.js';

/**
 * Sufficient statistics from per-user rows, for the metrics that need each user's value: a
 * percentile cap (taken over every user first), CUPED (each user's pre- and post-exposure values
 * side by side) and the daily chart. Pure: the SQL is in the repos.
 */

const capped = (x: number, cap: number | null) => (cap !== null && x > cap ? cap : x);

const emptyAgg = (): MetricAgg => ({ users_with_event: 0, users_with_success_data: 0, successes: 0, users_with_numeric: 0, sum: 0, sum_squares: 0 });

function add(agg: MetricAgg, success: number | null, total: number | null, cap: number | null): void {
  agg.users_with_event++;
  if (success !== null) {
    agg.users_with_success_data++;
    agg.successes += success;
  }
  if (total !== null) {
    const y = capped(total, cap);
    agg.users_with_numeric++;
    agg.sum += y;
    agg.sum_squares += y * y;
  }
}

/** The same numbers metricAggregate computes in SQL, from per-user rows, with per-user totals capped. */
export function aggregateUsers(rows: readonly UserRow[], cap: number | null): MetricAgg {
  const agg = emptyAgg();
  for (const [, success, total] of rows) add(agg, success, total, cap);
  return agg;
}

/** Totals, the split by day of first exposure (users without an assignment left out) and the users assigned elsewhere. */
export function aggregateJoined(rows: readonly JoinedRow[], variant: string, cap: number | null): JoinedAgg {
  const totals = emptyAgg();
  const days = new Map<string, MetricAgg>();
  const mismatched: string[] = [];
  for (const [user, success, total, day, assigned] of rows) {
    add(totals, success, total, cap);
    if (day !== null) {
      const agg = days.get(day) ?? emptyAgg();
      days.set(day, agg);
      add(agg, success, total, cap);
    }
    if (assigned !== null && assigned !== variant) mismatched.push(user);
  }
  return { totals, days: [...days].map(([day, agg]) => ({ ...agg, day })), mismatched };
}

/** A user's value of an outcome metric from their row: a success is 0/1, a mean their (capped) total; 0 without data. */
export function userValue(kind: OutcomeKind, success: number | null, total: number | null, cap: number | null): number {
  return kind === 'success_rate' ? (success ?? 0) : capped(total ?? 0, cap);
}

/** Whether rows are in strictly ascending order of their first column, as JavaScript compares strings. */
function ascending(rows: ReadonlyArray<readonly [string, ...unknown[]]>): boolean {
  for (let i = 1; i < rows.length; i++) if (!(rows[i - 1]![0] < rows[i]![0])) return false;
  return true;
}

/**
 * CUPED's sums over one variant's users with a pre-exposure value x for the metric (its event type's
 * position `at` in the covariate's types), with y each user's post-exposure value (0 without one):
 * Σx and Σx² over the pre rows, Σxy over the users in both `pre` and `ys` (the variant's per-user
 * rows: a user without a pre-exposure value adds nothing, as a user without a y adds x·0 = 0).
 * Both lists come from SQLite in user order, so Σxy is a merge of the two, adding the products in
 * the same order as walking the pre rows would (the same double to the last bit), without hashing
 * a single id. SQLite orders by UTF-8 bytes and JavaScript by UTF-16 units, which differ for ids
 * with characters beyond U+FFFF: when either list is not ascending as JavaScript sees it, Σxy is
 * taken with a map instead, in the same order.
 */
export function cupedSums(kind: OutcomeKind, pre: readonly PreRow[], at: number, variant: string, ys: readonly UserRow[], cap: number | null): CupedSums {
  const sums: CupedSums = { users_with_pre: 0, sum_x: 0, sum_x2: 0, sum_xy: 0 };
  const xOf = (row: PreRow): number | null => {
    const success = row[2][2 * at] ?? null;
    const total = row[2][2 * at + 1] ?? null;
    return (kind === 'success_rate' ? success : total) === null ? null : userValue(kind, success, total, cap);
  };
  for (const row of pre) {
    if (row[1] !== variant) continue;
    const x = xOf(row);
    if (x === null) continue;
    sums.users_with_pre++;
    sums.sum_x += x;
    sums.sum_x2 += x * x;
  }
  const add = (row: PreRow | undefined, y: UserRow) => {
    if (row === undefined || row[1] !== variant) return;
    const x = xOf(row);
    if (x !== null) sums.sum_xy += x * userValue(kind, y[1], y[2], cap);
  };
  if (ascending(pre) && ascending(ys)) {
    let i = 0;
    for (const y of ys) {
      while (i < pre.length && pre[i]![0] < y[0]) i++;
      if (i < pre.length && pre[i]![0] === y[0]) add(pre[i], y);
    }
  } else {
    const byUser = new Map(pre.map((row) => [row[0], row]));
    for (const y of ys) add(byUser.get(y[0]), y);
  }
  return sums;
}

/**
 * One variant's per-user rows checked against the users' assignments (every assignment, in user
 * order): the JoinedRows that joinedRows reads with one seek per user, as a merge of two lists
 * already in user order. When either is not ascending as JavaScript compares strings (ids with
 * characters beyond U+FFFF: see cupedSums), the assignments are looked up in a map instead.
 */
export function withAssignments(rows: readonly UserRow[], assigned: readonly AssignedRow[]): JoinedRow[] {
  const joined: JoinedRow[] = new Array(rows.length);
  const row = (y: UserRow, a: AssignedRow | undefined): JoinedRow => [y[0], y[1], y[2], a === undefined ? null : a[2], a === undefined ? null : a[1]];
  if (ascending(rows) && ascending(assigned)) {
    let i = 0;
    for (let r = 0; r < rows.length; r++) {
      const y = rows[r]!;
      while (i < assigned.length && assigned[i]![0] < y[0]) i++;
      joined[r] = row(y, i < assigned.length && assigned[i]![0] === y[0] ? assigned[i] : undefined);
    }
  } else {
    const byUser = new Map(assigned.map((a) => [a[0], a]));
    for (let r = 0; r < rows.length; r++) joined[r] = row(rows[r]!, byUser.get(rows[r]![0]));
  }
  return joined;
}
