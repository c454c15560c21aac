import { Type, type Static } from '@sinclair/typebox';
import { Nullable, PageQuery, VersionNumber } from '../../lib/schemas.js';

const EVALUATOR_ID_PATTERN = '^[A-Za-z0-9_.-]{1,128}$';
const LABEL_PATTERN = '^[a-z0-9_-]{1,64}$';

const EVALUATOR_KINDS = ['exact_match', 'contains', 'regex', 'json_schema', 'numeric', 'length', 'llm_judge'] as const;
export type EvaluatorKind = (typeof EVALUATOR_KINDS)[number];
const Kind = Type.Union(
  EVALUATOR_KINDS.map((k) => Type.Literal(k)),
  { description: 'what the evaluator checks (docs/evaluations.md lists each kind and its settings)' },
);
const Scale = Type.Union([Type.Literal('pass_fail'), Type.Literal('1-5')]);

/**
 * Every kind's settings, each optional here: which belong to the kind given, and which it
 * requires, is checked by the service (evaluatorSettings.ts), which names the field in its 422.
 */
const settingsFields = {
  case_sensitive: Type.Optional(Type.Boolean({ description: 'exact_match, contains: default true' })),
  normalize_whitespace: Type.Optional(Type.Boolean({ description: 'exact_match: trim and collapse whitespace runs first; default false' })),
  value: Type.Optional(Type.String({ minLength: 1, maxLength: 10_000, description: "contains: the text to find; default: the item's expected text" })),
  pattern: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 1000,
      description:
        'regex: JavaScript syntax (u flag) on a linear-time engine, no back-references or look-arounds; searched in the output (anchor with ^ and $ for the whole of it)',
    }),
  ),
  flags: Type.Optional(Type.String({ maxLength: 3, description: 'regex: any of i, m, s' })),
  schema: Type.Optional(
    Type.Record(Type.String(), Type.Any(), { description: 'json_schema: a JSON Schema (draft-07) the output must match; absent: valid JSON is enough' }),
  ),
  tolerance: Type.Optional(Type.Number({ minimum: 0, description: 'numeric: the largest difference that passes' })),
  relative: Type.Optional(Type.Boolean({ description: 'numeric: tolerance is a share of |expected|; default false' })),
  min_chars: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000_000, description: 'length: fewest characters (code points)' })),
  max_chars: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000_000, description: 'length: most characters (code points)' })),
  prompt_id: Type.Optional(Type.String({ maxLength: 128, description: 'llm_judge: the Promptline prompt that asks the judge' })),
  label: Type.Optional(Type.String({ pattern: LABEL_PATTERN, description: "llm_judge: the judge prompt's version by label" })),
  version: Type.Optional(VersionNumber({ description: "llm_judge: the judge prompt's version by number" })),
  scale: Type.Optional(Scale),
  rubric: Type.Optional(Type.String({ minLength: 1, maxLength: 20_000, description: "llm_judge: the judge prompt's {{rubric}} variable" })),
};
export type SettingsInput = { [K in keyof typeof settingsFields]?: Static<(typeof settingsFields)[K]> };

export const CreateEvaluatorBody = Type.Object({
  evaluator_id: Type.String({ pattern: EVALUATOR_ID_PATTERN, description: '1–128 characters of letters, digits, _ . -; unique in the project' }),
  description: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
  kind: Kind,
  ...settingsFields,
});
export type CreateEvaluatorInput = Static<typeof CreateEvaluatorBody>;

export const NewEvaluatorVersionBody = Type.Object({
  kind: Type.Optional(Kind),
  ...settingsFields,
});
export type NewEvaluatorVersionInput = Static<typeof NewEvaluatorVersionBody>;

export const EvaluatorIdParams = Type.Object({ evaluator_id: Type.String({ maxLength: 128 }) });
export const EvaluatorVersionParams = Type.Object({ evaluator_id: Type.String({ maxLength: 128 }), version: VersionNumber() });

export const ListEvaluatorsQuery = Type.Object({
  include_archived: Type.Optional(Type.Boolean({ default: false })),
  ...PageQuery,
});

const Settings = Type.Record(Type.String(), Type.Unknown(), { description: "the kind's settings, defaults filled in" });

export const EvaluatorVersionSchema = Type.Object(
  {
    evaluator_id: Type.String(),
    version: Type.Integer(),
    kind: Kind,
    scale: Type.Union([Type.Literal('pass_fail'), Type.Literal('1-5')], { description: 'pass_fail: each item scores 1 or 0; 1-5: a judge score' }),
    settings: Settings,
    created_at: Type.String(),
  },
  { title: 'EvaluatorVersion' },
);
export type EvaluatorVersionView = Static<typeof EvaluatorVersionSchema>;
export const EvaluatorVersionListSchema = Type.Object({ data: Type.Array(EvaluatorVersionSchema) });

export const EvaluatorSchema = Type.Object(
  {
    evaluator_id: Type.String(),
    kind: Kind,
    description: Nullable(Type.String()),
    latest_version: EvaluatorVersionSchema,
    created_at: Type.String(),
    archived_at: Nullable(Type.String()),
  },
  { title: 'Evaluator' },
);
export type EvaluatorView = Static<typeof EvaluatorSchema>;
export const EvaluatorPageSchema = Type.Object({ data: Type.Array(EvaluatorSchema), next_cursor: Nullable(Type.String()) });
