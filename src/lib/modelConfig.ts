import { Kind, Type, type Static } from '@sinclair/typebox';

/**
 * A version's tools and structured output, in OpenAI's chat-completions format
 * (docs/tools-and-structured-output.md): the schemas of the API and of a prompt file alike, here
 * beside ChatMessageSchema because both the prompts module and the offline prompt-file check take
 * them. What they may hold beyond their shape (a parameters schema that compiles, a tool_choice
 * naming a declared tool) is checked by prompts/modelConfigChecks.ts.
 */

const TOOL_NAME_PATTERN = '^[A-Za-z0-9_-]{1,64}$';
export const MAX_TOOLS = 128;

/** A JSON Schema: any object; whether it compiles is checked when the version is created. */
const JsonSchemaObject = (description: string) => Type.Record(Type.String(), Type.Any(), { description });

export const ToolSchema = Type.Object(
  {
    type: Type.Literal('function'),
    function: Type.Object({
      name: Type.String({ pattern: TOOL_NAME_PATTERN, description: 'letters, digits, _ and -, at most 64' }),
      description: Type.Optional(Type.String({ maxLength: 4000 })),
      parameters: Type.Optional(JsonSchemaObject("the arguments' JSON Schema (compiled when the version is created: an invalid one is a 422)")),
      strict: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    }),
  },
  { description: "one function the model may call (OpenAI's function-tool format)" },
);
export type Tool = Static<typeof ToolSchema>;

export type ToolChoice = 'none' | 'auto' | 'required' | { type: 'function'; function: { name: string } };
/** Documented as a union; checked in prompts/modelConfigChecks.ts (the request validator handles unions of literals only). */
export const ToolChoiceSchema = Type.Unsafe<ToolChoice>({
  [Kind]: 'Unknown',
  description: '"none", "auto", "required", or {"type": "function", "function": {"name": …}} naming one of `tools`; needs `tools` unless "none"',
  anyOf: [
    { type: 'string', enum: ['none', 'auto', 'required'] },
    {
      type: 'object',
      properties: { type: { const: 'function' }, function: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
      required: ['type', 'function'],
    },
  ],
});

export const ResponseFormatSchema = Type.Object(
  {
    type: Type.Union([Type.Literal('text'), Type.Literal('json_object'), Type.Literal('json_schema')]),
    json_schema: Type.Optional(
      Type.Object(
        {
          name: Type.String({ pattern: TOOL_NAME_PATTERN }),
          description: Type.Optional(Type.String({ maxLength: 4000 })),
          schema: JsonSchemaObject('the JSON Schema the output must satisfy (compiled when the version is created: an invalid one is a 422)'),
          strict: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
        },
        { description: 'required with type json_schema, refused otherwise' },
      ),
    ),
  },
  {
    description:
      'json_object: the output must be a JSON object; json_schema: it must satisfy `json_schema.schema`. Every run records whether it did (output_valid) and experiments can compare it (runs metric schema_valid_rate)',
  },
);
export type ResponseFormat = Static<typeof ResponseFormatSchema>;

/** A version's tools and structured output as stored; absent fields are not set. */
export interface ModelConfig {
  tools?: Tool[];
  tool_choice?: ToolChoice;
  response_format?: ResponseFormat;
}

/** One call the model asked for, as OpenAI spells it: appended as is to an assistant message, it continues the conversation. */
export const ToolCallSchema = Type.Object({
  id: Type.String(),
  type: Type.Literal('function'),
  function: Type.Object({ name: Type.String(), arguments: Type.String({ description: 'a JSON string, as the model wrote it (not checked)' }) }),
});
export type ToolCall = Static<typeof ToolCallSchema>;
