import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { ajvRegExp, refusedSchemaPatterns } from '../../../lib/linearPattern.js';
import { pass, type Score, type Scored } from './types.js';

export interface JsonSchemaSettings {
  /** Absent: the output need only be valid JSON. */
  schema?: Record<string, unknown>;
}

/** Why a schema does not compile, and where in it (a JSON pointer such as /properties/age/type). */
export interface SchemaProblem {
  pointer: string;
  message: string;
}

// strictSchema refuses unknown keywords and formats, so a typo in a schema is a 422 at creation
// instead of a keyword silently ignored while scoring; the stricter checks of style (a `required`
// property left out of `properties`, types not spelled out) stay off: those schemas are valid. One
// instance for every schema: a new one compiles the draft-07 meta-schema again (60–150 ms of a
// blocked event loop per evaluator, each time an evaluation starts); since Ajv keeps every schema
// it compiled and schemas come from users, each is removed from it once its validator is made.
// Patterns run on the linear-time engine (src/lib/linearPattern.ts); allowMatchingProperties,
// because the strict check of a property name against patternProperties runs JavaScript's own engine.
const ajv = new Ajv({
  strictSchema: true,
  strictNumbers: true,
  strictTypes: false,
  strictTuples: false,
  strictRequired: false,
  allowMatchingProperties: true,
  allErrors: false,
  logger: false,
  code: { regExp: ajvRegExp },
});
// The meta-schema is compiled on first use: here, while the server starts, not in a request.
ajv.validateSchema({});

const pointerPath = (pointer: string): string[] =>
  pointer === ''
    ? []
    : pointer
        .split('/')
        .slice(1)
        .map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'));

/** The path of a schema problem below `schema`, for the 422's loc. */
export const problemPath = (p: SchemaProblem): string[] => pointerPath(p.pointer);

const toPointer = (path: (string | number)[]): string => path.map((p) => `/${String(p).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');

/** The validator of a schema, or the first problem found in it (a pattern the linear-time engine refuses among them). */
export function compileJsonSchema(schema: Record<string, unknown>): ValidateFunction | SchemaProblem {
  const [refused] = refusedSchemaPatterns(schema);
  if (refused !== undefined) return { pointer: toPointer(refused[0]), message: refused[1] };
  if (!ajv.validateSchema(schema)) {
    const first = (ajv.errors ?? [])[0] as ErrorObject | undefined;
    return { pointer: first?.instancePath ?? '', message: `not a valid JSON Schema: ${first === undefined ? 'invalid' : (first.message ?? 'invalid')}` };
  }
  try {
    return ajv.compile(schema);
  } catch (error) {
    return { pointer: '', message: `not a valid JSON Schema: ${(error as Error).message}` };
  } finally {
    ajv.removeSchema(schema);
  }
}

/** The output parsed as JSON and, with a schema, checked against it (the first failure is the reason). */
export function matchesJsonSchema(validate: ValidateFunction | null, item: Scored): Score {
  let value: unknown;
  try {
    value = JSON.parse(item.output);
  } catch {
    return pass(false, 'the output is not valid JSON');
  }
  if (validate === null || validate(value)) return pass(true);
  const first = validate.errors?.[0];
  return pass(false, first === undefined ? 'does not match the schema' : `${first.instancePath || '/'} ${first.message ?? 'is invalid'}`);
}
