import type { OutcomeKind } from '../experiments/metrics.js';
import type { AssignedColumns } from './metricSources.repo.js';
import type { CupedSums } from './measured.js';
import type { JoinedAgg, JoinedColumns, MetricAgg, UserColumns } from './results.repo.js';

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

/** The same numbers metricAggregate computes in SQL, from per-user values, with per-user totals capped. */
export function aggregateUsers(rows: UserColumns, cap: number | null): MetricAgg {
  const agg = emptyAgg();
  const { success, total } = rows;
  for (let i = 0; i < success.length; i++) add(agg, success[i] ?? null, total[i] ?? null, cap);
  return agg;
}

/** Totals, the split by hour of first exposure (users without an assignment left out) and the users assigned elsewhere. */
export function aggregateJoined(rows: JoinedColumns, variant: string, cap: number | null): JoinedAgg {
  const totals = emptyAgg();
  const hours = new Map<string, MetricAgg>();
  const mismatched: string[] = [];
  for (let i = 0; i < rows.user.length; i++) {
    const success = rows.success[i] ?? null;
    const total = rows.total[i] ?? null;
    const hour = rows.hour[i] ?? null;
    const assigned = rows.assigned[i] ?? null;
    add(totals, success, total, cap);
    if (hour !== null) {
      const agg = hours.get(hour) ?? emptyAgg();
      hours.set(hour, agg);
      add(agg, success, total, cap);
    }
    if (assigned !== null && assigned !== variant) mismatched.push(rows.user[i]!);
  }
  return { totals, hours: [...hours].map(([hour, agg]) => ({ ...agg, hour })), mismatched };
}

/** A user's value of an outcome metric from their row: a success is 0/1, a mean their (capped) total; 0 without data. */
export function userValue(kind: OutcomeKind, success: number | null, total: number | null, cap: number | null): number {
  return kind === 'success_rate' ? (success ?? 0) : capped(total ?? 0, cap);
}

/** Whether ids are in strictly ascending order as JavaScript compares strings. */
function ascending(ids: readonly string[]): boolean {
  for (let i = 1; i < ids.length; i++) if (!(ids[i - 1]! < ids[i]!)) return false;
  return true;
}

/**
 * For each of `ids` (in order), the position of the same id in `sorted`, or -1: a merge when both
 * lists are ascending as JavaScript compares strings, which is how SQLite returns them (user order)
 * unless ids have characters beyond U+FFFF (SQLite orders by UTF-8 bytes, JavaScript by UTF-16
 * units): then a map, which finds the same positions. Pairing by position hashes no id.
 */
function positionsIn(ids: readonly string[], sorted: readonly string[]): Int32Array {
  const at = new Int32Array(ids.length).fill(-1);
  if (ascending(ids) && ascending(sorted)) {
    let j = 0;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      while (j < sorted.length && sorted[j]! < id) j++;
      if (j < sorted.length && sorted[j] === id) at[i] = j;
    }
  } else {
    const byId = new Map(sorted.map((id, j) => [id, j]));
    for (let i = 0; i < ids.length; i++) at[i] = byId.get(ids[i]!) ?? -1;
  }
  return at;
}

/**
 * CUPED's sums over one variant's users with a pre-exposure value x for the metric (its event type's
 * position `at` in the covariate's types), with y each user's post-exposure value (0 without one):
 * Σx and Σx² over the assignments in user order, Σxy over the users in both `assigned` and `ys`
 * (the variant's per-user values: a user without a pre-exposure value adds nothing, as a user
 * without a y adds x·0 = 0), added in the order of `ys`, which is user order too, so the doubles
 * are those of walking the pre-exposure rows with a map of y, to the last bit.
 */
export function cupedSums(kind: OutcomeKind, assigned: AssignedColumns, at: number, variant: string, ys: UserColumns, cap: number | null): CupedSums {
  const sums: CupedSums = { users_with_pre: 0, sum_x: 0, sum_x2: 0, sum_xy: 0 };
  const xOf = (j: number): number | null => {
    const values = assigned.pre[j] ?? null;
    if (values === null || assigned.variant[j] !== variant) return null;
    const success = values[2 * at] ?? null;
    const total = values[2 * at + 1] ?? null;
    return (kind === 'success_rate' ? success : total) === null ? null : userValue(kind, success, total, cap);
  };
  for (let j = 0; j < assigned.user.length; j++) {
    const x = xOf(j);
    if (x === null) continue;
    sums.users_with_pre++;
    sums.sum_x += x;
    sums.sum_x2 += x * x;
  }
  const positions = positionsIn(ys.user, assigned.user);
  for (let i = 0; i < positions.length; i++) {
    const x = positions[i]! < 0 ? null : xOf(positions[i]!);
    if (x !== null) sums.sum_xy += x * userValue(kind, ys.success[i] ?? null, ys.total[i] ?? null, cap);
  }
  return sums;
}

/**
 * One variant's per-user values checked against the users' assignments (every assignment, in user
 * order): the JoinedColumns that joinedRows reads with one seek per user, as a merge of two lists
 * already in user order (positionsIn). The per-user columns are shared, not copied.
 */
export function withAssignments(rows: UserColumns, assigned: AssignedColumns): JoinedColumns {
  const positions = positionsIn(rows.user, assigned.user);
  const hour: Array<string | null> = new Array(positions.length);
  const variant: Array<string | null> = new Array(positions.length);
  for (let i = 0; i < positions.length; i++) {
    const j = positions[i]!;
    hour[i] = j < 0 ? null : assigned.hour[j]!;
    variant[i] = j < 0 ? null : assigned.variant[j]!;
  }
  return { ...rows, hour, assigned: variant };
}
