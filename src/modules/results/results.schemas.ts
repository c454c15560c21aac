import { BanditReportSchema } from '../experiments/bandit.schemas.js';
import { Type, type Static } from '@sinclair/typebox';
import { Nullable } from '../../lib/schemas.js';
import { StatusSchema } from '../experiments/experiments.schemas.js';
import { DirectionSchema, MetricKindSchema } from '../experiments/metrics.js';

export const ResultsQuery = Type.Object({
  sequential: Type.Optional(Type.Boolean({ default: false, description: 'always-valid intervals and p-values (safe to look every day)' })),
  prior: Type.Optional(
    Type.Union([Type.Literal('flat'), Type.Literal('proper')], {
      default: 'flat',
      description: 'Bayesian prior on the relative lift: flat, or proper N(0, 0.3²)',
    }),
  ),
  explore: Type.Optional(
    Type.Boolean({
      description:
        'also report event types that no metric declares, under exploratory, each unadjusted and never part of a decision (default: true only when the experiment declares no goal metric)',
    }),
  ),
  cuped: Type.Optional(
    Type.Boolean({ description: "adjust declared outcome metrics with users' pre-exposure values (default: the experiment's cuped setting)" }),
  ),
  format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('csv')], { default: 'json', description: 'csv: one row per metric × variant' })),
});

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
  render_failures: Type.Integer({
    description:
      "calls of the variant's users that failed to render its version (422: a missing variable, or the render budget): errors with no run, counted in error_rate too",
  }),
  latency_ms: Type.Object({ p50: Num, p95: Num }),
  tokens: Type.Object({ prompt: Type.Integer(), completion: Type.Integer(), total: Type.Integer() }),
  cost_usd: Type.Object({ total: Type.Number(), per_run: Num, per_successful_user: Num }),
});

const MetricVariant = Type.Object({
  key: Type.String(),
  users: Type.Integer({ description: 'exposed users of the variant' }),
  users_with_event: Type.Integer({ description: 'users with any outcome of the event type (any run, for a runs metric)' }),
  value: Nullable(Type.Number({ description: 'the metric: a success rate, or a mean per user; null without users' })),
  adjusted_value: Type.Optional(Type.Number({ description: "CUPED only: the value adjusted for the variant's pre-exposure mean" })),
  n: Type.Integer({ description: 'users the metric is over: exposed users (outcome metrics) or users with runs (runs metrics)' }),
  sum: Nullable(Type.Number({ description: "Σ of the users' values (capped when a cap is set)" })),
  sum_squares: Nullable(Type.Number({ description: "Σ of the squares of the users' values" })),
  labels: Type.Record(Type.String(), Type.Integer(), { description: 'outcomes of the event type per label' }),
});

const ComparisonSchema = Type.Object({
  variant: Type.String(),
  control: Type.String(),
  absolute: Test,
  relative: RelativeTest,
  p_value_adjusted: Nullable(
    Type.Number({
      description: 'goal metrics only: the decision p-value Holm-adjusted across goal metrics × variants; null for guardrails and exploratory metrics',
    }),
  ),
  p_value_worse: Type.Optional(
    Nullable(Type.Number({ description: "guardrails only: one-sided p-value of 'got worse' in the metric's direction, unadjusted" })),
  ),
  bayes: Type.Object({ chance_to_win: Nullable(Type.Number({ description: "chance of being better in the metric's direction" })), ci: RelativeInterval }),
  sequential: Type.Optional(Type.Object({ ci: RelativeInterval, p_value: Num })),
  enough_data: Type.Boolean(),
  reason: Type.Optional(Type.String()),
  verdict: VerdictSchema,
  verdict_text: Type.String(),
  unadjusted: Type.Optional(
    Type.Object({ absolute: Test, relative: RelativeTest }, { description: 'CUPED only: the same comparison without the adjustment, side by side' }),
  ),
  verdict_p_value: Nullable(
    Type.Number({ description: 'the one p-value the verdict and its text read (null when there is not enough data); verdict_p_kind says which it is' }),
  ),
  verdict_p_kind: Type.Union(
    [
      Type.Literal('holm_adjusted'),
      Type.Literal('sequential_holm_adjusted'),
      Type.Literal('one_sided_worse'),
      Type.Literal('unadjusted'),
      Type.Literal('sequential_unadjusted'),
    ],
    {
      description:
        'goal metrics: the relative p-value (sequential with sequential=true) Holm-adjusted, as p_value_adjusted; guardrails: p_value_worse; exploratory: the relative or sequential p-value, unadjusted',
    },
  ),
});
export type ComparisonView = Static<typeof ComparisonSchema>;

const MetricSchema = Type.Object({
  name: Type.String({ description: 'the declared name, or "<event_type>:<kind>" / "runs:<kind>" / "<evaluator>:<kind>"' }),
  source: Type.Union([Type.Literal('outcomes'), Type.Literal('runs'), Type.Literal('evaluator')], {
    description: "outcomes the app tracks, what Promptline measured on runs, or an evaluator's online scores",
  }),
  event_type: Nullable(Type.String({ description: 'null for runs and evaluator metrics' })),
  evaluator: Type.Optional(Type.String({ description: 'evaluator metrics only: whose online scores' })),
  kind: MetricKindSchema,
  role: Type.Union([Type.Literal('primary'), Type.Literal('secondary'), Type.Literal('guardrail'), Type.Literal('exploratory')], {
    description: 'exploratory: an event type no metric declares, reported only with explore',
  }),
  direction: DirectionSchema,
  primary: Type.Boolean({ description: 'true for the primary metric' }),
  cap: Nullable(
    Type.Object(
      { value: Num, percentile: Nullable(Type.Number()) },
      { description: 'the cap applied to per-user values (null value: a percentile cap with no users yet)' },
    ),
  ),
  cuped: Nullable(
    Type.Object(
      {
        theta: Num,
        variance_reduction: Nullable(Type.Number({ description: 'share of the per-user variance the adjustment removed' })),
        users_with_pre_data: Type.Integer(),
        days: Type.Integer(),
        applied: Type.Boolean({ description: 'false when no user had pre-exposure data with variation: the comparison is unadjusted' }),
      },
      { description: 'CUPED (pre-exposure covariate) for this metric, when on' },
    ),
  ),
  variants: Type.Array(MetricVariant),
  comparisons: Type.Array(ComparisonSchema),
});
export type MetricView = Static<typeof MetricSchema>;

const DecisionSchema = Type.Object({
  variant: Type.String(),
  decision: Type.Union([Type.Literal('ship'), Type.Literal('rollback'), Type.Literal('keep_running'), Type.Literal('unhealthy')], {
    description:
      'unhealthy: sample-ratio mismatch or > 1% of users in several variants (never ship); rollback: the primary or a guardrail got worse; ship: the primary got better; keep_running: not decided yet',
  }),
  reason: Type.String({ description: 'the decision in one sentence' }),
  users_needed: Nullable(
    Type.Integer({ description: 'keep_running: more exposed users needed to detect the target effect on the primary at 80% power (0: already enough)' }),
  ),
  days_needed: Nullable(Type.Number({ description: 'keep_running: users_needed at the exposure rate so far, in days' })),
});
export type DecisionView = Static<typeof DecisionSchema>;

const TimeseriesPoint = Type.Object({
  date: Type.String({ description: 'the UTC day (YYYY-MM-DD) of the period; hourly points of one day share it' }),
  start: Type.String({ description: "the period's start, a UTC timestamp: midnight for a daily point, the hour for an hourly one" }),
  variants: Type.Record(Type.String(), Type.Object({ exposures: Type.Integer(), cumulative_exposures: Type.Integer(), cumulative_value: Num })),
});

export const ExperimentResultsSchema = Type.Object(
  {
    experiment_id: Type.String(),
    prompt_id: Type.String(),
    status: StatusSchema,
    control: Type.String(),
    primary_metric: Nullable(Type.Object({ event_type: Type.String(), kind: MetricKindSchema })),
    decisions: Type.Array(DecisionSchema, { description: 'per treatment variant: what to do, and why in one sentence' }),
    generated_at: Type.String(),
    options: Type.Object({
      sequential: Type.Boolean(),
      prior: Type.Union([Type.Literal('flat'), Type.Literal('proper')]),
      alpha: Type.Number(),
      explore: Type.Boolean(),
      cuped: Type.Boolean(),
      target_mde: Type.Number(),
    }),
    variants: Type.Array(VariantSummary),
    metrics: Type.Array(MetricSchema, { description: 'goal metrics: the primary first, then the secondaries; Holm-corrected together' }),
    guardrails: Type.Array(MetricSchema, { description: "metrics that must not get worse: tested one-sided for 'worse', each on its own" }),
    exploratory: Type.Array(MetricSchema, {
      description: 'undeclared event types (with explore): unadjusted, for exploration only; they never change a verdict or a decision',
    }),
    primary: Nullable(Type.Object({ name: Type.String(), event_type: Nullable(Type.String()), kind: MetricKindSchema, mde_relative: Num })),
    health: Type.Object({
      srm: Type.Object(
        { chi_square: Type.Number(), df: Type.Integer(), p_value: Type.Number(), checked: Type.Boolean(), flagged: Type.Boolean() },
        { description: "exposures against the weights; a bandit's against the weights in force in each period (bandit.srm)" },
      ),
      users_in_multiple_variants: Type.Integer(),
      unattributed_outcomes: Type.Integer(),
    }),
    timeseries_granularity: Type.Union([Type.Literal('hour'), Type.Literal('day')], {
      description: "the time series' periods: hour while the experiment has run less than 3 days (start to stop, or to now), else day",
    }),
    timeseries: Type.Array(TimeseriesPoint, {
      description: 'per period of first exposure (timeseries_granularity), first to last, gaps filled: exposures and the cumulative primary metric per variant',
    }),
    bandit: Type.Optional(BanditReportSchema),
  },
  { title: 'ExperimentResults' },
);
export type ExperimentResults = Static<typeof ExperimentResultsSchema>;
