import { Type, type Static } from '@sinclair/typebox';
import { ChatMessageSchema } from '../../lib/chatMessage.js';
import { Nullable, PageQuery, renderedOnly, VersionNumber } from '../../lib/schemas.js';
import { RUNTIME_MAX } from '../runtimeLimits.js';
import { DeclaredVariablesSchema, VariableDeclarationSchema } from '../../lib/variableDeclaration.js';
import { ResponseFormatSchema, ToolChoiceSchema, ToolSchema } from '../../lib/modelConfig.js';

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
    inputs: Type.Optional(renderedOnly(Type.Record(Type.String(), Type.Any(), { default: {}, title: 'Inputs', maxProperties: RUNTIME_MAX.inputs }))),
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
  inputs: Type.Optional(renderedOnly(Type.Record(Type.String(), Type.Any(), { default: {}, maxProperties: RUNTIME_MAX.inputs }))),
});

export const RenderResponse = Type.Object({
  prompt_id: Type.String(),
  version: Type.Integer(),
  prompt_text: Type.String({ description: 'text prompts: the rendered text; chat prompts: "{role}: {content}" blocks separated by a blank line' }),
  messages: Type.Array(ChatMessageSchema, { description: 'as they would be sent to the model (a text prompt is one user message)' }),
});
export type RenderAnswer = Static<typeof RenderResponse>;

export const ModelString = Type.String({ pattern: MODEL_PATTERN, maxLength: 200 });

/** Where a version came from: a push of prompt files records the file, the commit and its author (docs/prompts-as-code.md). */
const VersionSourceInput = Type.Object({
  path: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
  commit: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  author: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
});
const VersionSourceSchema = Type.Object({ path: Nullable(Type.String()), commit: Nullable(Type.String()), author: Nullable(Type.String()) });

/** The content of a version; shared by prompt creation (version 1) and new versions. */
const versionFields = {
  variables: Type.Optional(DeclaredVariablesSchema),
  template: Type.Optional(Type.String({ maxLength: 100_000 })),
  messages: Type.Optional(Type.Array(ChatMessageSchema, { minItems: 1, maxItems: 100 })),
  model: Type.Optional(Nullable(ModelString)),
  params: Type.Optional(Type.Record(Type.String(), Type.Any())),
  fallbacks: Type.Optional(Type.Array(ModelString, { maxItems: 5 })),
  tools: Type.Optional(Nullable(Type.Array(ToolSchema, { description: 'functions the model may call; /run_prompt answers its calls in `tool_calls`' }))),
  tool_choice: Type.Optional(Nullable(ToolChoiceSchema)),
  response_format: Type.Optional(Nullable(ResponseFormatSchema)),
  commit_message: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
  labels: Type.Optional(Type.Array(Type.String({ pattern: LABEL_PATTERN }), { maxItems: 20 })),
  source: Type.Optional(Nullable(VersionSourceInput)),
};

export const CreatePromptBody = Type.Object({
  prompt_id: Type.String({ pattern: PROMPT_ID_PATTERN }),
  description: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
  ...versionFields,
});
export type CreatePromptInput = Static<typeof CreatePromptBody>;

export const CreateVersionBody = Type.Object(versionFields);
export type VersionInput = Static<typeof CreateVersionBody>;

/** PATCH /prompts/{id}: at least one field (the service says so when none is given). */
export const PatchPromptBody = Type.Object({
  managed_in_git: Type.Optional(Type.Boolean()),
  description: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
});
export type PromptPatch = Static<typeof PatchPromptBody>;

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
  tools: Type.Optional(Type.Array(ToolSchema, { description: 'present only when the version has tools' })),
  tool_choice: Type.Optional(ToolChoiceSchema),
  response_format: Type.Optional(ResponseFormatSchema),
  variables: Type.Array(Type.String(), { description: 'the top-level names the templates use' }),
  declared_variables: Nullable(
    Type.Record(Type.String(), VariableDeclarationSchema, { description: 'the typed variables as stored (`required` always present); null: none declared' }),
  ),
  commit_message: Nullable(Type.String()),
  labels: Type.Array(Type.String()),
  created_at: Type.String(),
  source: Nullable(VersionSourceSchema),
});

export const PromptSchema = Type.Object({
  prompt_id: Type.String(),
  description: Nullable(Type.String()),
  latest_version: Nullable(Type.Integer()),
  labels: Type.Record(Type.String(), Type.Integer()),
  created_at: Type.String(),
  archived_at: Nullable(Type.String()),
  managed_in_git: Type.Boolean({
    description:
      'its versions are authored in a Git repository: the console warns before an edit there (it would show as a conflict in `promptline prompts diff`)',
  }),
});

export type PromptView = Static<typeof PromptSchema>;
export type VersionView = Static<typeof VersionSchema>;

export const PromptWithVersionSchema = Type.Composite([PromptSchema, Type.Object({ version: Nullable(VersionSchema) })]);
export const PromptPageSchema = Type.Object({ data: Type.Array(PromptSchema), next_cursor: Nullable(Type.String()) });
export const VersionListSchema = Type.Object({ data: Type.Array(VersionSchema) });
