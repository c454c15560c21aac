import { Type, type Static } from '@sinclair/typebox';
import { Nullable } from '../../lib/schemas.js';
import { RUNTIME_MAX } from '../runtimeLimits.js';
import { ListFilters } from '../runs/runs.schemas.js';

/** The request body of docs/runtime-contract.md, fields in declaration order (errors are reported in this order). */
export const TrackOutcomeRequest = Type.Object(
  {
    prompt_run_id: Type.Optional(Nullable(Type.String({ title: 'Prompt Run Id', maxLength: RUNTIME_MAX.promptRunId }))),
    prompt_id: Type.String({ title: 'Prompt Id', maxLength: RUNTIME_MAX.promptId }),
    external_user_id: Type.Optional(Nullable(Type.String({ title: 'External User Id', maxLength: RUNTIME_MAX.externalUserId }))),
    event_type: Type.Optional(Type.String({ default: 'outcome', title: 'Event Type', maxLength: RUNTIME_MAX.eventType })),
    label: Type.Optional(Nullable(Type.String({ title: 'Label', maxLength: RUNTIME_MAX.label }))),
    value: Type.Optional(Nullable(Type.String({ title: 'Value', maxLength: RUNTIME_MAX.value }))),
    numeric_value: Type.Optional(Nullable(Type.Number({ title: 'Numeric Value' }))),
    is_success: Type.Optional(Nullable(Type.Boolean({ title: 'Is Success' }))),
    source: Type.Optional(Nullable(Type.String({ title: 'Source', maxLength: RUNTIME_MAX.source }))),
    metadata: Type.Optional(Nullable(Type.Record(Type.String(), Type.Any(), { title: 'Metadata' }))),
  },
  {
    title: 'TrackOutcomeRequest',
    examples: [
      { prompt_id: 'welcome', prompt_run_id: 'run_0193c5a2e4b17c3d8f6a9b0c1d2e3f40', external_user_id: 'user-42', event_type: 'signup', is_success: true },
    ],
  },
);
export type TrackOutcomeInput = Static<typeof TrackOutcomeRequest>;

export const TrackOutcomeResponse = Type.Object(
  {
    outcome_id: Type.String(),
    status: Type.Literal('recorded'),
    experiment_id: Nullable(Type.String()),
    variant_assigned: Nullable(Type.String()),
  },
  { title: 'TrackOutcomeResponse' },
);
export type TrackOutcomeAnswer = Static<typeof TrackOutcomeResponse>;

const OutcomeSchema = Type.Object({
  outcome_id: Type.String(),
  prompt_id: Type.String(),
  prompt_run_id: Nullable(Type.String()),
  external_user_id: Nullable(Type.String()),
  event_type: Type.String(),
  label: Nullable(Type.String()),
  value: Nullable(Type.String()),
  numeric_value: Nullable(Type.Number()),
  is_success: Nullable(Type.Boolean()),
  source: Nullable(Type.String()),
  metadata: Nullable(Type.Record(Type.String(), Type.Any())),
  experiment_id: Nullable(Type.String()),
  variant: Nullable(Type.String()),
  attributed_by: Type.Union([Type.Literal('run'), Type.Literal('assignment'), Type.Literal('none')]),
  created_at: Type.String(),
});

export type OutcomeView = Static<typeof OutcomeSchema>;

export const ListOutcomesQuery = Type.Object({
  ...ListFilters,
  event_type: Type.Optional(Type.String({ maxLength: 128 })),
  prompt_run_id: Type.Optional(Type.String({ maxLength: 128 })),
});
export type ListOutcomesInput = Static<typeof ListOutcomesQuery>;

export const OutcomePageSchema = Type.Object({ data: Type.Array(OutcomeSchema), next_cursor: Nullable(Type.String()) });
