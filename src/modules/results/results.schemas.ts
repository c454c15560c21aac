import { Type, type Static } from '@sinclair/typebox';
import { Nullable } from '../../lib/schemas.js';
import { StatusSchema } from '../experiments/experiments.schemas.js';
import { MetricKindSchema } from './metricKinds.js';

export const ResultsQuery = Type.Object({
  sequential: Type.Optional(Type.Boolean({ default: false, description: 'always-valid intervals and p-values (safe to look every day)' })),
  prior: Type.Optional(
    Type.Union([Type.Literal('flat'), Type.Literal('proper')], {
      default: 'flat',
      description: 'Bayesian prior on the relative lift: flat, or proper N(0, 0.3²)',
    }),
  ),
  format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('csv')], { default: 'json', description: 'csv: one row per metric × variant' })),
});
export type ResultsQueryInput = Static<typeof ResultsQuery>;

const Num = Nullable(Type.Number());
/** [low, high], or null when the interval is undefined for the data (never NaN). */
const Interval = Nullable(Type.Array(Type.Number(), { minItems: 2, maxItems: 2 }));

const Test = Type.Object({ lift: Num, se: Num, ci: Interval, p_value: Num, df: Num });
/** Relative intervals of a success rate never go below −1: a rate cannot fall by more than 100%. */
const RATE_CLIP = 'relative change; for a success_rate the lower bound is clipped at -1 (a rate cannot fall by more than 100%)';
const RelativeInterval = Nullable(Type.Array(Type.Number(), { minItems: 2, maxItems: 2, description: RATE_CLIP }));
const RelativeTest = Type.Object({ lift: Num, se: Num, ci: RelativeInterval, p_value: Num, df: Num });

const VerdictSchema = Type.Union([Type.Literal('not_enough_data'), Type.Literal('no_detectable_difference'), Type.Literal('better'), Type.Literal('worse')]);

const VariantSummary = Type.Object({
  key: Type.String(),
  version: Type.Integer(),
  weight: Type.Number(),
  /** Exposed users: stored assignments. */
  users: Type.Integer(),
  runs: Type.Integer(),
  errored_runs: Type.Integer(),
  latency_ms: Type.Object({ p50: Num, p95: Num }),
  tokens: Type.Object({ prompt: Type.Integer(), completion: Type.Integer(), total: Type.Integer() }),
  cost_usd: Type.Object({ total: Type.Number(), per_run: Num, per_successful_user: Num }),
});

const MetricVariant = Type.Object({
  key: Type.String(),
  users: Type.Integer(),
  users_with_event: Type.Integer(),
  /** Success rate or mean per exposed user; null with no exposed users (or sums too large to represent). */
  value: Num,
  n: Type.Integer(),
  sum: Num,
  sum_squares: Num,
  labels: Type.Record(Type.String(), Type.Integer()),
});

const ComparisonSchema = Type.Object({
  variant: Type.String(),
  control: Type.String(),
  absolute: Test,
  relative: RelativeTest,
  p_value_adjusted: Num,
  bayes: Type.Object({ chance_to_win: Num, ci: RelativeInterval }),
  sequential: Type.Optional(Type.Object({ ci: RelativeInterval, p_value: Num })),
  enough_data: Type.Boolean(),
  reason: Type.Optional(Type.String()),
  verdict: VerdictSchema,
  verdict_text: Type.String(),
});
export type ComparisonView = Static<typeof ComparisonSchema>;

const MetricSchema = Type.Object({
  event_type: Type.String(),
  kind: MetricKindSchema,
  primary: Type.Boolean(),
  variants: Type.Array(MetricVariant),
  comparisons: Type.Array(ComparisonSchema),
});
export type MetricView = Static<typeof MetricSchema>;

const TimeseriesPoint = Type.Object({
  date: Type.String(),
  variants: Type.Record(Type.String(), Type.Object({ exposures: Type.Integer(), cumulative_exposures: Type.Integer(), cumulative_value: Num })),
});

export const ExperimentResultsSchema = Type.Object(
  {
    experiment_id: Type.String(),
    prompt_id: Type.String(),
    status: StatusSchema,
    control: Type.String(),
    primary_metric: Nullable(Type.Object({ event_type: Type.String(), kind: MetricKindSchema })),
    generated_at: Type.String(),
    options: Type.Object({ sequential: Type.Boolean(), prior: Type.Union([Type.Literal('flat'), Type.Literal('proper')]), alpha: Type.Number() }),
    variants: Type.Array(VariantSummary),
    metrics: Type.Array(MetricSchema),
    primary: Nullable(Type.Object({ event_type: Type.String(), kind: MetricKindSchema, mde_relative: Num })),
    health: Type.Object({
      srm: Type.Object({ chi_square: Type.Number(), df: Type.Integer(), p_value: Type.Number(), checked: Type.Boolean(), flagged: Type.Boolean() }),
      users_in_multiple_variants: Type.Integer(),
      unattributed_outcomes: Type.Integer(),
    }),
    timeseries: Type.Array(TimeseriesPoint),
  },
  { title: 'ExperimentResults' },
);
export type ExperimentResults = Static<typeof ExperimentResultsSchema>;
