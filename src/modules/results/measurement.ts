import { OUTCOME_KINDS, type MetricDef, type OutcomeKind } from '../experiments/metrics.js';
import { percentileCap } from '../../stats/index.js';
import type { ExposureTotals, Measured, VariantMeasure } from './measured.js';
import type { AssignedColumns, UserSums } from './metricSources.repo.js';
import { aggregateJoined, aggregateUsers, cupedSums } from './perUser.js';
import type { ReadPlan } from './readPlan.js';
import type { JoinedAgg, JoinedColumns, MetricAgg, PeriodExposures, UserColumns } from './results.repo.js';
import type { RunAgg } from './runAggregates.repo.js';
import { EMPTY_AGG } from './timeseries.js';

/**
 * From what the reads brought back to what was measured (pure): caps resolved, per-user values
 * summed, each metric's sufficient statistics per variant. The SQL is in the reads; the statistics
 * are in the report.
 */

/** Exposed users per variant and in all, summed once from the counts per period. */
export function exposureTotals(keys: readonly string[], exposuresByPeriod: ReadonlyArray<{ variant: string; n: number }>): ExposureTotals {
  const exposures = new Map<string, number>();
  for (const row of exposuresByPeriod) exposures.set(row.variant, (exposures.get(row.variant) ?? 0) + row.n);
  const usersOf = (k: string) => exposures.get(k) ?? 0;
  return { usersOf, all: keys.reduce((n, k) => n + usersOf(k), 0) };
}

/** What was read for one declared metric. */
export type MetricRead =
  /** A runs metric: its cap resolved (a percentile needs every user's value, read in SQL) and the sums under it. */
  | { source: 'runs'; cap: number | null; perVariant: ReadonlyMap<string, UserSums> }
  /** An outcome metric whose users' values are needed (a percentile cap, CUPED, the checked event type). */
  | { source: 'outcomes'; userRows: ReadonlyMap<string, UserColumns> }
  /** An outcome metric summed in SQL (under its fixed cap, if any). */
  | { source: 'outcomes'; sums: ReadonlyMap<string, MetricAgg> };

/** Everything the reads brought back, before any measurement. */
export interface ResultsReads {
  exposuresByPeriod: readonly PeriodExposures[];
  /** Every event type with outcomes, when the plan reads every type; else empty. */
  seen: readonly string[];
  /** SQL's uncapped sums per event type and variant, for each type read that way (every seen type when exploring). */
  sums: ReadonlyMap<string, ReadonlyMap<string, MetricAgg>>;
  /** The event type joined to assignments and its rows per variant, if any type was. */
  checked: { type: string; rows: ReadonlyMap<string, JoinedColumns> } | null;
  /** Every assignment with its pre-exposure values, when CUPED is on. */
  assigned: AssignedColumns | null;
  metrics: ReadonlyMap<MetricDef, MetricRead>;
  /** Users with a success per variant, unless the plan takes them from the primary metric's joined rows. */
  successfulUsers: ReadonlyMap<string, number> | null;
  runs: readonly RunAgg[];
  latency: ReadonlyMap<string, { p50: number | null; p95: number | null }>;
  labels: ReadonlyArray<{ event_type: string; variant: string; label: string; n: number }>;
  unattributedOutcomes: number;
}

export interface Measurement {
  measured: Measured[];
  explored: Measured[];
  joined: Map<string, Map<string, JoinedAgg>>;
  successfulUsers: ReadonlyMap<string, number>;
}

/** Whether an event type carries a kind of outcome metric at all (some user has data for it). */
const PRESENT: Record<OutcomeKind, (agg: MetricAgg) => boolean> = {
  success_rate: (agg) => agg.users_with_success_data > 0,
  mean: (agg) => agg.users_with_numeric > 0,
};

/** An outcome metric over `n` exposed users (users without data count as 0). */
function outcomeMeasure(kind: OutcomeKind, n: number, agg: MetricAgg): VariantMeasure {
  return kind === 'success_rate'
    ? { n, sum: agg.successes, sumSquares: agg.successes, usersWithData: agg.users_with_event }
    : { n, sum: agg.sum, sumSquares: agg.sum_squares, usersWithData: agg.users_with_event };
}

/** A metric's cap as a value: a percentile is taken over every exposed user (users without a total count as 0). */
export function resolveCap(m: MetricDef, read: MetricRead, allUsers: number): number | null {
  if (read.source === 'runs') return read.cap;
  if (m.cap === null) return null;
  if (typeof m.cap === 'number') return m.cap;
  if (!('userRows' in read)) throw new Error(`metric '${m.name}': a percentile cap needs each user's value`);
  // A loop, not flatMap: one small array per user was a tenth of the report's time in allocation and GC.
  const totals: number[] = [];
  for (const variantRows of read.userRows.values()) for (const total of variantRows.total) if (total !== null) totals.push(total);
  return percentileCap(totals, Math.max(0, allUsers - totals.length), m.cap.percentile);
}

/** From what was read to what was measured. */
export function measure(plan: ReadPlan, reads: ResultsReads, exposures: ExposureTotals): Measurement {
  const { keys, declared, primaryOutcome } = plan;
  const readOf = (m: MetricDef) => reads.metrics.get(m)!;
  const caps = new Map(declared.map((m) => [m, resolveCap(m, readOf(m), exposures.all)]));

  // The checked event type's rows, aggregated per variant; the primary metric's cap applies to a mean.
  const joined = new Map<string, Map<string, JoinedAgg>>();
  if (reads.checked !== null) {
    const { type, rows } = reads.checked;
    const cap = type === primaryOutcome?.event_type && primaryOutcome.kind === 'mean' ? caps.get(primaryOutcome)! : null;
    joined.set(type, new Map(keys.map((k) => [k, aggregateJoined(rows.get(k)!, k, cap)])));
  }

  const measured = declared.map((m): Measured => {
    const cap = caps.get(m)!;
    const read = readOf(m);
    if (read.source === 'runs') {
      const sumsOf = (k: string): VariantMeasure => {
        const s = read.perVariant.get(k)!;
        return { n: s.users, sum: s.sum, sumSquares: s.sum_squares, usersWithData: s.users };
      };
      return { def: m, perVariant: new Map(keys.map((k) => [k, sumsOf(k)])), cap, cuped: null };
    }
    const kind = m.kind as OutcomeKind;
    const byUser = 'userRows' in read ? read.userRows : null;
    const aggOf = (k: string) => ('sums' in read ? read.sums.get(k)! : aggregateUsers(byUser!.get(k)!, kind === 'mean' ? cap : null));
    const perVariant = new Map(keys.map((k) => [k, outcomeMeasure(kind, exposures.usersOf(k), aggOf(k))]));
    const at = plan.covariate?.types.indexOf(m.event_type!) ?? -1;
    const cuped = plan.cuped && byUser !== null ? new Map(keys.map((k) => [k, cupedSums(kind, reads.assigned!, at, k, byUser.get(k)!, cap)])) : null;
    return { def: m, perVariant, cap, cuped };
  });

  // Undeclared event type × kind pairs that some user has data for, each reported unadjusted.
  const explored: Measured[] = [];
  if (plan.explore) {
    const isDeclared = (t: string, kind: OutcomeKind) => declared.some((m) => m.event_type === t && m.kind === kind);
    for (const t of reads.seen) {
      const aggs = reads.sums.get(t)!;
      for (const kind of OUTCOME_KINDS) {
        if (isDeclared(t, kind) || ![...aggs.values()].some(PRESENT[kind])) continue;
        const def = { name: `${t}:${kind}`, source: 'outcomes', event_type: t, kind, role: 'exploratory', direction: 'higher', cap: null } as const;
        explored.push({
          def,
          perVariant: new Map(keys.map((k) => [k, outcomeMeasure(kind, exposures.usersOf(k), aggs.get(k) ?? EMPTY_AGG)])),
          cap: null,
          cuped: null,
        });
      }
    }
  }

  // Cost per successful user: users with a success on the primary metric's event type, else on any.
  const successfulUsers =
    plan.successfulUsers === 'primary'
      ? new Map(keys.map((k) => [k, (joined.get(primaryOutcome!.event_type!)?.get(k)?.totals ?? EMPTY_AGG).successes]))
      : reads.successfulUsers!;

  return { measured, explored, joined, successfulUsers };
}
