import { Type, type Static } from '@sinclair/typebox';
import { Nullable } from '../../lib/schemas.js';

export const AttachBody = Type.Object({
  evaluator_id: Type.String({
    minLength: 1,
    maxLength: 128,
    description:
      'the evaluator that scores the sampled runs (contains with a value, regex, json_schema, length, or llm_judge: a model call per sampled run, which costs)',
  }),
  sample_rate: Type.Number({
    exclusiveMinimum: 0,
    maximum: 1,
    description: 'the share of live runs scored, 0 < rate ≤ 1 (0.05: one run in twenty); each run is in or out by a hash of its id',
  }),
});
export type AttachInput = Static<typeof AttachBody>;

export const OnlineEvaluatorSchema = Type.Object(
  {
    prompt_id: Type.String(),
    evaluator_id: Type.String(),
    sample_rate: Type.Number(),
    created_at: Type.String({ description: 'runs made from then on are scored' }),
  },
  { title: 'OnlineEvaluator' },
);
export type OnlineEvaluatorView = Static<typeof OnlineEvaluatorSchema>;
export const OnlineEvaluatorListSchema = Type.Object({ data: Type.Array(OnlineEvaluatorSchema) });

export const PromptParams = Type.Object({ prompt_id: Type.String({ maxLength: 128 }) });
export const AttachmentParams = Type.Object({ prompt_id: Type.String({ maxLength: 128 }), evaluator_id: Type.String({ maxLength: 128 }) });
export const RunParams = Type.Object({ run_id: Type.String({ maxLength: 128 }) });

export const RunScoreListSchema = Type.Object({
  run_id: Type.String(),
  data: Type.Array(
    Type.Object(
      {
        evaluator_id: Type.String(),
        evaluator_version: Type.Integer({ description: 'the version that scored the run (the latest when it was scored)' }),
        score: Nullable(Type.Number({ description: "1 or 0 (pass/fail), or a judge's 1–5; null when the run could not be scored" })),
        passed: Nullable(Type.Boolean()),
        error: Nullable(Type.String({ description: "why the run could not be scored (a judge's: 'judge error after 3 attempts: …')" })),
        reasoning: Nullable(Type.String({ description: "a judge's reasoning, when it gave one" })),
        cost_usd: Type.Number({ description: "what scoring the run cost: a judge's model calls, every attempt (0 for the other kinds)" }),
        judge_run_ids: Type.Array(Type.String(), { description: "a judge's runs (source evaluation), one per attempt that reached the model" }),
        created_at: Type.String(),
      },
      { title: 'RunScore' },
    ),
  ),
});
