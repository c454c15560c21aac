import { Type, type Static } from '@sinclair/typebox';
import { ChatMessageSchema } from '../../lib/chatMessage.js';
import { Nullable, PageQuery, VersionNumber } from '../../lib/schemas.js';
import { RUNTIME_MAX } from '../runtimeLimits.js';
import { MAX_DECLARED_VARIABLES, MAX_DESCRIPTION_LENGTH, MAX_ENUM_VALUES, MAX_PATTERN_LENGTH } from './variableDeclarations.js';

const PROMPT_ID_PATTERN = '^[A-Za-z0-9_.-]{1,128}$';
const LABEL_PATTERN = '^[a-z0-9_-]{1,64}$';
const MODEL_PATTERN = '^[A-Za-z0-9_.-]+/\\S+$';

export const PromptIdParams = Type.Object({ prompt_id: Type.String({ maxLength: 128 }) });
export const VersionParams = Type.Object({ prompt_id: Type.String({ maxLength: 128 }), version: VersionNumber() });
export const LabelParams = Type.Object({ prompt_id: Type.String({ maxLength: 128 }), label: Type.String({ pattern: LABEL_PATTERN }) });

/** The request bodies of docs/runtime-contract.md, fields in declaration order (errors are reported in this order). */
export const GetPromptRequest = Type.Object(
  {
    prompt_id: Type.String({ title: 'Prompt Id', maxLength: RUNTIME_MAX.promptId }),
    inputs: Type.Optional(Type.Record(Type.String(), Type.Any(), { default: {}, title: 'Inputs', maxProperties: RUNTIME_MAX.inputs })),
    external_user_id: Type.Optional(Nullable(Type.String({ title: 'External User Id', maxLength: RUNTIME_MAX.externalUserId }))),
  },
  { title: 'GetPromptRequest', examples: [{ prompt_id: 'welcome', inputs: { name: 'Ada' }, external_user_id: 'user-42' }] },
);
export type GetPromptInput = Static<typeof GetPromptRequest>;

export const GetPromptResponse = Type.Object(
  {
    prompt_text: Type.String(),
    variant_assigned: Nullable(Type.String()),
    experiment_id: Nullable(Type.String()),
    prompt_version: Type.Integer(),
    messages: Type.Optional(Type.Array(ChatMessageSchema)),
  },
  { title: 'GetPromptResponse' },
);
export type GetPromptAnswer = Static<typeof GetPromptResponse>;

export const RenderBody = Type.Object({
  inputs: Type.Optional(Type.Record(Type.String(), Type.Any(), { default: {}, maxProperties: RUNTIME_MAX.inputs })),
});

export const RenderResponse = Type.Object({
  prompt_id: Type.String(),
  version: Type.Integer(),
  prompt_text: Type.String({ description: 'text prompts: the rendered text; chat prompts: "{role}: {content}" blocks separated by a blank line' }),
  messages: Type.Array(ChatMessageSchema, { description: 'as they would be sent to the model (a text prompt is one user message)' }),
});
export type RenderAnswer = Static<typeof RenderResponse>;

export const ModelString = Type.String({ pattern: MODEL_PATTERN, maxLength: 200 });

/** One declared variable (docs/management-api.md, "Typed variables"); unknown keys are refused. */
const VariableDeclarationSchema = Type.Object(
  {
    required: Type.Optional(Type.Boolean({ description: 'default true; an optional variable absent from the inputs renders its default' })),
    description: Type.Optional(Type.String({ maxLength: MAX_DESCRIPTION_LENGTH })),
    enum: Type.Optional(Type.Array(Type.String(), { maxItems: MAX_ENUM_VALUES, description: 'the only values accepted' })),
    pattern: Type.Optional(
      Type.String({
        maxLength: MAX_PATTERN_LENGTH,
        description: 'a regular expression (JavaScript, u flag) the value must contain a match of (search semantics: anchor it with ^…$ for the whole value)',
      }),
    ),
    min_length: Type.Optional(Type.Integer({ minimum: 0, description: 'in Unicode code points' })),
    max_length: Type.Optional(Type.Integer({ minimum: 0, description: 'in Unicode code points' })),
    default: Type.Optional(Type.String({ description: 'optional variables only; must satisfy the constraints; absent: ""' })),
  },
  { additionalProperties: false },
);

const DeclaredVariablesSchema = Type.Record(Type.String(), VariableDeclarationSchema, {
  maxProperties: MAX_DECLARED_VARIABLES,
  description:
    'typed variables: every top-level name the templates use, each declared (all string inputs), checked on every runtime call. Absent: no declarations, inputs are not checked beyond the template.',
});

/** The content of a version; shared by prompt creation (version 1) and new versions. */
const versionFields = {
  variables: Type.Optional(DeclaredVariablesSchema),
  template: Type.Optional(Type.String({ maxLength: 100_000 })),
  messages: Type.Optional(Type.Array(ChatMessageSchema, { minItems: 1, maxItems: 100 })),
  model: Type.Optional(Nullable(ModelString)),
  params: Type.Optional(Type.Record(Type.String(), Type.Any())),
  fallbacks: Type.Optional(Type.Array(ModelString, { maxItems: 5 })),
  commit_message: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
  labels: Type.Optional(Type.Array(Type.String({ pattern: LABEL_PATTERN }), { maxItems: 20 })),
};

export const CreatePromptBody = Type.Object({
  prompt_id: Type.String({ pattern: PROMPT_ID_PATTERN }),
  description: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
  ...versionFields,
});
export type CreatePromptInput = Static<typeof CreatePromptBody>;

export const CreateVersionBody = Type.Object(versionFields);
export type VersionInput = Static<typeof CreateVersionBody>;

export const MoveLabelBody = Type.Object({ version: VersionNumber() });

export const ListPromptsQuery = Type.Object({
  ...PageQuery,
  include_archived: Type.Optional(Type.Boolean({ default: false })),
});

export const VersionSchema = Type.Object({
  prompt_id: Type.String(),
  version: Type.Integer(),
  type: Type.Union([Type.Literal('text'), Type.Literal('chat')]),
  template: Nullable(Type.String()),
  messages: Nullable(Type.Array(ChatMessageSchema)),
  model: Nullable(Type.String()),
  params: Type.Record(Type.String(), Type.Any()),
  fallbacks: Type.Array(Type.String()),
  variables: Type.Array(Type.String(), { description: 'the top-level names the templates use' }),
  declared_variables: Nullable(
    Type.Record(Type.String(), VariableDeclarationSchema, { description: 'the typed variables as stored (`required` always present); null: none declared' }),
  ),
  commit_message: Nullable(Type.String()),
  labels: Type.Array(Type.String()),
  created_at: Type.String(),
});

export const PromptSchema = Type.Object({
  prompt_id: Type.String(),
  description: Nullable(Type.String()),
  latest_version: Nullable(Type.Integer()),
  labels: Type.Record(Type.String(), Type.Integer()),
  created_at: Type.String(),
  archived_at: Nullable(Type.String()),
});

export type PromptView = Static<typeof PromptSchema>;
export type VersionView = Static<typeof VersionSchema>;

export const PromptWithVersionSchema = Type.Composite([PromptSchema, Type.Object({ version: Nullable(VersionSchema) })]);
export const PromptPageSchema = Type.Object({ data: Type.Array(PromptSchema), next_cursor: Nullable(Type.String()) });
export const VersionListSchema = Type.Object({ data: Type.Array(VersionSchema) });
