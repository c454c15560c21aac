import { Type } from '@sinclair/typebox';

/**
 * A typed variable's declaration (docs/management-api.md, "Typed variables"): the schema of a
 * version's `variables` in the API and in a prompt file alike. Here, beside ChatMessageSchema,
 * because both the prompts module and the offline prompt-file check (src/promptFiles/) take it.
 */
export const MAX_DECLARED_VARIABLES = 100;
export const MAX_PATTERN_LENGTH = 500;
export const MAX_DESCRIPTION_LENGTH = 2000;
export const MAX_ENUM_VALUES = 100;
/** Lengths are of one input, which a request body bounds long before this; the bound keeps integers storable everywhere. */
const MAX_LENGTH_BOUND = 10_000_000;

/** One declared variable; unknown keys are refused. */
export const VariableDeclarationSchema = Type.Object(
  {
    required: Type.Optional(Type.Boolean({ description: 'default true; an optional variable absent from the inputs renders its default' })),
    description: Type.Optional(Type.String({ maxLength: MAX_DESCRIPTION_LENGTH })),
    enum: Type.Optional(Type.Array(Type.String(), { maxItems: MAX_ENUM_VALUES, description: 'the only values accepted' })),
    pattern: Type.Optional(
      Type.String({
        maxLength: MAX_PATTERN_LENGTH,
        description:
          'a regular expression (JavaScript, u flag, run on a linear-time engine: no back-references or look-arounds) the value must contain a match of (search semantics: anchor it with ^…$ for the whole value)',
      }),
    ),
    min_length: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_LENGTH_BOUND, description: 'in Unicode code points' })),
    max_length: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_LENGTH_BOUND, description: 'in Unicode code points' })),
    default: Type.Optional(Type.String({ description: 'optional variables only; must satisfy the constraints; absent: ""' })),
  },
  { additionalProperties: false },
);

export const DeclaredVariablesSchema = Type.Record(Type.String(), VariableDeclarationSchema, {
  maxProperties: MAX_DECLARED_VARIABLES,
  description:
    'typed variables: every top-level name the templates use, each declared (all string inputs), checked on every runtime call. Absent: no declarations, inputs are not checked beyond the template.',
});
