import { Type, type Static } from '@sinclair/typebox';
import { Nullable, PageQuery, VersionNumber } from '../../lib/schemas.js';
import { AllocationSchema, BanditSettingsInput, BanditSettingsSchema } from './bandit.schemas.js';
import { MetricInputSchema, MetricSchema, OUTCOME_KINDS } from './metrics.js';

const EXPERIMENT_ID_PATTERN = '^[A-Za-z0-9_.-]{1,128}$';
const VARIANT_KEY_PATTERN = '^[a-z0-9_-]{1,64}$';

const Variant = Type.Object({
  key: Type.String({ pattern: VARIANT_KEY_PATTERN }),
  version: VersionNumber(),
  weight: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000, default: 1 })),
});

/** A variant as stored and shown: its weight normalised so that all weights sum to 1. */
const VariantDefSchema = Type.Object({ key: Type.String(), version: Type.Integer(), weight: Type.Number() });
export type VariantDef = Static<typeof VariantDefSchema>;

const PrimaryMetric = Type.Object(
  {
    event_type: Type.String({ minLength: 1, maxLength: 128 }),
    kind: Type.Union(OUTCOME_KINDS.map((k) => Type.Literal(k))),
  },
  { description: 'shorthand for one primary outcome metric where higher is better (the same as a metrics entry with role "primary")' },
);

const editable = {
  name: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  hypothesis: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
  variants: Type.Optional(Type.Array(Variant, { minItems: 2, maxItems: 20 })),
  control: Type.Optional(Type.String({ pattern: VARIANT_KEY_PATTERN })),
  coverage: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  seed: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  primary_metric: Type.Optional(Nullable(PrimaryMetric)),
  metrics: Type.Optional(
    Type.Array(MetricInputSchema, {
      description: 'what the experiment is judged on; replaces the whole list. Cannot be given together with primary_metric',
    }),
  ),
  target_mde: Type.Optional(
    Type.Number({
      exclusiveMinimum: 0,
      maximum: 10,
      description: 'the relative effect on the primary metric worth detecting (default 0.1, i.e. 10%): sizes the "keep running" estimate',
    }),
  ),
  cuped: Type.Optional(Type.Boolean({ description: "reduce variance with each user's pre-exposure value of the same metric (CUPED); default false" })),
  cuped_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 90, description: 'how many days before first exposure CUPED looks back (default 14)' })),
};

const EXPERIMENT_TYPES = ['ab', 'rollout', 'bandit'] as const;
const ExperimentTypeSchema = Type.Union(
  EXPERIMENT_TYPES.map((t) => Type.Literal(t)),
  {
    description:
      'ab (default): an A/B test a person decides from its results; rollout: a candidate version ramped up step by step against production, rolled back by its guardrails, shipped at the end; bandit: traffic re-weighted towards the better variants',
  },
);
export type ExperimentType = Static<typeof ExperimentTypeSchema>;

const RolloutStepInput = Type.Object({
  percent: Type.Number({
    exclusiveMinimum: 0,
    maximum: 100,
    description: "share of users in the rollout at this step (the experiment's coverage); half of them are served the candidate, half production",
  }),
  min_users: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 100_000_000, description: 'exposed users (both variants, since the start) before the step may advance; default 100' }),
  ),
  min_minutes: Type.Optional(Type.Integer({ minimum: 0, maximum: 525_600, description: 'minutes the step lasts at least before it may advance; default 60' })),
});

const RolloutStepSchema = Type.Object({ percent: Type.Number(), min_users: Type.Integer(), min_minutes: Type.Integer() });

const ToleranceInput = Type.Object(
  {
    absolute: Type.Optional(Type.Number({ minimum: 0, maximum: 1e12, description: "in the metric's unit (0.02: 2 percentage points of a rate; 100: 100 ms)" })),
    relative: Type.Optional(Type.Number({ minimum: 0, maximum: 1000, description: "a share of production's value (0.1: 10%)" })),
  },
  { description: "how much worse than production the guardrail may be and still advance: the larger of absolute and relative × production's value" },
);
const ToleranceSchema = Type.Object({ absolute: Type.Optional(Type.Number()), relative: Type.Optional(Type.Number()) });
export type RolloutStep = Static<typeof RolloutStepSchema>;

/** A rollout's plan and where it is: stored as is (experiments.rollout) and shown under `rollout`. */
const RolloutStateSchema = Type.Object({
  candidate: Type.String({ description: "the candidate's variant key (the other variant, control, serves production's version)" }),
  steps: Type.Array(RolloutStepSchema),
  auto_ship: Type.Boolean({ description: "whether the last step's success moves the production label by itself (false: it waits for a person's approval)" }),
  step: Type.Integer({ description: 'the index of the current step in steps' }),
  step_started_at: Nullable(Type.String({ description: 'when the current step began (null before the start)' })),
  awaiting_approval: Type.Boolean({ description: 'the last step succeeded and auto_ship is false: stop with ship to ship the candidate' }),
  tolerances: Type.Optional(
    Type.Record(Type.String(), ToleranceSchema, {
      description: 'tolerances set for this rollout, by guardrail name; the others take the defaults (docs/rollouts-and-bandits.md)',
    }),
  ),
  evidence_since: Type.Optional(
    Nullable(
      Type.String({ description: 'since when the current step has been collecting evidence (its start, or the last resume): the pauses count from here' }),
    ),
  ),
});
export type RolloutState = Static<typeof RolloutStateSchema>;

const EndedAsSchema = Type.Union([Type.Literal('rolled_back'), Type.Literal('shipped')]);
export type EndedAs = Static<typeof EndedAsSchema>;

export const CreateExperimentBody = Type.Object({
  experiment_id: Type.Optional(Type.String({ pattern: EXPERIMENT_ID_PATTERN })),
  prompt_id: Type.String({ maxLength: 128 }),
  type: Type.Optional(ExperimentTypeSchema),
  name: editable.name,
  hypothesis: editable.hypothesis,
  variants: Type.Optional(
    Type.Array(Variant, { minItems: 2, maxItems: 20, description: 'required for ab; a rollout builds its two from production and candidate_version' }),
  ),
  candidate_version: Type.Optional(VersionNumber({ description: "rollout only: the version ramped up against the one production's label serves" })),
  steps: Type.Optional(
    Type.Array(RolloutStepInput, {
      minItems: 1,
      maxItems: 20,
      description: 'rollout only: the ramp, percents strictly increasing (default 5, 25, 50, 100)',
    }),
  ),
  auto_ship: Type.Optional(Type.Boolean({ description: "rollout only: ship when the last step succeeds (default true); false waits for a person's approval" })),
  tolerances: Type.Optional(
    Type.Record(Type.String({ minLength: 1, maxLength: 64 }), ToleranceInput, {
      description:
        'rollout only: by guardrail name, how much worse than production it may be and still advance (defaults: rates 0.2 absolute, latency 10% and at least 100 ms, others 10%)',
    }),
  ),
  bandit: Type.Optional(BanditSettingsInput),
  control: editable.control,
  coverage: editable.coverage,
  seed: editable.seed,
  primary_metric: editable.primary_metric,
  metrics: editable.metrics,
  target_mde: editable.target_mde,
  cuped: editable.cuped,
  cuped_days: editable.cuped_days,
});
export type CreateExperimentInput = Static<typeof CreateExperimentBody>;

export const PatchExperimentBody = Type.Object(editable);
export type PatchExperimentInput = Static<typeof PatchExperimentBody>;

export const StopExperimentBody = Type.Object({
  winner: Type.Optional(Nullable(Type.String({ pattern: VARIANT_KEY_PATTERN }))),
  ship: Type.Optional(
    Type.Boolean({
      default: false,
      description:
        "move the prompt's production label to the winner's version, in the same transaction as the stop; refused (409) when nobody was ever exposed, or when the results' decision does not back the winner, unless override is given",
    }),
  ),
  override: Type.Optional(
    Type.Boolean({
      default: false,
      description: 'with ship: ship even though nobody was exposed or the decision does not back the winner; needs a reason, kept in the audit log',
    }),
  ),
  reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'why the override ships against the decision (with override only)' })),
});
export type StopInput = Static<typeof StopExperimentBody>;

export const ExperimentIdParams = Type.Object({ experiment_id: Type.String({ maxLength: 128 }) });

export const StatusSchema = Type.Union(
  [Type.Literal('draft'), Type.Literal('running'), Type.Literal('paused'), Type.Literal('stopped'), Type.Literal('rolled_back'), Type.Literal('shipped')],
  { description: 'rolled_back and shipped: a rollout that ended on its own (a stopped experiment, with the reason)' },
);
/** A status as shown; the stored one is never rolled_back or shipped (ended_as says that). */
export type ExperimentStatus = Static<typeof StatusSchema>;
export type StoredStatus = Exclude<ExperimentStatus, 'rolled_back' | 'shipped'>;

export const ListExperimentsQuery = Type.Object({
  prompt_id: Type.Optional(Type.String({ maxLength: 128 })),
  status: Type.Optional(StatusSchema),
  ...PageQuery,
});
export type ListExperimentsInput = Static<typeof ListExperimentsQuery>;

export const ExperimentSchema = Type.Object({
  experiment_id: Type.String(),
  prompt_id: Type.String(),
  type: ExperimentTypeSchema,
  name: Nullable(Type.String()),
  hypothesis: Nullable(Type.String()),
  status: StatusSchema,
  reason: Nullable(Type.String({ description: 'why a rollout rolled back or shipped on its own (null otherwise)' })),
  rollout: Nullable(
    Type.Composite([RolloutStateSchema, Type.Object({ current_percent: Type.Number({ description: "the current step's percent" }) })], {
      description: "a rollout's ramp and where it is; null for other types",
    }),
  ),
  bandit: Nullable(Type.Composite([BanditSettingsSchema], { description: "a bandit's floor share and stop rule, defaults filled in; null for other types" })),
  allocation_history: Type.Optional(
    Type.Array(AllocationSchema, {
      description: "bandits only, in GET /experiments/{experiment_id}: each period's weights (period 0: the starting ones), oldest first",
    }),
  ),
  variants: Type.Array(VariantDefSchema, { description: "a bandit's weights are the current ones: new users follow them" }),
  control: Type.String(),
  coverage: Type.Number(),
  seed: Type.String(),
  primary_metric: Nullable(PrimaryMetric),
  metrics: Type.Array(MetricSchema, { description: 'what the experiment is judged on, with every default filled in' }),
  target_mde: Type.Number({ description: 'the relative effect on the primary metric worth detecting' }),
  cuped: Type.Boolean({ description: "whether results adjust outcome metrics with users' pre-exposure values" }),
  cuped_days: Type.Integer({ description: 'days before first exposure that CUPED looks back' }),
  winner: Nullable(Type.String()),
  shipped_version: Nullable(Type.Integer({ description: 'the version the production label was moved to when the experiment stopped with ship' })),
  created_at: Type.String(),
  updated_at: Type.String(),
  started_at: Nullable(Type.String()),
  stopped_at: Nullable(Type.String()),
});

export type ExperimentView = Static<typeof ExperimentSchema>;

export const ExperimentListSchema = Type.Object({ data: Type.Array(ExperimentSchema), next_cursor: Nullable(Type.String()) });
