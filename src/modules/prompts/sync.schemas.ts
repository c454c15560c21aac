import { Type, type Static } from '@sinclair/typebox';
import { Nullable, VersionNumber } from '../../lib/schemas.js';
import { PromptFileSchema } from '../../promptFiles/schema.js';

const PROMPT_ID_PATTERN = '^[A-Za-z0-9_.-]{1,128}$';

/** What a pull saw of one prompt (`.promptline-state.json`): a push's changes are judged against it. */
const PullBaseSchema = Type.Object({
  latest_version: Nullable(VersionNumber()),
  labels: Type.Record(Type.String({ maxLength: 64 }), VersionNumber(), { maxProperties: 100 }),
});

export const SyncBody = Type.Object({
  files: Type.Array(
    Type.Object({
      path: Type.String({ minLength: 1, maxLength: 1000, description: "the file's path in its Git repository (recorded as the versions' source)" }),
      document: PromptFileSchema,
    }),
    { maxItems: 1000 },
  ),
  bases: Type.Optional(Type.Record(Type.String({ pattern: PROMPT_ID_PATTERN }), PullBaseSchema, { default: {}, maxProperties: 1000 })),
  dry_run: Type.Optional(Type.Boolean({ default: false, description: 'only answer the plan' })),
  allow_breaking: Type.Optional(Type.Boolean({ default: false, description: 'apply even if the served version would break callers' })),
  source: Type.Optional(
    Type.Object({
      commit: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
      author: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
    }),
  ),
});
export type SyncInput = Static<typeof SyncBody>;

const PromptPlanSchema = Type.Object({
  prompt_id: Type.String(),
  path: Type.String(),
  action: Type.Union([Type.Literal('create_prompt'), Type.Literal('new_version'), Type.Literal('unchanged')]),
  version: Type.Integer({ description: 'the version holding the content: existing, or the number the push gives it' }),
  label_moves: Type.Array(Type.Object({ label: Type.String(), from: Nullable(Type.Integer()), to: Type.Integer() })),
  served: Type.Object({ before: Nullable(Type.Integer()), after: Nullable(Type.Integer()), new_required: Type.Array(Type.String()) }),
  conflicts: Type.Array(Type.String()),
  breaking: Type.Array(Type.String()),
});

export const SyncResponse = Type.Object({
  dry_run: Type.Boolean(),
  applied: Type.Boolean({ description: 'true when the changes were made (never on a dry run)' }),
  changes: Type.Integer({ description: 'prompts the push changes (or changed)' }),
  prompts: Type.Array(PromptPlanSchema),
  /** After an applied push: each pushed prompt's latest version and labels, the pull base to keep. */
  state: Type.Record(Type.String(), PullBaseSchema),
});
export type SyncView = Static<typeof SyncResponse>;
