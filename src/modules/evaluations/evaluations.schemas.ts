import { Type, type Static } from '@sinclair/typebox';
import { Nullable, PageQuery, VersionNumber } from '../../lib/schemas.js';

const LABEL_PATTERN = '^[a-z0-9_-]{1,64}$';
/** A version number (3) or a label (`production`): checked by the service (the validator takes no union of a number and a string). */
const VersionRef = Type.Unknown({ description: 'a version number (3) or a label (`production`)' });
export const VERSION_LABEL = new RegExp(LABEL_PATTERN);

export const CreateEvaluationBody = Type.Object({
  prompt_id: Type.String({ minLength: 1, maxLength: 128, description: 'the prompt whose versions are compared' }),
  versions: Type.Array(VersionRef, {
    minItems: 2,
    maxItems: 2,
    description: '[candidate, baseline]: numbers or labels, resolved when the evaluation is made',
  }),
  dataset_id: Type.String({ minLength: 1, maxLength: 128 }),
  dataset_version: Type.Optional(VersionNumber({ description: "the dataset's version to score; default: its latest" })),
  evaluators: Type.Array(Type.String({ minLength: 1, maxLength: 128 }), {
    minItems: 1,
    maxItems: 20,
    uniqueItems: true,
    description: 'evaluator ids; each is used at its latest version, recorded in the evaluation',
  }),
  concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 32, default: 4, description: 'model calls in flight at once for this evaluation' })),
  budget_usd: Type.Optional(
    Nullable(Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000, description: 'stop claiming items once the cost reaches this (in-flight items finish)' })),
  ),
});
export type CreateEvaluationInput = Static<typeof CreateEvaluationBody>;

export const EvaluationIdParams = Type.Object({ evaluation_id: Type.String({ maxLength: 64 }) });
export const ListEvaluationsQuery = Type.Object({
  prompt_id: Type.Optional(Type.String({ maxLength: 128 })),
  ...PageQuery,
});
export const EvaluationItemsQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  cursor: Type.Optional(Type.String({ maxLength: 64, description: 'next_cursor of the previous page' })),
});

const EVALUATION_STATUSES = ['queued', 'running', 'completed', 'cancelled', 'budget_exhausted', 'failed'] as const;
export type EvaluationStatus = (typeof EVALUATION_STATUSES)[number];
const Status = Type.Union(
  EVALUATION_STATUSES.map((s) => Type.Literal(s)),
  { description: 'queued, running; then completed, cancelled, budget_exhausted (stopped at the budget) or failed' },
);

const VersionSide = Type.Object({
  ref: Type.String({ description: 'as asked: a number or a label' }),
  version: Type.Integer({ description: 'the version number it resolved to when the evaluation was made' }),
});

const Side = Type.Object({
  mean: Nullable(Type.Number({ description: 'mean score over the compared items (the pass rate for pass/fail)' })),
  pass_rate: Nullable(Type.Number({ description: 'pass/fail evaluators: the share of compared items passed; null on a 1-5 scale' })),
  errors: Type.Integer({ description: 'items this version could not be scored on (judge errors, failed calls), left out of the comparison' }),
  judge_errors: Type.Integer({ description: 'of those, items whose judge failed after its retries' }),
});

const ComparisonSchema = Type.Object(
  {
    n: Type.Integer({ description: 'items both versions were scored on' }),
    candidate: Side,
    baseline: Side,
    difference: Nullable(Type.Number({ description: 'candidate − baseline mean (pass rates for pass/fail)' })),
    ci_low: Nullable(Type.Number()),
    ci_high: Nullable(Type.Number()),
    level: Type.Number({ description: 'the confidence level of the interval' }),
    test: Type.Union([Type.Literal('mcnemar_exact'), Type.Literal('paired_t')], { description: 'which test gives p_value' }),
    p_value: Nullable(Type.Number()),
    significant: Type.Boolean({ description: 'p_value < 1 − level' }),
    verdict: Type.Union([Type.Literal('better'), Type.Literal('worse'), Type.Literal('no_difference')], {
      description: 'the candidate against the baseline: significantly better or worse, or no significant difference',
    }),
    wins: Type.Integer({ description: 'items where the candidate scored higher' }),
    ties: Type.Integer(),
    losses: Type.Integer({ description: 'items where the candidate scored lower' }),
    differing_items: Type.Array(Type.String(), { description: 'item ids where the versions scored differently, the largest difference first (up to 100)' }),
  },
  { title: 'EvaluationComparison' },
);

const EvaluatorResult = Type.Object({
  evaluator_id: Type.String(),
  version: Type.Integer(),
  kind: Type.String(),
  scale: Type.Union([Type.Literal('pass_fail'), Type.Literal('1-5')]),
  comparison: ComparisonSchema,
});

export const EvaluationSchema = Type.Object(
  {
    evaluation_id: Type.String(),
    prompt_id: Type.String(),
    status: Status,
    versions: Type.Object({ candidate: VersionSide, baseline: VersionSide }),
    dataset_id: Type.String(),
    dataset_version: Type.Integer(),
    evaluator_ids: Type.Array(Type.String()),
    concurrency: Type.Integer(),
    budget_usd: Nullable(Type.Number()),
    progress: Type.Object({
      done: Type.Integer({ description: 'work items finished (each item counts once per version)' }),
      total: Type.Integer({ description: 'items × 2 versions' }),
      cost_usd: Type.Number({ description: 'cost so far: the compared calls and the judge calls' }),
      eta_seconds: Nullable(Type.Number({ description: 'estimated seconds left while running; null otherwise' })),
    }),
    evaluators: Type.Array(EvaluatorResult, { description: 'per evaluator, the paired comparison of the two versions over the same items' }),
    error: Nullable(Type.String()),
    created_at: Type.String(),
    started_at: Nullable(Type.String()),
    finished_at: Nullable(Type.String()),
  },
  { title: 'Evaluation' },
);
export type EvaluationView = Static<typeof EvaluationSchema>;

const EvaluationSummarySchema = Type.Object(
  {
    evaluation_id: Type.String(),
    prompt_id: Type.String(),
    status: Status,
    versions: Type.Object({ candidate: VersionSide, baseline: VersionSide }),
    dataset_id: Type.String(),
    dataset_version: Type.Integer(),
    evaluator_ids: Type.Array(Type.String()),
    progress: Type.Object({ done: Type.Integer(), total: Type.Integer(), cost_usd: Type.Number() }),
    created_at: Type.String(),
    finished_at: Nullable(Type.String()),
  },
  { title: 'EvaluationSummary' },
);
export type EvaluationSummaryView = Static<typeof EvaluationSummarySchema>;
export const EvaluationPageSchema = Type.Object({ data: Type.Array(EvaluationSummarySchema), next_cursor: Nullable(Type.String()) });

export const CreatedEvaluationSchema = Type.Object({
  evaluation_id: Type.String(),
  status: Status,
  total: Type.Integer({ description: 'work items: dataset items × 2 versions' }),
});

const ScoreSchema = Type.Object({
  score: Nullable(Type.Number()),
  passed: Nullable(Type.Boolean()),
  error: Nullable(Type.String({ description: 'why the item could not be scored' })),
  judge_error: Type.Boolean({ description: 'the judge failed after its retries' }),
  reasoning: Nullable(Type.String({ description: "a judge's reasoning, or a scorer's reason" })),
});

const ItemSide = Type.Object({
  state: Type.Union([Type.Literal('pending'), Type.Literal('calling'), Type.Literal('done'), Type.Literal('interrupted'), Type.Literal('skipped')], {
    description: 'done; pending or calling while it runs; interrupted: its runner died mid-call (not called again); skipped: cancelled or out of budget',
  }),
  output: Nullable(Type.String()),
  error: Nullable(Type.String()),
  run_id: Nullable(Type.String()),
  judge_run_ids: Type.Array(Type.String()),
  cost_usd: Type.Number(),
  scores: Type.Record(Type.String(), ScoreSchema, { description: 'by evaluator id' }),
});

const EvaluationItemSchema = Type.Object(
  {
    item_id: Type.String(),
    inputs: Type.Record(Type.String(), Type.Unknown()),
    expected: Type.Unknown(),
    differs: Type.Boolean({ description: 'some evaluator scored the two versions differently' }),
    candidate: ItemSide,
    baseline: ItemSide,
  },
  { title: 'EvaluationItem' },
);
export type EvaluationItemView = Static<typeof EvaluationItemSchema>;
export const EvaluationItemPageSchema = Type.Object({
  data: Type.Array(EvaluationItemSchema, { description: "items in the dataset's order" }),
  next_cursor: Nullable(Type.String()),
});
