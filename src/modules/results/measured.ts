import type { BanditReport } from '../experiments/bandit.schemas.js';
import type { ExperimentView } from '../experiments/experiments.schemas.js';
import type { MetricDef } from '../experiments/metrics.js';
import type { Granularity, JoinedAgg, PeriodExposures } from './results.repo.js';
import type { RunAgg } from './runAggregates.repo.js';

/** What the report is computed with: the query's options, resolved against the experiment's settings. */
export interface ResultsOptions {
  sequential: boolean;
  prior: 'flat' | 'proper';
  /** Also report undeclared event types, each unadjusted (default: only when no goal metric is declared). */
  explore: boolean;
  /** Adjust declared outcome metrics with their pre-exposure values (default: the experiment's `cuped`). */
  cuped: boolean;
}

/** Exposed users per variant and in all, summed once from the daily counts and passed on. */
export interface ExposureTotals {
  usersOf: (variant: string) => number;
  all: number;
}

/** One variant's data for one metric: n users, Σy, Σy² over them, and how many had any data. */
export interface VariantMeasure {
  n: number;
  sum: number;
  sumSquares: number;
  usersWithData: number;
}

/** A metric that was not declared, reported for exploration only. */
type ExploratoryDef = Omit<MetricDef, 'role'> & { role: 'exploratory' };

/** CUPED's sums over one variant's users with a pre-exposure value x (y: the same user's value after exposure, 0 without one). */
export interface CupedSums {
  users_with_pre: number;
  sum_x: number;
  sum_x2: number;
  sum_xy: number;
}

/** One metric as measured in SQL, ready for the statistics. */
export interface Measured {
  def: MetricDef | ExploratoryDef;
  perVariant: ReadonlyMap<string, VariantMeasure>;
  /** The cap applied to per-user values (a percentile resolved to its value), or null. */
  cap: number | null;
  /** CUPED's pre-exposure sums per variant, when CUPED was on for this metric. */
  cuped: ReadonlyMap<string, CupedSums> | null;
}

/** Everything the report needs, already aggregated in SQL; the assembly is pure. */
export interface ResultsData {
  experiment: ExperimentView;
  generatedAt: string;
  /** The time series' periods: UTC hours while the experiment is young, else UTC days (timeseries.ts). */
  granularity: Granularity;
  exposuresByPeriod: readonly PeriodExposures[];
  /** Exposed users per variant and in all, summed once from `exposuresByPeriod`. */
  exposures: ExposureTotals;
  runs: readonly RunAgg[];
  latency: ReadonlyMap<string, { p50: number | null; p95: number | null }>;
  /** The declared metrics, in declaration order. */
  measured: readonly Measured[];
  /** Undeclared event types × kinds (only when exploring). */
  explored: readonly Measured[];
  /** The one event type checked against assignments (multiple-variant users, daily chart). */
  joined: ReadonlyMap<string, ReadonlyMap<string, JoinedAgg>>;
  labels: ReadonlyArray<{ event_type: string; variant: string; label: string; n: number }>;
  /** Users with a success per variant (the primary's event type, else any), for cost per success. */
  successfulUsers: ReadonlyMap<string, number>;
  unattributedOutcomes: number;
  /** A bandit's own report (period-weighted estimates, P(best), per-period SRM); null for other types. */
  bandit: BanditReport | null;
}
