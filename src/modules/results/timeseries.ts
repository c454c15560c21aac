import type { Granularity, JoinedAgg, MetricAgg, PeriodExposures } from './results.repo.js';
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

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** An experiment whose data span less than this is charted by the hour: by the day, day one is one dot per series. */
const HOURLY_UNDER_MS = 3 * DAY_MS;
/** Past this many periods the gaps are not filled in (ten years of days, or a year of hours, is already dense). */
const MAX_FILLED = { day: 3660, hour: 24 * 366 } as const;

/** A period's key: its UTC day (YYYY-MM-DD) or hour (YYYY-MM-DDTHH), a prefix of an ISO timestamp. */
const PERIOD_LENGTH = { day: 10, hour: 13 } as const;
const STEP_MS = { day: DAY_MS, hour: HOUR_MS } as const;
const startOf = (period: string, granularity: Granularity) => (granularity === 'hour' ? `${period}:00:00.000Z` : `${period}T00:00:00.000Z`);

/**
 * The time series' periods: hours while the experiment has run less than 3 days (from its start to
 * its stop, or to now while it runs), days otherwise and before it starts.
 */
export function granularityOf(e: { started_at: string | null; stopped_at: string | null }, now: string): Granularity {
  if (e.started_at === null) return 'day';
  const span = Date.parse(e.stopped_at ?? now) - Date.parse(e.started_at);
  return Number.isFinite(span) && span < HOURLY_UNDER_MS ? 'hour' : 'day';
}

/** Every period from the first to the last seen, gaps filled (unless that would be too many). */
function periodRange(periods: readonly string[], granularity: Granularity): string[] {
  const sorted = [...new Set(periods)].sort();
  if (sorted.length < 2) return sorted;
  const first = Date.parse(startOf(sorted[0]!, granularity));
  const last = Date.parse(startOf(sorted[sorted.length - 1]!, granularity));
  const span = (last - first) / STEP_MS[granularity];
  if (!Number.isFinite(span) || span > MAX_FILLED[granularity]) return sorted;
  const out: string[] = [];
  for (let t = first; t <= last; t += STEP_MS[granularity]) out.push(new Date(t).toISOString().slice(0, PERIOD_LENGTH[granularity]));
  return out;
}

/**
 * Exposures and the cumulative primary metric per variant, by period (UTC hour or day) of first
 * exposure (GrowthBook's convention): at period p the value is the metric over the users first
 * exposed in or before p, with all their outcomes so far. Users whose assignment is missing have no
 * period and are left out of the chart (they still count in the totals; see health). Without a
 * primary metric, cumulative_value is null. The primary's per-user rows come by the hour and are
 * added up by the day when the series is daily.
 */
export function buildTimeseries(
  variantKeys: readonly string[],
  granularity: Granularity,
  exposures: readonly PeriodExposures[],
  primary: { kind: 'success_rate' | 'mean'; perVariant: ReadonlyMap<string, JoinedAgg> } | null,
): Timeseries {
  const known = new Set(variantKeys);
  const exposed = new Map<string, number>();
  const metric = new Map<string, number>();
  const keyOf = (variant: string, period: string) => `${variant}\u0000${period}`;
  for (const row of exposures) if (known.has(row.variant)) exposed.set(keyOf(row.variant, row.period), row.n);
  for (const [variant, agg] of primary?.perVariant ?? []) {
    // An hour's users' sum of the metric: what the kind's sufficient statistic adds up.
    for (const row of agg.hours) {
      const k = keyOf(variant, row.hour.slice(0, PERIOD_LENGTH[granularity]));
      metric.set(k, (metric.get(k) ?? 0) + (primary!.kind === 'success_rate' ? row.successes : row.sum));
    }
  }

  const cumulative = new Map(variantKeys.map((k) => [k, { exposures: 0, value: 0 }]));
  const periods = periodRange(
    exposures.filter((r) => known.has(r.variant)).map((r) => r.period),
    granularity,
  );
  return periods.map((period) => {
    const variants: Timeseries[number]['variants'] = {};
    for (const key of variantKeys) {
      const c = cumulative.get(key)!;
      const inPeriod = exposed.get(keyOf(key, period)) ?? 0;
      c.exposures += inPeriod;
      c.value += metric.get(keyOf(key, period)) ?? 0;
      const value = primary !== null && c.exposures > 0 ? c.value / c.exposures : null;
      variants[key] = { exposures: inPeriod, cumulative_exposures: c.exposures, cumulative_value: value !== null && Number.isFinite(value) ? value : null };
    }
    return { date: period.slice(0, 10), start: startOf(period, granularity), variants };
  });
}
