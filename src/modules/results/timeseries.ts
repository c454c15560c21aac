import type { JoinedAgg, MetricAgg } from './results.repo.js';
import type { ExperimentResults } from './results.schemas.js';

type Timeseries = ExperimentResults['timeseries'];

export const EMPTY_AGG: MetricAgg = Object.freeze({
  users_with_event: 0,
  users_with_success_data: 0,
  successes: 0,
  users_with_numeric: 0,
  sum: 0,
  sum_squares: 0,
});

/** Distinct users whose outcomes name a variant other than their assignment, over everything checked. */
export function countMismatchedUsers(checked: Iterable<JoinedAgg>): number {
  const users = new Set<string>();
  for (const agg of checked) for (const user of agg.mismatched) users.add(user);
  return users.size;
}

const DAY_MS = 86_400_000;
/** Past this many days the gaps are not filled in (a plot of ten years of days is already dense). */
const MAX_FILLED_DAYS = 3660;

function dayRange(days: readonly string[]): string[] {
  const sorted = [...new Set(days)].sort();
  if (sorted.length < 2) return sorted;
  const first = Date.parse(`${sorted[0]}T00:00:00Z`);
  const last = Date.parse(`${sorted[sorted.length - 1]}T00:00:00Z`);
  const span = (last - first) / DAY_MS;
  if (!Number.isFinite(span) || span > MAX_FILLED_DAYS) return sorted;
  const out: string[] = [];
  for (let t = first; t <= last; t += DAY_MS) out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

/**
 * Daily exposures and the cumulative primary metric per variant, by day of first exposure
 * (GrowthBook's convention): on day d the value is the metric over the users first exposed on or
 * before d, with all their outcomes so far. Users whose assignment is missing have no day and are
 * left out of the chart (they still count in the totals; see health). Without a primary metric,
 * cumulative_value is null.
 */
export function buildTimeseries(
  variantKeys: readonly string[],
  exposures: ReadonlyArray<{ variant: string; day: string; n: number }>,
  primary: { kind: 'success_rate' | 'mean'; perVariant: ReadonlyMap<string, JoinedAgg> } | null,
): Timeseries {
  const known = new Set(variantKeys);
  const exposed = new Map<string, number>();
  const metric = new Map<string, number>();
  const keyOf = (variant: string, day: string) => `${variant}\u0000${day}`;
  for (const row of exposures) if (known.has(row.variant)) exposed.set(keyOf(row.variant, row.day), row.n);
  for (const [variant, agg] of primary?.perVariant ?? []) {
    // A day's users' sum of the metric: what the kind's sufficient statistic adds up.
    for (const row of agg.days) metric.set(keyOf(variant, row.day), primary!.kind === 'success_rate' ? row.successes : row.sum);
  }

  const cumulative = new Map(variantKeys.map((k) => [k, { exposures: 0, value: 0 }]));
  return dayRange(exposures.filter((r) => known.has(r.variant)).map((r) => r.day)).map((date) => {
    const variants: Timeseries[number]['variants'] = {};
    for (const key of variantKeys) {
      const c = cumulative.get(key)!;
      const today = exposed.get(keyOf(key, date)) ?? 0;
      c.exposures += today;
      c.value += metric.get(keyOf(key, date)) ?? 0;
      const value = primary !== null && c.exposures > 0 ? c.value / c.exposures : null;
      variants[key] = { exposures: today, cumulative_exposures: c.exposures, cumulative_value: value !== null && Number.isFinite(value) ? value : null };
    }
    return { date, variants };
  });
}
