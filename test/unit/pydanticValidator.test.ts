import { type TSchema, Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { expectedList, formatNumber, pyRepr } from '../../src/http/pydanticCoercions.js';
import { validateValue } from '../../src/http/pydanticValidator.js';
import { decodePythonJson } from '../../src/http/pythonJson.js';

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const OptStr = () => Type.Optional(Nullable(Type.String()));

// The contract's request models (contract.md section 1).
const RunPromptRequest = Type.Object({
  prompt_id: Type.String(),
  inputs: Type.Record(Type.String(), Type.String()),
  external_user_id: OptStr(),
});
const GetPromptRequest = Type.Object({
  prompt_id: Type.String(),
  inputs: Type.Optional(Type.Record(Type.String(), Type.Any(), { default: {} })),
  external_user_id: OptStr(),
});
const TrackOutcomeRequest = Type.Object({
  prompt_run_id: OptStr(),
  prompt_id: Type.String(),
  external_user_id: OptStr(),
  event_type: Type.Optional(Type.String({ default: 'outcome' })),
  label: OptStr(),
  value: OptStr(),
  numeric_value: Type.Optional(Nullable(Type.Number())),
  is_success: Type.Optional(Nullable(Type.Boolean())),
  source: OptStr(),
  metadata: Type.Optional(Nullable(Type.Record(Type.String(), Type.Any()))),
});
// A management-style model; validated with strict (extra='forbid') as CP and lax as CPlax.
const ChatMessage = Type.Object({
  role: Type.Union([Type.Literal('system'), Type.Literal('user'), Type.Literal('assistant')]),
  content: Type.String(),
});
const CreatePrompt = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 32, pattern: '^[a-z0-9][a-z0-9_-]*$' }),
  kind: Type.Optional(Type.Union([Type.Literal('text'), Type.Literal('chat')], { default: 'text' })),
  template: OptStr(),
  messages: Type.Optional(Nullable(Type.Array(ChatMessage, { minItems: 1, maxItems: 3 }))),
  temperature: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 2 }))),
  max_tokens: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 4096 }))),
  traffic: Type.Optional(Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1, default: 0.5 })),
  tags: Type.Optional(Type.Array(Type.String(), { maxItems: 2, default: [] })),
  params: Type.Optional(Nullable(Type.Record(Type.String(), Type.Number()))),
});
// Contradictory bounds show which check pydantic runs first; odd bounds show number formatting.
const Bounds = Type.Object({
  a: Type.Number({ minimum: 10, maximum: 0 }),
  b: Type.Number({ exclusiveMinimum: 0.5, exclusiveMaximum: 1e-7 }),
  c: Type.Integer({ minimum: 5, maximum: 1 }),
  d: Type.Integer({ exclusiveMinimum: 100, exclusiveMaximum: -2 }),
  e: Type.Optional(Type.Number({ maximum: 1e21, minimum: -1e-7, default: 0 })),
  s: Type.String({ minLength: 2, maxLength: 4, pattern: '^a' }),
  one: Type.String({ minLength: 1, maxLength: 1 }),
  q: Type.Optional(Nullable(Type.Literal("it's"))),
  l: Type.Optional(Type.Array(Type.Integer(), { minItems: 2, maxItems: 3, default: [] })),
});
const SCHEMAS: Record<string, TSchema> = {
  RP: RunPromptRequest,
  GP: GetPromptRequest,
  TO: TrackOutcomeRequest,
  CP: CreatePrompt,
  CPlax: CreatePrompt,
  BD: Bounds,
};

function decode(text: string): unknown {
  const r = decodePythonJson(text);
  if (!r.ok) throw new Error(`bad JSON in test vector: ${r.msg}`);
  return r.value;
}
/** JSON text as the caller will send it, but with NaN/Infinity kept distinguishable from null. */
const stable = (v: unknown) =>
  JSON.stringify(v, (_k, x: unknown) => (typeof x === 'number' && !Number.isFinite(x) ? String(x) : x));

// Generated with pydantic 2.13.4 (core 2.46.4) on the equivalent BaseModels:
// TypeAdapter(Model).validate_python(json.loads(body), from_attributes=True), as FastAPI does;
// errors(include_url=False) with "body" prefixed to loc. The 4th column is model_dump() of a
// valid body, keeping set fields and non-None defaults.
const CASES: [string, string, string, string?][] = [
  ["RP", "{\"prompt_id\":\"p\",\"inputs\":{\"name\":\"Ada\"}}", "[]", "{\"prompt_id\":\"p\",\"inputs\":{\"name\":\"Ada\"}}"],
  ["RP", "{\"prompt_id\":\"p\",\"inputs\":{},\"external_user_id\":null}", "[]", "{\"prompt_id\":\"p\",\"inputs\":{},\"external_user_id\":null}"],
  ["RP", "{\"prompt_id\":\"p\",\"inputs\":{},\"external_user_id\":\"u\",\"extra\":1}", "[]", "{\"prompt_id\":\"p\",\"inputs\":{},\"external_user_id\":\"u\"}"],
  ["RP", "{}", "[{\"type\":\"missing\",\"loc\":[\"body\",\"prompt_id\"],\"msg\":\"Field required\",\"input\":{}},{\"type\":\"missing\",\"loc\":[\"body\",\"inputs\"],\"msg\":\"Field required\",\"input\":{}}]"],
  ["RP", "{\"inputs\":{}}", "[{\"type\":\"missing\",\"loc\":[\"body\",\"prompt_id\"],\"msg\":\"Field required\",\"input\":{\"inputs\":{}}}]"],
  ["RP", "{\"prompt_id\":5,\"inputs\":[]}", "[{\"type\":\"string_type\",\"loc\":[\"body\",\"prompt_id\"],\"msg\":\"Input should be a valid string\",\"input\":5},{\"type\":\"dict_type\",\"loc\":[\"body\",\"inputs\"],\"msg\":\"Input should be a valid dictionary\",\"input\":[]}]"],
  ["RP", "{\"prompt_id\":null,\"inputs\":null}", "[{\"type\":\"string_type\",\"loc\":[\"body\",\"prompt_id\"],\"msg\":\"Input should be a valid string\",\"input\":null},{\"type\":\"dict_type\",\"loc\":[\"body\",\"inputs\"],\"msg\":\"Input should be a valid dictionary\",\"input\":null}]"],
  ["RP", "{\"prompt_id\":\"p\",\"inputs\":{\"b\":1,\"a\":\"x\",\"c\":null,\"d\":true,\"e\":[],\"f\":{},\"g\":\"ok\"}}", "[{\"type\":\"string_type\",\"loc\":[\"body\",\"inputs\",\"b\"],\"msg\":\"Input should be a valid string\",\"input\":1},{\"type\":\"string_type\",\"loc\":[\"body\",\"inputs\",\"c\"],\"msg\":\"Input should be a valid string\",\"input\":null},{\"type\":\"string_type\",\"loc\":[\"body\",\"inputs\",\"d\"],\"msg\":\"Input should be a valid string\",\"input\":true},{\"type\":\"string_type\",\"loc\":[\"body\",\"inputs\",\"e\"],\"msg\":\"Input should be a valid string\",\"input\":[]},{\"type\":\"string_type\",\"loc\":[\"body\",\"inputs\",\"f\"],\"msg\":\"Input should be a valid string\",\"input\":{}}]"],
  ["RP", "{\"prompt_id\":\"p\",\"inputs\":{\"a\":\"1\"},\"external_user_id\":5}", "[{\"type\":\"string_type\",\"loc\":[\"body\",\"external_user_id\"],\"msg\":\"Input should be a valid string\",\"input\":5}]"],
  ["RP", "{\"external_user_id\":{},\"prompt_id\":true}", "[{\"type\":\"string_type\",\"loc\":[\"body\",\"prompt_id\"],\"msg\":\"Input should be a valid string\",\"input\":true},{\"type\":\"missing\",\"loc\":[\"body\",\"inputs\"],\"msg\":\"Field required\",\"input\":{\"external_user_id\":{},\"prompt_id\":true}},{\"type\":\"string_type\",\"loc\":[\"body\",\"external_user_id\"],\"msg\":\"Input should be a valid string\",\"input\":{}}]"],
  ["RP", "[]", "[{\"type\":\"model_attributes_type\",\"loc\":[\"body\"],\"msg\":\"Input should be a valid dictionary or object to extract fields from\",\"input\":[]}]"],
  ["RP", "\"x\"", "[{\"type\":\"model_attributes_type\",\"loc\":[\"body\"],\"msg\":\"Input should be a valid dictionary or object to extract fields from\",\"input\":\"x\"}]"],
  ["RP", "1", "[{\"type\":\"model_attributes_type\",\"loc\":[\"body\"],\"msg\":\"Input should be a valid dictionary or object to extract fields from\",\"input\":1}]"],
  ["RP", "true", "[{\"type\":\"model_attributes_type\",\"loc\":[\"body\"],\"msg\":\"Input should be a valid dictionary or object to extract fields from\",\"input\":true}]"],
  ["RP", "[{\"prompt_id\":\"p\"}]", "[{\"type\":\"model_attributes_type\",\"loc\":[\"body\"],\"msg\":\"Input should be a valid dictionary or object to extract fields from\",\"input\":[{\"prompt_id\":\"p\"}]}]"],
  ["RP", "{\"prompt_id\":\"p\",\"prompt_id\":7,\"inputs\":{}}", "[{\"type\":\"string_type\",\"loc\":[\"body\",\"prompt_id\"],\"msg\":\"Input should be a valid string\",\"input\":7}]"],
  ["RP", "{\"prompt_id\":\"\u00e9\ud83d\ude00\",\"inputs\":{\"\ud83d\ude00\":\"x\"}}", "[]", "{\"prompt_id\":\"\\u00e9\\ud83d\\ude00\",\"inputs\":{\"\\ud83d\\ude00\":\"x\"}}"],
  ["RP", "{\"prompt_id\":1.5,\"inputs\":{\"x\":NaN,\"y\":-Infinity}}", "[{\"type\":\"string_type\",\"loc\":[\"body\",\"prompt_id\"],\"msg\":\"Input should be a valid string\",\"input\":1.5},{\"type\":\"string_type\",\"loc\":[\"body\",\"inputs\",\"x\"],\"msg\":\"Input should be a valid string\",\"input\":NaN},{\"type\":\"string_type\",\"loc\":[\"body\",\"inputs\",\"y\"],\"msg\":\"Input should be a valid string\",\"input\":-Infinity}]"],
  ["RP", "{\"prompt_id\":\"p\",\"inputs\":\"abc\"}", "[{\"type\":\"dict_type\",\"loc\":[\"body\",\"inputs\"],\"msg\":\"Input should be a valid dictionary\",\"input\":\"abc\"}]"],
  ["RP", "{\"prompt_id\":\"\",\"inputs\":{\"\":\"\"}}", "[]", "{\"prompt_id\":\"\",\"inputs\":{\"\":\"\"}}"],
  ["RP", "{\"prompt_id\":[\"p\"],\"inputs\":{\"k\":{\"nested\":\"v\"}}}", "[{\"type\":\"string_type\",\"loc\":[\"body\",\"prompt_id\"],\"msg\":\"Input should be a valid string\",\"input\":[\"p\"]},{\"type\":\"string_type\",\"loc\":[\"body\",\"inputs\",\"k\"],\"msg\":\"Input should be a valid string\",\"input\":{\"nested\":\"v\"}}]"],
  ["RP", "{\"constructor\":\"x\",\"toString\":1,\"prompt_id\":\"p\",\"inputs\":{\"__proto__\":\"v\",\"constructor\":2}}", "[{\"type\":\"string_type\",\"loc\":[\"body\",\"inputs\",\"constructor\"],\"msg\":\"Input should be a valid string\",\"input\":2}]"],
  ["GP", "{\"prompt_id\":\"p\"}", "[]", "{\"prompt_id\":\"p\",\"inputs\":{}}"],
  ["GP", "{\"prompt_id\":\"p\",\"inputs\":{\"n\":1,\"x\":[1,{\"a\":null}]}}", "[]", "{\"prompt_id\":\"p\",\"inputs\":{\"n\":1,\"x\":[1,{\"a\":null}]}}"],
  ["GP", "{\"prompt_id\":\"p\",\"inputs\":null}", "[{\"type\":\"dict_type\",\"loc\":[\"body\",\"inputs\"],\"msg\":\"Input should be a valid dictionary\",\"input\":null}]"],
  ["GP", "{\"prompt_id\":\"p\",\"inputs\":[1]}", "[{\"type\":\"dict_type\",\"loc\":[\"body\",\"inputs\"],\"msg\":\"Input should be a valid dictionary\",\"input\":[1]}]"],
  ["GP", "{\"inputs\":5}", "[{\"type\":\"missing\",\"loc\":[\"body\",\"prompt_id\"],\"msg\":\"Field required\",\"input\":{\"inputs\":5}},{\"type\":\"dict_type\",\"loc\":[\"body\",\"inputs\"],\"msg\":\"Input should be a valid dictionary\",\"input\":5}]"],
  ["GP", "{\"prompt_id\":[\"p\"],\"external_user_id\":1}", "[{\"type\":\"string_type\",\"loc\":[\"body\",\"prompt_id\"],\"msg\":\"Input should be a valid string\",\"input\":[\"p\"]},{\"type\":\"string_type\",\"loc\":[\"body\",\"external_user_id\"],\"msg\":\"Input should be a valid string\",\"input\":1}]"],
  ["GP", "{\"prompt_id\":\"p\",\"inputs\":{},\"x\":[]}", "[]", "{\"prompt_id\":\"p\",\"inputs\":{}}"],
  ["TO", "{\"prompt_id\":\"p\"}", "[]", "{\"prompt_id\":\"p\",\"event_type\":\"outcome\"}"],
  ["TO", "{\"prompt_id\":\"p\",\"numeric_value\":\"1_000\",\"is_success\":\"yes\"}", "[]", "{\"prompt_id\":\"p\",\"event_type\":\"outcome\",\"numeric_value\":1000.0,\"is_success\":true}"],
  ["TO", "{\"prompt_run_id\":1,\"external_user_id\":2,\"event_type\":null,\"label\":3,\"value\":4,\"numeric_value\":\"x\",\"is_success\":\"maybe\",\"source\":[],\"metadata\":\"m\"}", "[{\"type\":\"string_type\",\"loc\":[\"body\",\"prompt_run_id\"],\"msg\":\"Input should be a valid string\",\"input\":1},{\"type\":\"missing\",\"loc\":[\"body\",\"prompt_id\"],\"msg\":\"Field required\",\"input\":{\"prompt_run_id\":1,\"external_user_id\":2,\"event_type\":null,\"label\":3,\"value\":4,\"numeric_value\":\"x\",\"is_success\":\"maybe\",\"source\":[],\"metadata\":\"m\"}},{\"type\":\"string_type\",\"loc\":[\"body\",\"external_user_id\"],\"msg\":\"Input should be a valid string\",\"input\":2},{\"type\":\"string_type\",\"loc\":[\"body\",\"event_type\"],\"msg\":\"Input should be a valid string\",\"input\":null},{\"type\":\"string_type\",\"loc\":[\"body\",\"label\"],\"msg\":\"Input should be a valid string\",\"input\":3},{\"type\":\"string_type\",\"loc\":[\"body\",\"value\"],\"msg\":\"Input should be a valid string\",\"input\":4},{\"type\":\"float_parsing\",\"loc\":[\"body\",\"numeric_value\"],\"msg\":\"Input should be a valid number, unable to parse string as a number\",\"input\":\"x\"},{\"type\":\"bool_parsing\",\"loc\":[\"body\",\"is_success\"],\"msg\":\"Input should be a valid boolean, unable to interpret input\",\"input\":\"maybe\"},{\"type\":\"string_type\",\"loc\":[\"body\",\"source\"],\"msg\":\"Input should be a valid string\",\"input\":[]},{\"type\":\"dict_type\",\"loc\":[\"body\",\"metadata\"],\"msg\":\"Input should be a valid dictionary\",\"input\":\"m\"}]"],
  ["TO", "{\"prompt_id\":\"p\",\"event_type\":5}", "[{\"type\":\"string_type\",\"loc\":[\"body\",\"event_type\"],\"msg\":\"Input should be a valid string\",\"input\":5}]"],
  ["TO", "{\"prompt_id\":\"p\",\"metadata\":[]}", "[{\"type\":\"dict_type\",\"loc\":[\"body\",\"metadata\"],\"msg\":\"Input should be a valid dictionary\",\"input\":[]}]"],
  ["TO", "{\"prompt_id\":\"p\",\"metadata\":{\"a\":[1]},\"label\":null}", "[]", "{\"prompt_id\":\"p\",\"event_type\":\"outcome\",\"label\":null,\"metadata\":{\"a\":[1]}}"],
  ["TO", "{\"prompt_id\":\"p\",\"prompt_run_id\":null,\"value\":\"\",\"source\":\"sdk\"}", "[]", "{\"prompt_run_id\":null,\"prompt_id\":\"p\",\"event_type\":\"outcome\",\"value\":\"\",\"source\":\"sdk\"}"],
  ["TO", "{\"prompt_id\":\"p\",\"numeric_value\":1.5}", "[]", "{\"prompt_id\":\"p\",\"event_type\":\"outcome\",\"numeric_value\":1.5}"],
  ["TO", "{\"prompt_id\":\"p\",\"numeric_value\":\"1.5\"}", "[]", "{\"prompt_id\":\"p\",\"event_type\":\"outcome\",\"numeric_value\":1.5}"],
  ["TO", "{\"prompt_id\":\"p\",\"numeric_value\":\" 2.5 \"}", "[]", "{\"prompt_id\":\"p\",\"event_type\":\"outcome\",\"numeric_value\":2.5}"],
  ["TO", "{\"prompt_id\":\"p\",\"numeric_value\":\"\\t3\\n\"}", "[]", "{\"prompt_id\":\"p\",\"event_type\":\"outcome\",\"numeric_value\":3.0}"],
  ["TO", "{\"prompt_id\":\"p\",\"numeric_value\":\"1e3\"}", "[]", "{\"prompt_id\":\"p\",\"event_type\":\"outcome\",\"numeric_value\":1000.0}"],
  ["TO", "{\"prompt_id\":\"p\",\"numeric_value\":\"-1E-2\"}", "[]", "{\"prompt_id\":\"p\",\"event_type\":\"outcome\",\"numeric_value\":-0.01}"],
  ["TO", "{\"prompt_id\":\"p\",\"numeric_value\":\"abc\"}", "[{\"type\":\"float_parsing\",\"loc\":[\"body\",\"numeric_value\"],\"msg\":\"Input should be a valid number, unable to parse string as a number\",\"input\":\"abc\"}]"],
  ["TO", "{\"prompt_id\":\"p\",\"numeric_value\":\"\"}", "[{\"type\":\"float_parsing\",\"loc\":[\"body\",\"numeric_value\"],\"msg\":\"Input should be a valid number, unable to parse string as a number\",\"input\":\"\"}]"],
  ["TO", "{\"prompt_id\":\"p\",\"numeric_value\":\"inf\"}", "[{\"type\":\"finite_number\",\"loc\":[\"body\",\"numeric_value\"],\"msg\":\"Input should be a finite number\",\"input\":\"inf\"}]"],
  ["TO", "{\"prompt_id\":\"p\",\"numeric_value\":\"-Infinity\"}", "[{\"type\":\"finite_number\",\"loc\":[\"body\",\"numeric_value\"],\"msg\":\"Input should be a finite number\",\"input\":\"-Infinity\"}]"],
  ["TO", "{\"prompt_id\":\"p\",\"numeric_value\":\"NaN\"}", "[{\"type\":\"finite_number\",\"loc\":[\"body\",\"numeric_value\"],\"msg\":\"Input should be a finite number\",\"input\":\"NaN\"}]"],
  ["TO", "{\"prompt_id\":\"p\",\"numeric_value\":NaN}", "[{\"type\":\"finite_number\",\"loc\":[\"body\",\"numeric_value\"],\"msg\":\"Input should be a finite number\",\"input\":NaN}]"],
  ["TO", "{\"prompt_id\":\"p\",\"numeric_value\":Infinity}", "[{\"type\":\"finite_number\",\"loc\":[\"body\",\"numeric_value\"],\"msg\":\"Input should be a finite number\",\"input\":Infinity}]"],
  ["TO", "{\"prompt_id\":\"p\",\"numeric_value\":-Infinity}", "[{\"type\":\"finite_number\",\"loc\":[\"body\",\"numeric_value\"],\"msg\":\"Input should be a finite number\",\"input\":-Infinity}]"],
  ["TO", "{\"prompt_id\":\"p\",\"numeric_value\":1e400}", "[{\"type\":\"finite_number\",\"loc\":[\"body\",\"numeric_value\"],\"msg\":\"Input should be a finite number\",\"input\":Infinity}]"],
  ["TO", "{\"prompt_id\":\"p\",\"numeric_value\":true}", "[]", "{\"prompt_id\":\"p\",\"event_type\":\"outcome\",\"numeric_value\":1.0}"],
  ["TO", "{\"prompt_id\":\"p\",\"numeric_value\":false}", "[]", "{\"prompt_id\":\"p\",\"event_type\":\"outcome\",\"numeric_value\":0.0}"],
  ["TO", "{\"prompt_id\":\"p\",\"numeric_value\":[]}", "[{\"type\":\"float_type\",\"loc\":[\"body\",\"numeric_value\"],\"msg\":\"Input should be a valid number\",\"input\":[]}]"],
  ["TO", "{\"prompt_id\":\"p\",\"numeric_value\":{}}", "[{\"type\":\"float_type\",\"loc\":[\"body\",\"numeric_value\"],\"msg\":\"Input should be a valid number\",\"input\":{}}]"],
  ["TO", "{\"prompt_id\":\"p\",\"numeric_value\":null}", "[]", "{\"prompt_id\":\"p\",\"event_type\":\"outcome\",\"numeric_value\":null}"],
  ["TO", "{\"prompt_id\":\"p\",\"numeric_value\":\"1_.5\"}", "[]", "{\"prompt_id\":\"p\",\"event_type\":\"outcome\",\"numeric_value\":1.5}"],
  ["TO", "{\"prompt_id\":\"p\",\"numeric_value\":\"1__0\"}", "[{\"type\":\"float_parsing\",\"loc\":[\"body\",\"numeric_value\"],\"msg\":\"Input should be a valid number, unable to parse string as a number\",\"input\":\"1__0\"}]"],
  ["TO", "{\"prompt_id\":\"p\",\"numeric_value\":\"_1\"}", "[{\"type\":\"float_parsing\",\"loc\":[\"body\",\"numeric_value\"],\"msg\":\"Input should be a valid number, unable to parse string as a number\",\"input\":\"_1\"}]"],
  ["TO", "{\"prompt_id\":\"p\",\"numeric_value\":\"0x10\"}", "[{\"type\":\"float_parsing\",\"loc\":[\"body\",\"numeric_value\"],\"msg\":\"Input should be a valid number, unable to parse string as a number\",\"input\":\"0x10\"}]"],
  ["TO", "{\"prompt_id\":\"p\",\"numeric_value\":\"+5\"}", "[]", "{\"prompt_id\":\"p\",\"event_type\":\"outcome\",\"numeric_value\":5.0}"],
  ["TO", "{\"prompt_id\":\"p\",\"numeric_value\":\".5\"}", "[]", "{\"prompt_id\":\"p\",\"event_type\":\"outcome\",\"numeric_value\":0.5}"],
  ["TO", "{\"prompt_id\":\"p\",\"numeric_value\":\"5.\"}", "[]", "{\"prompt_id\":\"p\",\"event_type\":\"outcome\",\"numeric_value\":5.0}"],
  ["TO", "{\"prompt_id\":\"p\",\"numeric_value\":\"1e\"}", "[{\"type\":\"float_parsing\",\"loc\":[\"body\",\"numeric_value\"],\"msg\":\"Input should be a valid number, unable to parse string as a number\",\"input\":\"1e\"}]"],
  ["TO", "{\"prompt_id\":\"p\",\"numeric_value\":\"\\u00a01\\u00a0\"}", "[]", "{\"prompt_id\":\"p\",\"event_type\":\"outcome\",\"numeric_value\":1.0}"],
  ["TO", "{\"prompt_id\":\"p\",\"numeric_value\":\"\\u001c1\"}", "[{\"type\":\"float_parsing\",\"loc\":[\"body\",\"numeric_value\"],\"msg\":\"Input should be a valid number, unable to parse string as a number\",\"input\":\"\\u001c1\"}]"],
  ["TO", "{\"prompt_id\":\"p\",\"numeric_value\":0}", "[]", "{\"prompt_id\":\"p\",\"event_type\":\"outcome\",\"numeric_value\":0.0}"],
  ["TO", "{\"prompt_id\":\"p\",\"numeric_value\":-0.5}", "[]", "{\"prompt_id\":\"p\",\"event_type\":\"outcome\",\"numeric_value\":-0.5}"],
  ["TO", "{\"prompt_id\":\"p\",\"numeric_value\":12345678901234567890}", "[]", "{\"prompt_id\":\"p\",\"event_type\":\"outcome\",\"numeric_value\":1.2345678901234567e+19}"],
  ["TO", "{\"prompt_id\":\"p\",\"is_success\":true}", "[]", "{\"prompt_id\":\"p\",\"event_type\":\"outcome\",\"is_success\":true}"],
  ["TO", "{\"prompt_id\":\"p\",\"is_success\":false}", "[]", "{\"prompt_id\":\"p\",\"event_type\":\"outcome\",\"is_success\":false}"],
  ["TO", "{\"prompt_id\":\"p\",\"is_success\":\"TRUE\"}", "[]", "{\"prompt_id\":\"p\",\"event_type\":\"outcome\",\"is_success\":true}"],
  ["TO", "{\"prompt_id\":\"p\",\"is_success\":\"yes\"}", "[]", "{\"prompt_id\":\"p\",\"event_type\":\"outcome\",\"is_success\":true}"],
  ["TO", "{\"prompt_id\":\"p\",\"is_success\":\" yes\"}", "[{\"type\":\"bool_parsing\",\"loc\":[\"body\",\"is_success\"],\"msg\":\"Input should be a valid boolean, unable to interpret input\",\"input\":\" yes\"}]"],
  ["TO", "{\"prompt_id\":\"p\",\"is_success\":\"On\"}", "[]", "{\"prompt_id\":\"p\",\"event_type\":\"outcome\",\"is_success\":true}"],
  ["TO", "{\"prompt_id\":\"p\",\"is_success\":\"off\"}", "[]", "{\"prompt_id\":\"p\",\"event_type\":\"outcome\",\"is_success\":false}"],
  ["TO", "{\"prompt_id\":\"p\",\"is_success\":\"t\"}", "[]", "{\"prompt_id\":\"p\",\"event_type\":\"outcome\",\"is_success\":true}"],
  ["TO", "{\"prompt_id\":\"p\",\"is_success\":\"F\"}", "[]", "{\"prompt_id\":\"p\",\"event_type\":\"outcome\",\"is_success\":false}"],
  ["TO", "{\"prompt_id\":\"p\",\"is_success\":\"n\"}", "[]", "{\"prompt_id\":\"p\",\"event_type\":\"outcome\",\"is_success\":false}"],
  ["TO", "{\"prompt_id\":\"p\",\"is_success\":\"Y\"}", "[]", "{\"prompt_id\":\"p\",\"event_type\":\"outcome\",\"is_success\":true}"],
  ["TO", "{\"prompt_id\":\"p\",\"is_success\":\"1\"}", "[]", "{\"prompt_id\":\"p\",\"event_type\":\"outcome\",\"is_success\":true}"],
  ["TO", "{\"prompt_id\":\"p\",\"is_success\":\"0\"}", "[]", "{\"prompt_id\":\"p\",\"event_type\":\"outcome\",\"is_success\":false}"],
  ["TO", "{\"prompt_id\":\"p\",\"is_success\":1}", "[]", "{\"prompt_id\":\"p\",\"event_type\":\"outcome\",\"is_success\":true}"],
  ["TO", "{\"prompt_id\":\"p\",\"is_success\":0}", "[]", "{\"prompt_id\":\"p\",\"event_type\":\"outcome\",\"is_success\":false}"],
  ["TO", "{\"prompt_id\":\"p\",\"is_success\":2}", "[{\"type\":\"bool_parsing\",\"loc\":[\"body\",\"is_success\"],\"msg\":\"Input should be a valid boolean, unable to interpret input\",\"input\":2}]"],
  ["TO", "{\"prompt_id\":\"p\",\"is_success\":-1}", "[{\"type\":\"bool_parsing\",\"loc\":[\"body\",\"is_success\"],\"msg\":\"Input should be a valid boolean, unable to interpret input\",\"input\":-1}]"],
  ["TO", "{\"prompt_id\":\"p\",\"is_success\":1.0}", "[]", "{\"prompt_id\":\"p\",\"event_type\":\"outcome\",\"is_success\":true}"],
  ["TO", "{\"prompt_id\":\"p\",\"is_success\":0.0}", "[]", "{\"prompt_id\":\"p\",\"event_type\":\"outcome\",\"is_success\":false}"],
  ["TO", "{\"prompt_id\":\"p\",\"is_success\":2.0}", "[{\"type\":\"bool_parsing\",\"loc\":[\"body\",\"is_success\"],\"msg\":\"Input should be a valid boolean, unable to interpret input\",\"input\":2.0}]"],
  ["TO", "{\"prompt_id\":\"p\",\"is_success\":0.5}", "[{\"type\":\"bool_type\",\"loc\":[\"body\",\"is_success\"],\"msg\":\"Input should be a valid boolean\",\"input\":0.5}]"],
  ["TO", "{\"prompt_id\":\"p\",\"is_success\":\"1.0\"}", "[{\"type\":\"bool_parsing\",\"loc\":[\"body\",\"is_success\"],\"msg\":\"Input should be a valid boolean, unable to interpret input\",\"input\":\"1.0\"}]"],
  ["TO", "{\"prompt_id\":\"p\",\"is_success\":null}", "[]", "{\"prompt_id\":\"p\",\"event_type\":\"outcome\",\"is_success\":null}"],
  ["TO", "{\"prompt_id\":\"p\",\"is_success\":[]}", "[{\"type\":\"bool_type\",\"loc\":[\"body\",\"is_success\"],\"msg\":\"Input should be a valid boolean\",\"input\":[]}]"],
  ["TO", "{\"prompt_id\":\"p\",\"is_success\":{}}", "[{\"type\":\"bool_type\",\"loc\":[\"body\",\"is_success\"],\"msg\":\"Input should be a valid boolean\",\"input\":{}}]"],
  ["TO", "{\"prompt_id\":\"p\",\"is_success\":NaN}", "[{\"type\":\"bool_type\",\"loc\":[\"body\",\"is_success\"],\"msg\":\"Input should be a valid boolean\",\"input\":NaN}]"],
  ["TO", "{\"prompt_id\":\"p\",\"is_success\":Infinity}", "[{\"type\":\"bool_type\",\"loc\":[\"body\",\"is_success\"],\"msg\":\"Input should be a valid boolean\",\"input\":Infinity}]"],
  ["TO", "{\"prompt_id\":\"p\",\"is_success\":\"\"}", "[{\"type\":\"bool_parsing\",\"loc\":[\"body\",\"is_success\"],\"msg\":\"Input should be a valid boolean, unable to interpret input\",\"input\":\"\"}]"],
  ["TO", "{\"prompt_id\":\"p\",\"is_success\":\"tru\"}", "[{\"type\":\"bool_parsing\",\"loc\":[\"body\",\"is_success\"],\"msg\":\"Input should be a valid boolean, unable to interpret input\",\"input\":\"tru\"}]"],
  ["TO", "{\"prompt_id\":\"p\",\"is_success\":\"nope\"}", "[{\"type\":\"bool_parsing\",\"loc\":[\"body\",\"is_success\"],\"msg\":\"Input should be a valid boolean, unable to interpret input\",\"input\":\"nope\"}]"],
  ["TO", "{\"prompt_id\":\"p\",\"is_success\":1e20}", "[{\"type\":\"bool_type\",\"loc\":[\"body\",\"is_success\"],\"msg\":\"Input should be a valid boolean\",\"input\":1e+20}]"],
  ["TO", "{\"prompt_id\":\"p\",\"is_success\":\"true \"}", "[{\"type\":\"bool_parsing\",\"loc\":[\"body\",\"is_success\"],\"msg\":\"Input should be a valid boolean, unable to interpret input\",\"input\":\"true \"}]"],
  ["CP", "{\"name\":\"ok-1\",\"kind\":\"chat\",\"messages\":[{\"role\":\"system\",\"content\":\"Be brief.\"},{\"role\":\"user\",\"content\":\"{{q}}\"}],\"temperature\":\"0.7\",\"max_tokens\":\"256\",\"traffic\":0.25,\"tags\":[\"a\"],\"params\":{\"top_p\":\"0.9\"}}", "[]", "{\"name\":\"ok-1\",\"kind\":\"chat\",\"messages\":[{\"role\":\"system\",\"content\":\"Be brief.\"},{\"role\":\"user\",\"content\":\"{{q}}\"}],\"temperature\":0.7,\"max_tokens\":256,\"traffic\":0.25,\"tags\":[\"a\"],\"params\":{\"top_p\":0.9}}"],
  ["CP", "{\"zzz\":1,\"name\":\"a\",\"kind\":\"voice\",\"aaa\":null}", "[{\"type\":\"literal_error\",\"loc\":[\"body\",\"kind\"],\"msg\":\"Input should be 'text' or 'chat'\",\"input\":\"voice\",\"ctx\":{\"expected\":\"'text' or 'chat'\"}},{\"type\":\"extra_forbidden\",\"loc\":[\"body\",\"zzz\"],\"msg\":\"Extra inputs are not permitted\",\"input\":1},{\"type\":\"extra_forbidden\",\"loc\":[\"body\",\"aaa\"],\"msg\":\"Extra inputs are not permitted\",\"input\":null}]"],
  ["CP", "{\"name\":\"\",\"messages\":[]}", "[{\"type\":\"string_too_short\",\"loc\":[\"body\",\"name\"],\"msg\":\"String should have at least 1 character\",\"input\":\"\",\"ctx\":{\"min_length\":1}},{\"type\":\"too_short\",\"loc\":[\"body\",\"messages\"],\"msg\":\"List should have at least 1 item after validation, not 0\",\"input\":[],\"ctx\":{\"field_type\":\"List\",\"min_length\":1,\"actual_length\":0}}]"],
  ["CP", "{\"name\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}", "[{\"type\":\"string_too_long\",\"loc\":[\"body\",\"name\"],\"msg\":\"String should have at most 32 characters\",\"input\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\",\"ctx\":{\"max_length\":32}}]"],
  ["CP", "{\"name\":\"Bad Name\"}", "[{\"type\":\"string_pattern_mismatch\",\"loc\":[\"body\",\"name\"],\"msg\":\"String should match pattern '^[a-z0-9][a-z0-9_-]*$'\",\"input\":\"Bad Name\",\"ctx\":{\"pattern\":\"^[a-z0-9][a-z0-9_-]*$\"}}]"],
  ["CP", "{\"name\":5}", "[{\"type\":\"string_type\",\"loc\":[\"body\",\"name\"],\"msg\":\"Input should be a valid string\",\"input\":5}]"],
  ["CP", "{\"name\":\"n\",\"messages\":[{\"role\":\"robot\",\"content\":1,\"x\":2},\"str\",null,{\"role\":\"user\"}]}", "[{\"type\":\"too_long\",\"loc\":[\"body\",\"messages\"],\"msg\":\"List should have at most 3 items after validation, not 4\",\"input\":[{\"role\":\"robot\",\"content\":1,\"x\":2},\"str\",null,{\"role\":\"user\"}],\"ctx\":{\"field_type\":\"List\",\"max_length\":3,\"actual_length\":4}}]"],
  ["CP", "{\"name\":\"n\",\"messages\":[{\"role\":\"user\",\"content\":\"a\"},{\"role\":\"user\",\"content\":\"a\"},{\"role\":\"user\",\"content\":\"a\"},{\"role\":\"user\",\"content\":\"a\"}]}", "[{\"type\":\"too_long\",\"loc\":[\"body\",\"messages\"],\"msg\":\"List should have at most 3 items after validation, not 4\",\"input\":[{\"role\":\"user\",\"content\":\"a\"},{\"role\":\"user\",\"content\":\"a\"},{\"role\":\"user\",\"content\":\"a\"},{\"role\":\"user\",\"content\":\"a\"}],\"ctx\":{\"field_type\":\"List\",\"max_length\":3,\"actual_length\":4}}]"],
  ["CP", "{\"name\":\"n\",\"messages\":[1,2,3,4]}", "[{\"type\":\"too_long\",\"loc\":[\"body\",\"messages\"],\"msg\":\"List should have at most 3 items after validation, not 4\",\"input\":[1,2,3,4],\"ctx\":{\"field_type\":\"List\",\"max_length\":3,\"actual_length\":4}}]"],
  ["CP", "{\"name\":\"n\",\"messages\":{}}", "[{\"type\":\"list_type\",\"loc\":[\"body\",\"messages\"],\"msg\":\"Input should be a valid list\",\"input\":{}}]"],
  ["CP", "{\"name\":\"n\",\"tags\":[\"a\",1]}", "[{\"type\":\"string_type\",\"loc\":[\"body\",\"tags\",1],\"msg\":\"Input should be a valid string\",\"input\":1}]"],
  ["CP", "{\"name\":\"n\",\"tags\":[\"a\",\"b\",\"c\"]}", "[{\"type\":\"too_long\",\"loc\":[\"body\",\"tags\"],\"msg\":\"List should have at most 2 items after validation, not 3\",\"input\":[\"a\",\"b\",\"c\"],\"ctx\":{\"field_type\":\"List\",\"max_length\":2,\"actual_length\":3}}]"],
  ["CP", "{\"name\":\"n\",\"tags\":\"x\"}", "[{\"type\":\"list_type\",\"loc\":[\"body\",\"tags\"],\"msg\":\"Input should be a valid list\",\"input\":\"x\"}]"],
  ["CP", "{\"name\":\"n\",\"params\":{\"b\":\"x\",\"a\":\"1.5\",\"c\":null,\"d\":true}}", "[{\"type\":\"float_parsing\",\"loc\":[\"body\",\"params\",\"b\"],\"msg\":\"Input should be a valid number, unable to parse string as a number\",\"input\":\"x\"},{\"type\":\"float_type\",\"loc\":[\"body\",\"params\",\"c\"],\"msg\":\"Input should be a valid number\",\"input\":null}]"],
  ["CP", "{\"name\":\"n\",\"params\":[]}", "[{\"type\":\"dict_type\",\"loc\":[\"body\",\"params\"],\"msg\":\"Input should be a valid dictionary\",\"input\":[]}]"],
  ["CP", "{\"name\":\"n\",\"temperature\":-1}", "[{\"type\":\"greater_than_equal\",\"loc\":[\"body\",\"temperature\"],\"msg\":\"Input should be greater than or equal to 0\",\"input\":-1,\"ctx\":{\"ge\":0.0}}]"],
  ["CP", "{\"name\":\"n\",\"temperature\":3}", "[{\"type\":\"less_than_equal\",\"loc\":[\"body\",\"temperature\"],\"msg\":\"Input should be less than or equal to 2\",\"input\":3,\"ctx\":{\"le\":2.0}}]"],
  ["CP", "{\"name\":\"n\",\"temperature\":\"2.5\"}", "[{\"type\":\"less_than_equal\",\"loc\":[\"body\",\"temperature\"],\"msg\":\"Input should be less than or equal to 2\",\"input\":\"2.5\",\"ctx\":{\"le\":2.0}}]"],
  ["CP", "{\"name\":\"n\",\"temperature\":\"abc\"}", "[{\"type\":\"float_parsing\",\"loc\":[\"body\",\"temperature\"],\"msg\":\"Input should be a valid number, unable to parse string as a number\",\"input\":\"abc\"}]"],
  ["CP", "{\"name\":\"n\",\"temperature\":NaN}", "[{\"type\":\"finite_number\",\"loc\":[\"body\",\"temperature\"],\"msg\":\"Input should be a finite number\",\"input\":NaN}]"],
  ["CP", "{\"name\":\"n\",\"temperature\":2}", "[]", "{\"name\":\"n\",\"kind\":\"text\",\"temperature\":2.0,\"traffic\":0.5,\"tags\":[]}"],
  ["CP", "{\"name\":\"n\",\"temperature\":0}", "[]", "{\"name\":\"n\",\"kind\":\"text\",\"temperature\":0.0,\"traffic\":0.5,\"tags\":[]}"],
  ["CP", "{\"name\":\"n\",\"max_tokens\":0}", "[{\"type\":\"greater_than_equal\",\"loc\":[\"body\",\"max_tokens\"],\"msg\":\"Input should be greater than or equal to 1\",\"input\":0,\"ctx\":{\"ge\":1}}]"],
  ["CP", "{\"name\":\"n\",\"max_tokens\":5000}", "[{\"type\":\"less_than_equal\",\"loc\":[\"body\",\"max_tokens\"],\"msg\":\"Input should be less than or equal to 4096\",\"input\":5000,\"ctx\":{\"le\":4096}}]"],
  ["CP", "{\"name\":\"n\",\"max_tokens\":1.5}", "[{\"type\":\"int_from_float\",\"loc\":[\"body\",\"max_tokens\"],\"msg\":\"Input should be a valid integer, got a number with a fractional part\",\"input\":1.5}]"],
  ["CP", "{\"name\":\"n\",\"max_tokens\":\"12\"}", "[]", "{\"name\":\"n\",\"kind\":\"text\",\"max_tokens\":12,\"traffic\":0.5,\"tags\":[]}"],
  ["CP", "{\"name\":\"n\",\"max_tokens\":\"1e3\"}", "[{\"type\":\"int_parsing\",\"loc\":[\"body\",\"max_tokens\"],\"msg\":\"Input should be a valid integer, unable to parse string as an integer\",\"input\":\"1e3\"}]"],
  ["CP", "{\"name\":\"n\",\"max_tokens\":true}", "[]", "{\"name\":\"n\",\"kind\":\"text\",\"max_tokens\":1,\"traffic\":0.5,\"tags\":[]}"],
  ["CP", "{\"name\":\"n\",\"max_tokens\":\"x\"}", "[{\"type\":\"int_parsing\",\"loc\":[\"body\",\"max_tokens\"],\"msg\":\"Input should be a valid integer, unable to parse string as an integer\",\"input\":\"x\"}]"],
  ["CP", "{\"name\":\"n\",\"max_tokens\":\" 0_12 \"}", "[]", "{\"name\":\"n\",\"kind\":\"text\",\"max_tokens\":12,\"traffic\":0.5,\"tags\":[]}"],
  ["CP", "{\"name\":\"n\",\"max_tokens\":\"12.000\"}", "[]", "{\"name\":\"n\",\"kind\":\"text\",\"max_tokens\":12,\"traffic\":0.5,\"tags\":[]}"],
  ["CP", "{\"name\":\"n\",\"max_tokens\":\"12.\"}", "[{\"type\":\"int_parsing\",\"loc\":[\"body\",\"max_tokens\"],\"msg\":\"Input should be a valid integer, unable to parse string as an integer\",\"input\":\"12.\"}]"],
  ["CP", "{\"name\":\"n\",\"max_tokens\":NaN}", "[{\"type\":\"finite_number\",\"loc\":[\"body\",\"max_tokens\"],\"msg\":\"Input should be a finite number\",\"input\":NaN}]"],
  ["CP", "{\"name\":\"n\",\"max_tokens\":[]}", "[{\"type\":\"int_type\",\"loc\":[\"body\",\"max_tokens\"],\"msg\":\"Input should be a valid integer\",\"input\":[]}]"],
  ["CP", "{\"name\":\"n\",\"max_tokens\":4096}", "[]", "{\"name\":\"n\",\"kind\":\"text\",\"max_tokens\":4096,\"traffic\":0.5,\"tags\":[]}"],
  ["CP", "{\"name\":\"n\",\"max_tokens\":\"4097\"}", "[{\"type\":\"less_than_equal\",\"loc\":[\"body\",\"max_tokens\"],\"msg\":\"Input should be less than or equal to 4096\",\"input\":\"4097\",\"ctx\":{\"le\":4096}}]"],
  ["CP", "{\"name\":\"n\",\"traffic\":0}", "[{\"type\":\"greater_than\",\"loc\":[\"body\",\"traffic\"],\"msg\":\"Input should be greater than 0\",\"input\":0,\"ctx\":{\"gt\":0.0}}]"],
  ["CP", "{\"name\":\"n\",\"traffic\":1}", "[{\"type\":\"less_than\",\"loc\":[\"body\",\"traffic\"],\"msg\":\"Input should be less than 1\",\"input\":1,\"ctx\":{\"lt\":1.0}}]"],
  ["CP", "{\"name\":\"n\",\"traffic\":0.5}", "[]", "{\"name\":\"n\",\"kind\":\"text\",\"traffic\":0.5,\"tags\":[]}"],
  ["CP", "{\"name\":\"n\",\"traffic\":\"0.5\"}", "[]", "{\"name\":\"n\",\"kind\":\"text\",\"traffic\":0.5,\"tags\":[]}"],
  ["CP", "{\"name\":\"n\",\"traffic\":null}", "[{\"type\":\"float_type\",\"loc\":[\"body\",\"traffic\"],\"msg\":\"Input should be a valid number\",\"input\":null}]"],
  ["CPlax", "{\"name\":\"ok-1\",\"kind\":\"chat\",\"messages\":[{\"role\":\"system\",\"content\":\"Be brief.\"},{\"role\":\"user\",\"content\":\"{{q}}\"}],\"temperature\":\"0.7\",\"max_tokens\":\"256\",\"traffic\":0.25,\"tags\":[\"a\"],\"params\":{\"top_p\":\"0.9\"}}", "[]", "{\"name\":\"ok-1\",\"kind\":\"chat\",\"messages\":[{\"role\":\"system\",\"content\":\"Be brief.\"},{\"role\":\"user\",\"content\":\"{{q}}\"}],\"temperature\":0.7,\"max_tokens\":256,\"traffic\":0.25,\"tags\":[\"a\"],\"params\":{\"top_p\":0.9}}"],
  ["CPlax", "{\"zzz\":1,\"name\":\"a\",\"kind\":\"voice\",\"aaa\":null}", "[{\"type\":\"literal_error\",\"loc\":[\"body\",\"kind\"],\"msg\":\"Input should be 'text' or 'chat'\",\"input\":\"voice\",\"ctx\":{\"expected\":\"'text' or 'chat'\"}}]"],
  ["CPlax", "{\"name\":\"\",\"messages\":[]}", "[{\"type\":\"string_too_short\",\"loc\":[\"body\",\"name\"],\"msg\":\"String should have at least 1 character\",\"input\":\"\",\"ctx\":{\"min_length\":1}},{\"type\":\"too_short\",\"loc\":[\"body\",\"messages\"],\"msg\":\"List should have at least 1 item after validation, not 0\",\"input\":[],\"ctx\":{\"field_type\":\"List\",\"min_length\":1,\"actual_length\":0}}]"],
  ["CPlax", "{\"name\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}", "[{\"type\":\"string_too_long\",\"loc\":[\"body\",\"name\"],\"msg\":\"String should have at most 32 characters\",\"input\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\",\"ctx\":{\"max_length\":32}}]"],
  ["CPlax", "{\"name\":\"Bad Name\"}", "[{\"type\":\"string_pattern_mismatch\",\"loc\":[\"body\",\"name\"],\"msg\":\"String should match pattern '^[a-z0-9][a-z0-9_-]*$'\",\"input\":\"Bad Name\",\"ctx\":{\"pattern\":\"^[a-z0-9][a-z0-9_-]*$\"}}]"],
  ["CPlax", "{\"name\":5}", "[{\"type\":\"string_type\",\"loc\":[\"body\",\"name\"],\"msg\":\"Input should be a valid string\",\"input\":5}]"],
  ["CPlax", "{\"name\":\"n\",\"messages\":[{\"role\":\"robot\",\"content\":1,\"x\":2},\"str\",null,{\"role\":\"user\"}]}", "[{\"type\":\"too_long\",\"loc\":[\"body\",\"messages\"],\"msg\":\"List should have at most 3 items after validation, not 4\",\"input\":[{\"role\":\"robot\",\"content\":1,\"x\":2},\"str\",null,{\"role\":\"user\"}],\"ctx\":{\"field_type\":\"List\",\"max_length\":3,\"actual_length\":4}}]"],
  ["CPlax", "{\"name\":\"n\",\"messages\":[{\"role\":\"user\",\"content\":\"a\"},{\"role\":\"user\",\"content\":\"a\"},{\"role\":\"user\",\"content\":\"a\"},{\"role\":\"user\",\"content\":\"a\"}]}", "[{\"type\":\"too_long\",\"loc\":[\"body\",\"messages\"],\"msg\":\"List should have at most 3 items after validation, not 4\",\"input\":[{\"role\":\"user\",\"content\":\"a\"},{\"role\":\"user\",\"content\":\"a\"},{\"role\":\"user\",\"content\":\"a\"},{\"role\":\"user\",\"content\":\"a\"}],\"ctx\":{\"field_type\":\"List\",\"max_length\":3,\"actual_length\":4}}]"],
  ["CPlax", "{\"name\":\"n\",\"messages\":[1,2,3,4]}", "[{\"type\":\"too_long\",\"loc\":[\"body\",\"messages\"],\"msg\":\"List should have at most 3 items after validation, not 4\",\"input\":[1,2,3,4],\"ctx\":{\"field_type\":\"List\",\"max_length\":3,\"actual_length\":4}}]"],
  ["CPlax", "{\"name\":\"n\",\"messages\":{}}", "[{\"type\":\"list_type\",\"loc\":[\"body\",\"messages\"],\"msg\":\"Input should be a valid list\",\"input\":{}}]"],
  ["CPlax", "{\"name\":\"n\",\"tags\":[\"a\",1]}", "[{\"type\":\"string_type\",\"loc\":[\"body\",\"tags\",1],\"msg\":\"Input should be a valid string\",\"input\":1}]"],
  ["CPlax", "{\"name\":\"n\",\"tags\":[\"a\",\"b\",\"c\"]}", "[{\"type\":\"too_long\",\"loc\":[\"body\",\"tags\"],\"msg\":\"List should have at most 2 items after validation, not 3\",\"input\":[\"a\",\"b\",\"c\"],\"ctx\":{\"field_type\":\"List\",\"max_length\":2,\"actual_length\":3}}]"],
  ["CPlax", "{\"name\":\"n\",\"tags\":\"x\"}", "[{\"type\":\"list_type\",\"loc\":[\"body\",\"tags\"],\"msg\":\"Input should be a valid list\",\"input\":\"x\"}]"],
  ["CPlax", "{\"name\":\"n\",\"params\":{\"b\":\"x\",\"a\":\"1.5\",\"c\":null,\"d\":true}}", "[{\"type\":\"float_parsing\",\"loc\":[\"body\",\"params\",\"b\"],\"msg\":\"Input should be a valid number, unable to parse string as a number\",\"input\":\"x\"},{\"type\":\"float_type\",\"loc\":[\"body\",\"params\",\"c\"],\"msg\":\"Input should be a valid number\",\"input\":null}]"],
  ["CPlax", "{\"name\":\"n\",\"params\":[]}", "[{\"type\":\"dict_type\",\"loc\":[\"body\",\"params\"],\"msg\":\"Input should be a valid dictionary\",\"input\":[]}]"],
  ["CPlax", "{\"name\":\"n\",\"temperature\":-1}", "[{\"type\":\"greater_than_equal\",\"loc\":[\"body\",\"temperature\"],\"msg\":\"Input should be greater than or equal to 0\",\"input\":-1,\"ctx\":{\"ge\":0.0}}]"],
  ["CPlax", "{\"name\":\"n\",\"temperature\":3}", "[{\"type\":\"less_than_equal\",\"loc\":[\"body\",\"temperature\"],\"msg\":\"Input should be less than or equal to 2\",\"input\":3,\"ctx\":{\"le\":2.0}}]"],
  ["CPlax", "{\"name\":\"n\",\"temperature\":\"2.5\"}", "[{\"type\":\"less_than_equal\",\"loc\":[\"body\",\"temperature\"],\"msg\":\"Input should be less than or equal to 2\",\"input\":\"2.5\",\"ctx\":{\"le\":2.0}}]"],
  ["CPlax", "{\"name\":\"n\",\"temperature\":\"abc\"}", "[{\"type\":\"float_parsing\",\"loc\":[\"body\",\"temperature\"],\"msg\":\"Input should be a valid number, unable to parse string as a number\",\"input\":\"abc\"}]"],
  ["CPlax", "{\"name\":\"n\",\"temperature\":NaN}", "[{\"type\":\"finite_number\",\"loc\":[\"body\",\"temperature\"],\"msg\":\"Input should be a finite number\",\"input\":NaN}]"],
  ["CPlax", "{\"name\":\"n\",\"temperature\":2}", "[]", "{\"name\":\"n\",\"kind\":\"text\",\"temperature\":2.0,\"traffic\":0.5,\"tags\":[]}"],
  ["CPlax", "{\"name\":\"n\",\"temperature\":0}", "[]", "{\"name\":\"n\",\"kind\":\"text\",\"temperature\":0.0,\"traffic\":0.5,\"tags\":[]}"],
  ["CPlax", "{\"name\":\"n\",\"max_tokens\":0}", "[{\"type\":\"greater_than_equal\",\"loc\":[\"body\",\"max_tokens\"],\"msg\":\"Input should be greater than or equal to 1\",\"input\":0,\"ctx\":{\"ge\":1}}]"],
  ["CPlax", "{\"name\":\"n\",\"max_tokens\":5000}", "[{\"type\":\"less_than_equal\",\"loc\":[\"body\",\"max_tokens\"],\"msg\":\"Input should be less than or equal to 4096\",\"input\":5000,\"ctx\":{\"le\":4096}}]"],
  ["CPlax", "{\"name\":\"n\",\"max_tokens\":1.5}", "[{\"type\":\"int_from_float\",\"loc\":[\"body\",\"max_tokens\"],\"msg\":\"Input should be a valid integer, got a number with a fractional part\",\"input\":1.5}]"],
  ["CPlax", "{\"name\":\"n\",\"max_tokens\":\"12\"}", "[]", "{\"name\":\"n\",\"kind\":\"text\",\"max_tokens\":12,\"traffic\":0.5,\"tags\":[]}"],
  ["CPlax", "{\"name\":\"n\",\"max_tokens\":\"1e3\"}", "[{\"type\":\"int_parsing\",\"loc\":[\"body\",\"max_tokens\"],\"msg\":\"Input should be a valid integer, unable to parse string as an integer\",\"input\":\"1e3\"}]"],
  ["CPlax", "{\"name\":\"n\",\"max_tokens\":true}", "[]", "{\"name\":\"n\",\"kind\":\"text\",\"max_tokens\":1,\"traffic\":0.5,\"tags\":[]}"],
  ["CPlax", "{\"name\":\"n\",\"max_tokens\":\"x\"}", "[{\"type\":\"int_parsing\",\"loc\":[\"body\",\"max_tokens\"],\"msg\":\"Input should be a valid integer, unable to parse string as an integer\",\"input\":\"x\"}]"],
  ["CPlax", "{\"name\":\"n\",\"max_tokens\":\" 0_12 \"}", "[]", "{\"name\":\"n\",\"kind\":\"text\",\"max_tokens\":12,\"traffic\":0.5,\"tags\":[]}"],
  ["CPlax", "{\"name\":\"n\",\"max_tokens\":\"12.000\"}", "[]", "{\"name\":\"n\",\"kind\":\"text\",\"max_tokens\":12,\"traffic\":0.5,\"tags\":[]}"],
  ["CPlax", "{\"name\":\"n\",\"max_tokens\":\"12.\"}", "[{\"type\":\"int_parsing\",\"loc\":[\"body\",\"max_tokens\"],\"msg\":\"Input should be a valid integer, unable to parse string as an integer\",\"input\":\"12.\"}]"],
  ["CPlax", "{\"name\":\"n\",\"max_tokens\":NaN}", "[{\"type\":\"finite_number\",\"loc\":[\"body\",\"max_tokens\"],\"msg\":\"Input should be a finite number\",\"input\":NaN}]"],
  ["CPlax", "{\"name\":\"n\",\"max_tokens\":[]}", "[{\"type\":\"int_type\",\"loc\":[\"body\",\"max_tokens\"],\"msg\":\"Input should be a valid integer\",\"input\":[]}]"],
  ["CPlax", "{\"name\":\"n\",\"max_tokens\":4096}", "[]", "{\"name\":\"n\",\"kind\":\"text\",\"max_tokens\":4096,\"traffic\":0.5,\"tags\":[]}"],
  ["CPlax", "{\"name\":\"n\",\"max_tokens\":\"4097\"}", "[{\"type\":\"less_than_equal\",\"loc\":[\"body\",\"max_tokens\"],\"msg\":\"Input should be less than or equal to 4096\",\"input\":\"4097\",\"ctx\":{\"le\":4096}}]"],
  ["CPlax", "{\"name\":\"n\",\"traffic\":0}", "[{\"type\":\"greater_than\",\"loc\":[\"body\",\"traffic\"],\"msg\":\"Input should be greater than 0\",\"input\":0,\"ctx\":{\"gt\":0.0}}]"],
  ["CPlax", "{\"name\":\"n\",\"traffic\":1}", "[{\"type\":\"less_than\",\"loc\":[\"body\",\"traffic\"],\"msg\":\"Input should be less than 1\",\"input\":1,\"ctx\":{\"lt\":1.0}}]"],
  ["CPlax", "{\"name\":\"n\",\"traffic\":0.5}", "[]", "{\"name\":\"n\",\"kind\":\"text\",\"traffic\":0.5,\"tags\":[]}"],
  ["CPlax", "{\"name\":\"n\",\"traffic\":\"0.5\"}", "[]", "{\"name\":\"n\",\"kind\":\"text\",\"traffic\":0.5,\"tags\":[]}"],
  ["CPlax", "{\"name\":\"n\",\"traffic\":null}", "[{\"type\":\"float_type\",\"loc\":[\"body\",\"traffic\"],\"msg\":\"Input should be a valid number\",\"input\":null}]"],
  ["BD", "{\"a\":5,\"b\":0.7,\"c\":3,\"d\":0,\"s\":\"bbbbbb\",\"one\":\"\ud83d\ude00\"}", "[{\"type\":\"less_than_equal\",\"loc\":[\"body\",\"a\"],\"msg\":\"Input should be less than or equal to 0\",\"input\":5,\"ctx\":{\"le\":0.0}},{\"type\":\"less_than\",\"loc\":[\"body\",\"b\"],\"msg\":\"Input should be less than 0.0000001\",\"input\":0.7,\"ctx\":{\"lt\":1e-07}},{\"type\":\"less_than_equal\",\"loc\":[\"body\",\"c\"],\"msg\":\"Input should be less than or equal to 1\",\"input\":3,\"ctx\":{\"le\":1}},{\"type\":\"less_than\",\"loc\":[\"body\",\"d\"],\"msg\":\"Input should be less than -2\",\"input\":0,\"ctx\":{\"lt\":-2}},{\"type\":\"string_too_long\",\"loc\":[\"body\",\"s\"],\"msg\":\"String should have at most 4 characters\",\"input\":\"bbbbbb\",\"ctx\":{\"max_length\":4}}]"],
  ["BD", "{\"a\":-5,\"b\":0.1,\"c\":0,\"d\":5,\"s\":\"b\",\"one\":\"ab\"}", "[{\"type\":\"greater_than_equal\",\"loc\":[\"body\",\"a\"],\"msg\":\"Input should be greater than or equal to 10\",\"input\":-5,\"ctx\":{\"ge\":10.0}},{\"type\":\"less_than\",\"loc\":[\"body\",\"b\"],\"msg\":\"Input should be less than 0.0000001\",\"input\":0.1,\"ctx\":{\"lt\":1e-07}},{\"type\":\"greater_than_equal\",\"loc\":[\"body\",\"c\"],\"msg\":\"Input should be greater than or equal to 5\",\"input\":0,\"ctx\":{\"ge\":5}},{\"type\":\"less_than\",\"loc\":[\"body\",\"d\"],\"msg\":\"Input should be less than -2\",\"input\":5,\"ctx\":{\"lt\":-2}},{\"type\":\"string_too_short\",\"loc\":[\"body\",\"s\"],\"msg\":\"String should have at least 2 characters\",\"input\":\"b\",\"ctx\":{\"min_length\":2}},{\"type\":\"string_too_long\",\"loc\":[\"body\",\"one\"],\"msg\":\"String should have at most 1 character\",\"input\":\"ab\",\"ctx\":{\"max_length\":1}}]"],
  ["BD", "{\"a\":11,\"b\":2,\"c\":9,\"d\":-3,\"e\":-1,\"s\":\"bbb\",\"one\":\"\",\"q\":\"x\"}", "[{\"type\":\"less_than_equal\",\"loc\":[\"body\",\"a\"],\"msg\":\"Input should be less than or equal to 0\",\"input\":11,\"ctx\":{\"le\":0.0}},{\"type\":\"less_than\",\"loc\":[\"body\",\"b\"],\"msg\":\"Input should be less than 0.0000001\",\"input\":2,\"ctx\":{\"lt\":1e-07}},{\"type\":\"less_than_equal\",\"loc\":[\"body\",\"c\"],\"msg\":\"Input should be less than or equal to 1\",\"input\":9,\"ctx\":{\"le\":1}},{\"type\":\"greater_than\",\"loc\":[\"body\",\"d\"],\"msg\":\"Input should be greater than 100\",\"input\":-3,\"ctx\":{\"gt\":100}},{\"type\":\"greater_than_equal\",\"loc\":[\"body\",\"e\"],\"msg\":\"Input should be greater than or equal to -0.0000001\",\"input\":-1,\"ctx\":{\"ge\":-1e-07}},{\"type\":\"string_pattern_mismatch\",\"loc\":[\"body\",\"s\"],\"msg\":\"String should match pattern '^a'\",\"input\":\"bbb\",\"ctx\":{\"pattern\":\"^a\"}},{\"type\":\"string_too_short\",\"loc\":[\"body\",\"one\"],\"msg\":\"String should have at least 1 character\",\"input\":\"\",\"ctx\":{\"min_length\":1}},{\"type\":\"literal_error\",\"loc\":[\"body\",\"q\"],\"msg\":\"Input should be \\\"it's\\\"\",\"input\":\"x\",\"ctx\":{\"expected\":\"\\\"it's\\\"\"}}]"],
  ["BD", "{\"a\":\"x\",\"b\":null,\"c\":\"1.5\",\"d\":1.5,\"s\":\"a\ud83d\ude00\ud83d\ude00\ud83d\ude00\",\"one\":1,\"q\":null}", "[{\"type\":\"float_parsing\",\"loc\":[\"body\",\"a\"],\"msg\":\"Input should be a valid number, unable to parse string as a number\",\"input\":\"x\"},{\"type\":\"float_type\",\"loc\":[\"body\",\"b\"],\"msg\":\"Input should be a valid number\",\"input\":null},{\"type\":\"int_parsing\",\"loc\":[\"body\",\"c\"],\"msg\":\"Input should be a valid integer, unable to parse string as an integer\",\"input\":\"1.5\"},{\"type\":\"int_from_float\",\"loc\":[\"body\",\"d\"],\"msg\":\"Input should be a valid integer, got a number with a fractional part\",\"input\":1.5},{\"type\":\"string_type\",\"loc\":[\"body\",\"one\"],\"msg\":\"Input should be a valid string\",\"input\":1}]"],
  ["BD", "{\"a\":0,\"b\":0,\"c\":1,\"d\":-3,\"e\":2e21,\"s\":\"a\ud83d\ude00\ud83d\ude00\ud83d\ude00\ud83d\ude00\",\"one\":\"\u00e9\"}", "[{\"type\":\"greater_than_equal\",\"loc\":[\"body\",\"a\"],\"msg\":\"Input should be greater than or equal to 10\",\"input\":0,\"ctx\":{\"ge\":10.0}},{\"type\":\"greater_than\",\"loc\":[\"body\",\"b\"],\"msg\":\"Input should be greater than 0.5\",\"input\":0,\"ctx\":{\"gt\":0.5}},{\"type\":\"greater_than_equal\",\"loc\":[\"body\",\"c\"],\"msg\":\"Input should be greater than or equal to 5\",\"input\":1,\"ctx\":{\"ge\":5}},{\"type\":\"greater_than\",\"loc\":[\"body\",\"d\"],\"msg\":\"Input should be greater than 100\",\"input\":-3,\"ctx\":{\"gt\":100}},{\"type\":\"less_than_equal\",\"loc\":[\"body\",\"e\"],\"msg\":\"Input should be less than or equal to 1000000000000000000000\",\"input\":2e+21,\"ctx\":{\"le\":1e+21}},{\"type\":\"string_too_long\",\"loc\":[\"body\",\"s\"],\"msg\":\"String should have at most 4 characters\",\"input\":\"a\\ud83d\\ude00\\ud83d\\ude00\\ud83d\\ude00\\ud83d\\ude00\",\"ctx\":{\"max_length\":4}}]"],
  ["BD", "{\"a\":5,\"b\":0.7,\"c\":3,\"d\":0,\"s\":\"ab\",\"one\":\"x\",\"l\":[\"x\"]}", "[{\"type\":\"less_than_equal\",\"loc\":[\"body\",\"a\"],\"msg\":\"Input should be less than or equal to 0\",\"input\":5,\"ctx\":{\"le\":0.0}},{\"type\":\"less_than\",\"loc\":[\"body\",\"b\"],\"msg\":\"Input should be less than 0.0000001\",\"input\":0.7,\"ctx\":{\"lt\":1e-07}},{\"type\":\"less_than_equal\",\"loc\":[\"body\",\"c\"],\"msg\":\"Input should be less than or equal to 1\",\"input\":3,\"ctx\":{\"le\":1}},{\"type\":\"less_than\",\"loc\":[\"body\",\"d\"],\"msg\":\"Input should be less than -2\",\"input\":0,\"ctx\":{\"lt\":-2}},{\"type\":\"int_parsing\",\"loc\":[\"body\",\"l\",0],\"msg\":\"Input should be a valid integer, unable to parse string as an integer\",\"input\":\"x\"}]"],
  ["BD", "{\"a\":5,\"b\":0.7,\"c\":3,\"d\":0,\"s\":\"ab\",\"one\":\"x\",\"l\":[1]}", "[{\"type\":\"less_than_equal\",\"loc\":[\"body\",\"a\"],\"msg\":\"Input should be less than or equal to 0\",\"input\":5,\"ctx\":{\"le\":0.0}},{\"type\":\"less_than\",\"loc\":[\"body\",\"b\"],\"msg\":\"Input should be less than 0.0000001\",\"input\":0.7,\"ctx\":{\"lt\":1e-07}},{\"type\":\"less_than_equal\",\"loc\":[\"body\",\"c\"],\"msg\":\"Input should be less than or equal to 1\",\"input\":3,\"ctx\":{\"le\":1}},{\"type\":\"less_than\",\"loc\":[\"body\",\"d\"],\"msg\":\"Input should be less than -2\",\"input\":0,\"ctx\":{\"lt\":-2}},{\"type\":\"too_short\",\"loc\":[\"body\",\"l\"],\"msg\":\"List should have at least 2 items after validation, not 1\",\"input\":[1],\"ctx\":{\"field_type\":\"List\",\"min_length\":2,\"actual_length\":1}}]"],
  ["BD", "{\"a\":5,\"b\":0.7,\"c\":3,\"d\":0,\"s\":\"ab\",\"one\":\"x\",\"l\":[\"1\",2.0]}", "[{\"type\":\"less_than_equal\",\"loc\":[\"body\",\"a\"],\"msg\":\"Input should be less than or equal to 0\",\"input\":5,\"ctx\":{\"le\":0.0}},{\"type\":\"less_than\",\"loc\":[\"body\",\"b\"],\"msg\":\"Input should be less than 0.0000001\",\"input\":0.7,\"ctx\":{\"lt\":1e-07}},{\"type\":\"less_than_equal\",\"loc\":[\"body\",\"c\"],\"msg\":\"Input should be less than or equal to 1\",\"input\":3,\"ctx\":{\"le\":1}},{\"type\":\"less_than\",\"loc\":[\"body\",\"d\"],\"msg\":\"Input should be less than -2\",\"input\":0,\"ctx\":{\"lt\":-2}}]"],
  ["BD", "{\"a\":5,\"b\":0.7,\"c\":3,\"d\":0,\"s\":\"ab\",\"one\":\"x\",\"l\":[1,2,3,\"x\"]}", "[{\"type\":\"less_than_equal\",\"loc\":[\"body\",\"a\"],\"msg\":\"Input should be less than or equal to 0\",\"input\":5,\"ctx\":{\"le\":0.0}},{\"type\":\"less_than\",\"loc\":[\"body\",\"b\"],\"msg\":\"Input should be less than 0.0000001\",\"input\":0.7,\"ctx\":{\"lt\":1e-07}},{\"type\":\"less_than_equal\",\"loc\":[\"body\",\"c\"],\"msg\":\"Input should be less than or equal to 1\",\"input\":3,\"ctx\":{\"le\":1}},{\"type\":\"less_than\",\"loc\":[\"body\",\"d\"],\"msg\":\"Input should be less than -2\",\"input\":0,\"ctx\":{\"lt\":-2}},{\"type\":\"too_long\",\"loc\":[\"body\",\"l\"],\"msg\":\"List should have at most 3 items after validation, not 4\",\"input\":[1,2,3,\"x\"],\"ctx\":{\"field_type\":\"List\",\"max_length\":3,\"actual_length\":4}}]"],
  ["BD", "{\"a\":5,\"b\":0.7,\"c\":3,\"d\":0,\"s\":\"ab\",\"one\":\"x\",\"l\":[1,\"x\",3]}", "[{\"type\":\"less_than_equal\",\"loc\":[\"body\",\"a\"],\"msg\":\"Input should be less than or equal to 0\",\"input\":5,\"ctx\":{\"le\":0.0}},{\"type\":\"less_than\",\"loc\":[\"body\",\"b\"],\"msg\":\"Input should be less than 0.0000001\",\"input\":0.7,\"ctx\":{\"lt\":1e-07}},{\"type\":\"less_than_equal\",\"loc\":[\"body\",\"c\"],\"msg\":\"Input should be less than or equal to 1\",\"input\":3,\"ctx\":{\"le\":1}},{\"type\":\"less_than\",\"loc\":[\"body\",\"d\"],\"msg\":\"Input should be less than -2\",\"input\":0,\"ctx\":{\"lt\":-2}},{\"type\":\"int_parsing\",\"loc\":[\"body\",\"l\",1],\"msg\":\"Input should be a valid integer, unable to parse string as an integer\",\"input\":\"x\"}]"],
  ["BD", "{\"a\":5,\"b\":0.7,\"c\":3,\"d\":0,\"s\":\"ab\",\"one\":\"x\",\"l\":\"12\"}", "[{\"type\":\"less_than_equal\",\"loc\":[\"body\",\"a\"],\"msg\":\"Input should be less than or equal to 0\",\"input\":5,\"ctx\":{\"le\":0.0}},{\"type\":\"less_than\",\"loc\":[\"body\",\"b\"],\"msg\":\"Input should be less than 0.0000001\",\"input\":0.7,\"ctx\":{\"lt\":1e-07}},{\"type\":\"less_than_equal\",\"loc\":[\"body\",\"c\"],\"msg\":\"Input should be less than or equal to 1\",\"input\":3,\"ctx\":{\"le\":1}},{\"type\":\"less_than\",\"loc\":[\"body\",\"d\"],\"msg\":\"Input should be less than -2\",\"input\":0,\"ctx\":{\"lt\":-2}},{\"type\":\"list_type\",\"loc\":[\"body\",\"l\"],\"msg\":\"Input should be a valid list\",\"input\":\"12\"}]"],
  ["BD", "{\"a\":5,\"b\":0.7,\"c\":3,\"d\":0,\"s\":\"ab\",\"one\":\"x\",\"l\":{}}", "[{\"type\":\"less_than_equal\",\"loc\":[\"body\",\"a\"],\"msg\":\"Input should be less than or equal to 0\",\"input\":5,\"ctx\":{\"le\":0.0}},{\"type\":\"less_than\",\"loc\":[\"body\",\"b\"],\"msg\":\"Input should be less than 0.0000001\",\"input\":0.7,\"ctx\":{\"lt\":1e-07}},{\"type\":\"less_than_equal\",\"loc\":[\"body\",\"c\"],\"msg\":\"Input should be less than or equal to 1\",\"input\":3,\"ctx\":{\"le\":1}},{\"type\":\"less_than\",\"loc\":[\"body\",\"d\"],\"msg\":\"Input should be less than -2\",\"input\":0,\"ctx\":{\"lt\":-2}},{\"type\":\"list_type\",\"loc\":[\"body\",\"l\"],\"msg\":\"Input should be a valid list\",\"input\":{}}]"],
];

describe('validateValue reproduces pydantic errors exactly (order, keys, messages, ctx)', () => {
  it.each(CASES)('%s %s', (model, body, errors, value) => {
    const schema = SCHEMAS[model] as TSchema;
    const r = validateValue(schema, decode(body), { loc: ['body'], strict: model === 'CP' });
    expect(stable(r.errors)).toBe(stable(decode(errors)));
    if (value !== undefined) expect(r.value).toEqual(decode(value));
  });
});

// pydantic's verdict on strings for `float` (allow_inf_nan=False) and `int` fields.
const NUMBER_STRINGS: [string, number | string, number | string][] = [
  ["12", 12.0, 12],
  [" 12 ", 12.0, 12],
  ["\u300012\u3000", 12.0, 12],
  ["\f12", 12.0, 12],
  ["+12", 12.0, 12],
  ["-12", -12.0, -12],
  ["-0", -0.0, 0],
  ["00012", 12.0, 12],
  ["000", 0.0, 0],
  ["0_1", 1.0, 1],
  ["1_000", 1000.0, 1000],
  ["1__000", "float_parsing", "int_parsing"],
  ["_1", "float_parsing", "int_parsing"],
  ["1_", "float_parsing", "int_parsing"],
  ["+_1", 1.0, "int_parsing"],
  ["-_1", -1.0, "int_parsing"],
  ["12.0", 12.0, 12],
  ["12.000", 12.0, 12],
  ["12.", 12.0, "int_parsing"],
  [".0", 0.0, "int_parsing"],
  ["12.5", 12.5, "int_parsing"],
  ["1e3", 1000.0, "int_parsing"],
  ["1E3", 1000.0, "int_parsing"],
  ["0x10", "float_parsing", "int_parsing"],
  ["1 2", "float_parsing", "int_parsing"],
  ["", "float_parsing", "int_parsing"],
  ["   ", "float_parsing", "int_parsing"],
  ["-", "float_parsing", "int_parsing"],
  ["+", "float_parsing", "int_parsing"],
  ["0-8", "float_parsing", -8],
  ["0+5", "float_parsing", "int_parsing"],
  ["--1", "float_parsing", "int_parsing"],
  ["+-1", "float_parsing", "int_parsing"],
  ["-+1", "float_parsing", "int_parsing"],
  ["1_2.0_0", 12.0, "int_parsing"],
  ["0_.0", 0.0, "int_parsing"],
  ["00.00", 0.0, 0],
  ["\u0661\u0662", "float_parsing", "int_parsing"],
  ["\uff11\uff12", "float_parsing", "int_parsing"],
  ["inf", "finite_number", "int_parsing"],
  ["nan", "finite_number", "int_parsing"],
  ["INFINITY", "finite_number", "int_parsing"],
  ["-inf", "finite_number", "int_parsing"],
  [".5", 0.5, "int_parsing"],
  ["5.", 5.0, "int_parsing"],
  ["1_.5", 1.5, "int_parsing"],
  ["1e1_0", 10000000000.0, "int_parsing"],
  [" 1_0", "float_parsing", 10],
  ["1_0 ", "float_parsing", 10],
  ["\u001c1", "float_parsing", "int_parsing"],
  ["\u00851\u0085", 1.0, 1],
  ["\u00a01\u00a0", 1.0, 1],
  ["1\u200b", "float_parsing", "int_parsing"],
  ["12345678901234567890", 1.2345678901234567e+19, 1.2345678901234567e+19],
  ['1'.repeat(4300), "finite_number", Infinity],
  ['1'.repeat(4301), "finite_number", "int_parsing_size"],
  [' '.concat('1'.repeat(4301)), "finite_number", "int_parsing"],
  ['x'.repeat(4301), "float_parsing", "int_parsing"],
];

describe('string coercion to numbers', () => {
  const outcome = (schema: TSchema, s: string) => {
    const r = validateValue(schema, s, { loc: [], strict: false });
    return r.errors[0]?.type ?? r.value;
  };
  it.each(NUMBER_STRINGS)('%j', (s, asFloat, asInt) => {
    expect(outcome(Type.Number(), s)).toBe(asFloat);
    expect(outcome(Type.Integer(), s)).toBe(asInt);
  });
});

describe('validateValue behaviour', () => {
  it('returns the input itself when nothing is coerced, and never mutates it', () => {
    const body = { prompt_id: 'p', inputs: { a: 'x' }, external_user_id: null };
    expect(validateValue(RunPromptRequest, body, { loc: ['body'], strict: false }).value).toBe(body);
    const raw = { prompt_id: 'p', numeric_value: '2.5', is_success: 'yes', zzz: 1 };
    const snapshot = structuredClone(raw);
    const r = validateValue(TrackOutcomeRequest, raw, { loc: ['body'], strict: false });
    expect(raw).toEqual(snapshot);
    expect(r).toEqual({
      value: { prompt_id: 'p', event_type: 'outcome', numeric_value: 2.5, is_success: true },
      errors: [],
    });
  });

  it('coerces inside arrays and records without touching the input', () => {
    const raw = { name: 'n', messages: [{ role: 'user', content: 'hi' }], params: { a: '1', b: 2 }, max_tokens: '7' };
    const r = validateValue(CreatePrompt, raw, { loc: ['body'], strict: true });
    expect(r.errors).toEqual([]);
    expect(r.value).toEqual({ ...raw, kind: 'text', params: { a: 1, b: 2 }, max_tokens: 7, traffic: 0.5, tags: [] });
    expect((r.value as { messages: unknown }).messages).toBe(raw.messages);
    expect(raw.params.a).toBe('1');
  });

  it('copies mutable defaults', () => {
    const a = validateValue(GetPromptRequest, { prompt_id: 'p' }, { loc: ['body'], strict: false }).value as { inputs: object };
    const b = validateValue(GetPromptRequest, { prompt_id: 'p' }, { loc: ['body'], strict: false }).value as { inputs: object };
    expect(a.inputs).toEqual({});
    expect(a.inputs).not.toBe(b.inputs);
  });

  it('prefixes loc with options.loc and leaves that array alone', () => {
    const loc = ['query'];
    const r = validateValue(RunPromptRequest, { inputs: { k: 1 } }, { loc, strict: false });
    expect(loc).toEqual(['query']);
    expect(r.errors.map((e) => e.loc)).toEqual([['query', 'prompt_id'], ['query', 'inputs', 'k']]);
    expect(validateValue(Type.String(), 5, { loc: [], strict: false }).errors[0]?.loc).toEqual([]);
  });

  it('emits error keys in the order type, loc, msg, input, ctx', () => {
    const r = validateValue(Bounds, { a: 20 }, { loc: ['body'], strict: false });
    expect(Object.keys(r.errors[0] ?? {})).toEqual(['type', 'loc', 'msg', 'input', 'ctx']);
    expect(Object.keys(r.errors[1] ?? {})).toEqual(['type', 'loc', 'msg', 'input']);
  });

  it('lets additionalProperties on the schema override options.strict', () => {
    const closed = Type.Object({ a: Type.String() }, { additionalProperties: false });
    const open = Type.Object({ a: Type.String() }, { additionalProperties: true });
    expect(validateValue(closed, { a: 'x', b: 1 }, { loc: [], strict: false }).errors).toEqual([
      { type: 'extra_forbidden', loc: ['b'], msg: 'Extra inputs are not permitted', input: 1 },
    ]);
    expect(validateValue(open, { a: 'x', b: 1 }, { loc: [], strict: true })).toEqual({ value: { a: 'x' }, errors: [] });
  });

  it('reads only own properties, so "constructor" or "__proto__" fields work', () => {
    const schema = Type.Object({ constructor: Type.String(), toString: Type.Optional(Type.String()) });
    expect(validateValue(schema, {}, { loc: [], strict: true }).errors).toEqual([
      { type: 'missing', loc: ['constructor'], msg: 'Field required', input: {} },
    ]);
    expect(validateValue(schema, { constructor: 'c', toString: 5 }, { loc: [], strict: true }).errors).toEqual([
      { type: 'string_type', loc: ['toString'], msg: 'Input should be a valid string', input: 5 },
    ]);
    const proto = decode('{"__proto__":1,"a":"x"}');
    const r = validateValue(Type.Record(Type.String(), Type.String()), proto, { loc: [], strict: false });
    expect(r.errors).toEqual([{ type: 'string_type', loc: ['__proto__'], msg: 'Input should be a valid string', input: 1 }]);
  });

  it('validates null for Type.Null and a single literal', () => {
    expect(validateValue(Type.Null(), 1, { loc: [], strict: false }).errors[0]?.msg).toBe('Input should be None');
    expect(validateValue(Type.Literal('a'), 'b', { loc: [], strict: false }).errors).toEqual([
      { type: 'literal_error', loc: [], msg: "Input should be 'a'", input: 'b', ctx: { expected: "'a'" } },
    ]);
  });

  it('refuses schemas it cannot reproduce faithfully', () => {
    const opts = { loc: [], strict: false };
    expect(() => validateValue(Type.Union([Type.String(), Type.Number()]), 'x', opts)).toThrow(/unions/);
    expect(() => validateValue(Type.Tuple([Type.String()]), ['x'], opts)).toThrow(/unsupported/);
  });
});

describe('pydantic formatting helpers', () => {
  it.each([
    [0, '0'], [1, '1'], [-2, '-2'], [0.5, '0.5'], [1e-7, '0.0000001'], [-2.5e-8, '-0.000000025'],
    [1e21, '1000000000000000000000'], [1.5e22, '15000000000000000000000'], [123.456, '123.456'],
    [Infinity, 'inf'], [-Infinity, '-inf'], [NaN, 'NaN'],
  ])('formatNumber(%d) = %s', (n, s) => {
    expect(formatNumber(n)).toBe(s);
  });

  it.each([
    ['a', "'a'"], ["it's", `"it's"`], [`a"b'c`, `'a"b\\'c'`], ['back\\slash', "'back\\\\slash'"],
    ['line\nbreak\t', "'line\\nbreak\\t'"], ['\x00\x7f', "'\\x00\\x7f'"], ['é😀', "'é😀'"], [true, 'True'], [null, 'None'], [3, '3'],
  ])('pyRepr(%j) = %s', (v, s) => {
    expect(pyRepr(v)).toBe(s);
  });

  it('joins expected literals like pydantic', () => {
    expect(expectedList(["'a'"])).toBe("'a'");
    expect(expectedList(["'a'", "'b'"])).toBe("'a' or 'b'");
    expect(expectedList(["'a'", "'b'", "'c'"])).toBe("'a', 'b' or 'c'");
  });
});
