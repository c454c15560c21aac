import { Type } from '@sinclair/typebox';
import type { MetricAgg } from './results.repo.js';
import type { MetricKind as StatsKind, Suff } from './stats/index.js';

/**
 * Every kind of metric an experiment can be judged on, and everything that differs between them:
 * a new kind is one entry here (plus its SQL aggregate, if it needs new sums).
 */
interface MetricKindDef {
  /** What the value is, for people reading the API document. */
  readonly description: string;
  /** The statistics the comparison uses (its variance formula). */
  readonly stats: StatsKind;
  /** Whether an event type carries this metric at all (any user has data for it). */
  present(agg: MetricAgg): boolean;
  /** The sufficient statistics over `n` exposed users (users without data count as 0). */
  suff(n: number, agg: MetricAgg): Suff;
}

export const METRIC_KINDS = {
  success_rate: {
    description: 'share of exposed users with at least one outcome of the event type with is_success = true',
    stats: 'proportion',
    present: (agg) => agg.users_with_success_data > 0,
    suff: (n, agg) => ({ n, sum: agg.successes, sumSquares: agg.successes }),
  },
  mean: {
    description: "mean over exposed users of each user's sum of numeric_value (0 for users without one)",
    stats: 'mean',
    present: (agg) => agg.users_with_numeric > 0,
    suff: (n, agg) => ({ n, sum: agg.sum, sumSquares: agg.sum_squares }),
  },
} as const satisfies Record<string, MetricKindDef>;

export type MetricKindName = keyof typeof METRIC_KINDS;

const NAMES = Object.keys(METRIC_KINDS) as MetricKindName[];

export const MetricKindSchema = Type.Union(
  NAMES.map((name) => Type.Literal(name)),
  {
    description: NAMES.map((name) => `${name}: ${METRIC_KINDS[name].description}`).join('; '),
  },
);
