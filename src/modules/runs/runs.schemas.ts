import { Type, type Static } from '@sinclair/typebox';
import { Nullable, PageQuery } from '../../lib/schemas.js';
import { ModelString } from '../prompts/prompts.schemas.js';
import { ChatMessageSchema } from '../../lib/chatMessage.js';
import { RUNTIME_MAX } from '../runtimeLimits.js';

/** The request body of docs/runtime-contract.md, fields in declaration order (errors are reported in this order). */
export const RunPromptRequest = Type.Object(
  {
    prompt_id: Type.String({ title: 'Prompt Id', maxLength: RUNTIME_MAX.promptId }),
    inputs: Type.Record(Type.String(), Type.String(), { title: 'Inputs', maxProperties: RUNTIME_MAX.inputs }),
    external_user_id: Type.Optional(Nullable(Type.String({ title: 'External User Id', maxLength: RUNTIME_MAX.externalUserId }))),
  },
  { title: 'RunPromptRequest', examples: [{ prompt_id: 'welcome', inputs: { name: 'Ada' }, external_user_id: 'user-42' }] },
);
export type RunPromptInput = Static<typeof RunPromptRequest>;

export const RunPromptResponse = Type.Object(
  {
    run_id: Type.String({ title: 'Run Id' }),
    output: Type.String({ title: 'Output' }),
    model_used: Type.String({ title: 'Model Used' }),
    latency_ms: Type.Integer({ title: 'Latency Ms' }),
    prompt_tokens: Type.Integer({ title: 'Prompt Tokens' }),
    completion_tokens: Type.Integer({ title: 'Completion Tokens' }),
    total_tokens: Type.Integer({ title: 'Total Tokens' }),
    token_cost_usd: Type.Number({ title: 'Token Cost Usd' }),
    variant_assigned: Nullable(Type.String({ title: 'Variant Assigned' })),
    experiment_id: Nullable(Type.String({ title: 'Experiment Id' })),
    prompt_version: Type.Integer({ title: 'Prompt Version' }),
  },
  { title: 'RunPromptResponse' },
);
export type RunAnswer = Static<typeof RunPromptResponse>;

/** The filters of the run list; the outcome list has the same and a few more. */
export const ListFilters = {
  prompt_id: Type.Optional(Type.String({ maxLength: 128 })),
  experiment_id: Type.Optional(Type.String({ maxLength: 128 })),
  variant: Type.Optional(Type.String({ maxLength: 64 })),
  external_user_id: Type.Optional(Type.String({ maxLength: 1024 })),
  since: Type.Optional(Type.String({ format: 'date-time', maxLength: 64 })),
  until: Type.Optional(Type.String({ format: 'date-time', maxLength: 64 })),
  ...PageQuery,
};

const RunSourceSchema = Type.Union([Type.Literal('api'), Type.Literal('playground'), Type.Literal('evaluation')], {
  description:
    "'api': served by POST /run_prompt; 'playground': a trial run of a chosen version (POST /prompts/{prompt_id}/versions/{version}/run); 'evaluation': a call made by an evaluation (POST /evaluations)",
});

export const ListRunsQuery = Type.Object({
  ...ListFilters,
  status: Type.Optional(Type.Union([Type.Literal('ok'), Type.Literal('error'), Type.Literal('cancelled')])),
  source: Type.Optional(RunSourceSchema),
});
export type ListRunsInput = Static<typeof ListRunsQuery>;

const AttemptSchema = Type.Object({
  model: Type.String(),
  attempt: Type.Integer(),
  status: Nullable(Type.Integer()),
  error: Nullable(Type.String()),
  latency_ms: Type.Integer(),
});

export const RunSchema = Type.Object({
  run_id: Type.String(),
  prompt_id: Type.String(),
  prompt_version: Type.Integer(),
  experiment_id: Nullable(Type.String()),
  variant: Nullable(Type.String()),
  external_user_id: Nullable(Type.String()),
  inputs: Type.Record(Type.String(), Type.Any()),
  rendered_prompt: Type.String(),
  messages: Type.Array(ChatMessageSchema),
  output: Nullable(Type.String()),
  model_requested: Type.String(),
  model_used: Nullable(Type.String()),
  prompt_tokens: Type.Integer(),
  completion_tokens: Type.Integer(),
  total_tokens: Type.Integer(),
  cached_tokens: Type.Integer(),
  reasoning_tokens: Type.Integer(),
  tokens_estimated: Type.Boolean(),
  token_cost_usd: Type.Number(),
  cost_known: Type.Boolean(),
  price: Nullable(Type.Record(Type.String(), Type.Any())),
  latency_ms: Type.Integer(),
  ttft_ms: Nullable(
    Type.Integer({ description: 'a streamed run (docs/streaming.md): milliseconds from the request to the first token; null when the run was not streamed' }),
  ),
  status: Type.Union([Type.Literal('ok'), Type.Literal('error'), Type.Literal('cancelled')], {
    description:
      'ok; error: the model call failed (before or during a stream); cancelled: a streamed run whose client went away before it ended (output and tokens are what came until then)',
  }),
  error: Nullable(Type.String()),
  attempts: Type.Array(AttemptSchema),
  created_at: Type.String(),
  source: RunSourceSchema,
});

export type RunView = Static<typeof RunSchema>;

/**
 * A run in `GET /runs`: its large fields left out (docs/management-api.md, "List pages"), named in
 * `truncated`; `GET /runs/{run_id}` gives them whole.
 */
const RunListItemSchema = Type.Composite([
  RunSchema,
  Type.Object({
    truncated: Type.Array(
      Type.Union([Type.Literal('inputs'), Type.Literal('rendered_prompt'), Type.Literal('messages'), Type.Literal('output'), Type.Literal('error')]),
      {
        description:
          'fields left out of this list because they are stored in more than 8192 bytes: shown empty ({}, "", []); [] when the run is whole. GET /runs/{run_id} gives them whole.',
      },
    ),
  }),
]);
export type RunListItem = Static<typeof RunListItemSchema>;

export const RunPageSchema = Type.Object({ data: Type.Array(RunListItemSchema), next_cursor: Nullable(Type.String()) });
export const RunIdParams = Type.Object({ run_id: Type.String({ maxLength: 128 }) });

/** A trial run of one version: any inputs a template reads (numbers, lists, objects), maybe on another model. */
export const PlaygroundRunBody = Type.Object({
  inputs: Type.Optional(Type.Record(Type.String(), Type.Any(), { default: {}, maxProperties: RUNTIME_MAX.inputs })),
  model: Type.Optional(
    Nullable({
      ...ModelString,
      description: "runs on this model instead of the version's (and without the version's fallbacks); checked as a version's model is",
    }),
  ),
  external_user_id: Type.Optional(Nullable(Type.String({ maxLength: RUNTIME_MAX.externalUserId }))),
});
export type PlaygroundRunInput = Static<typeof PlaygroundRunBody>;

export const StatsQuery = Type.Object({
  since: Type.Optional(Type.String({ format: 'date-time', maxLength: 64, description: 'start of the window, included; default until − 7 days' })),
  until: Type.Optional(Type.String({ format: 'date-time', maxLength: 64, description: 'end of the window, excluded; default now' })),
});
export type StatsInput = Static<typeof StatsQuery>;

const VersionStatsSchema = Type.Object({
  version: Type.Integer(),
  runs: Type.Integer(),
  errors: Type.Integer(),
  error_rate: Type.Number(),
  latency_ms_p50: Nullable(Type.Integer({ description: 'nearest-rank median latency of the runs that succeeded; null when none did' })),
  latency_ms_p95: Nullable(Type.Integer({ description: 'nearest-rank 95th percentile latency of the runs that succeeded; null when none did' })),
  prompt_tokens: Type.Integer(),
  completion_tokens: Type.Integer(),
  total_tokens: Type.Integer(),
  cost_usd: Type.Number(),
});

export const PromptStatsSchema = Type.Object({
  prompt_id: Type.String(),
  since: Type.String(),
  until: Type.String(),
  versions: Type.Array(VersionStatsSchema, {
    description: 'each version with served runs in the window, newest version first; playground runs are not counted',
  }),
});
export type PromptStats = Static<typeof PromptStatsSchema>;
