import { Type, type Static } from '@sinclair/typebox';
import { ChatMessageSchema } from '../lib/chatMessage.js';
import { DeclaredVariablesSchema } from '../lib/variableDeclaration.js';
import { ResponseFormatSchema, ToolChoiceSchema, ToolSchema, type ResponseFormat, type Tool, type ToolChoice } from '../lib/modelConfig.js';

/**
 * The prompt file (docs/prompts-as-code.md): one prompt, one version's content, and the labels that
 * content should carry. The server's own bounds (prompts.schemas.ts) are repeated here, not imported,
 * so that `promptline prompts check` and the published JSON Schema need no module of the server.
 */
const PROMPT_FILE_SCHEMA_ID = 'urn:promptline:schema:prompt-file';

const PROMPT_ID_PATTERN = '^[A-Za-z0-9_.-]{1,128}$';
const LABEL_PATTERN = '^[a-z0-9_-]{1,64}$';
const MODEL_PATTERN = '^[A-Za-z0-9_.-]+/\\S+$';
const Model = Type.String({ pattern: MODEL_PATTERN, maxLength: 200 });

export const PromptFileSchema = Type.Object(
  {
    prompt_id: Type.String({ pattern: PROMPT_ID_PATTERN, description: 'the prompt; the file is named <prompt_id>.prompt.yaml' }),
    description: Type.Optional(
      Type.Union([Type.String({ maxLength: 2000 }), Type.Null()], { description: "the prompt's description, set when a push creates it" }),
    ),
    tags: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 50, description: 'file-only metadata: the server keeps none' })),
    labels: Type.Optional(Type.Array(Type.String({ pattern: LABEL_PATTERN }), { maxItems: 20, description: 'the labels a push points at this content' })),
    template: Type.Optional(Type.String({ maxLength: 100_000, description: 'a text prompt (mustache); exactly one of template or messages' })),
    messages: Type.Optional(Type.Array(ChatMessageSchema, { minItems: 1, maxItems: 100, description: 'a chat prompt: each content is a template' })),
    model: Type.Optional(Type.Union([Model, Type.Null()])),
    params: Type.Optional(Type.Record(Type.String(), Type.Any(), { description: "the model call's parameters, e.g. temperature" })),
    fallbacks: Type.Optional(Type.Array(Model, { maxItems: 5 })),
    tools: Type.Optional(Type.Array(ToolSchema, { description: 'functions the model may call (docs/tools-and-structured-output.md)' })),
    tool_choice: Type.Optional(ToolChoiceSchema),
    response_format: Type.Optional(ResponseFormatSchema),
    variables: Type.Optional(DeclaredVariablesSchema),
  },
  { title: 'Promptline prompt file', additionalProperties: false },
);

export type PromptFile = Static<typeof PromptFileSchema>;

/** The content a version is made of: what the content hash covers (not labels, description, tags or formatting). */
export interface VersionContent {
  template: string | null;
  messages: Array<{ role: string; content: string }> | null;
  model: string | null;
  params: Record<string, unknown>;
  fallbacks: string[];
  variables: Record<string, unknown>;
  /** Present only when set: a version without them hashes as it did before they existed. */
  tools?: Tool[];
  tool_choice?: ToolChoice;
  response_format?: ResponseFormat;
}

/** The JSON Schema document published at GET /schemas/prompt-file.json and committed as docs/prompt-file.schema.json. */
export function promptFileJsonSchema(): Record<string, unknown> {
  return { $schema: 'https://json-schema.org/draft/2020-12/schema', $id: PROMPT_FILE_SCHEMA_ID, ...JSON.parse(JSON.stringify(PromptFileSchema)) };
}

/** `<prompt_id>.prompt.yaml`: the one name a prompt's file may have. */
export const PROMPT_FILE_SUFFIX = '.prompt.yaml';
export const fileNameOf = (promptId: string): string => `${promptId}${PROMPT_FILE_SUFFIX}`;
