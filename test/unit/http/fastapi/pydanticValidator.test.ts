import { type TSchema, Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { formatNumber, pyRepr } from '../../../../src/http/fastapi/pydanticCoercions.js';
import { expectedList } from '../../../../src/lib/pythonText.js';
import { validateValue } from '../../../../src/http/fastapi/pydanticValidator.js';
import { decodePythonJson } from '../../../../src/http/fastapi/pythonJson.js';
import { renderedOnly } from '../../../../src/lib/schemas.js';

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const OptStr = () => Type.Optional(Nullable(Type.String()));

// The contract's request models (docs/runtime-contract.md, "Requests").
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

import { CASES } from './pydanticCases.js';

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

describe('stored values: lone surrogates and non-finite numbers (docs/management-api.md)', () => {
  // pydantic's items, keys in its order (type, loc, msg, input).
  const unicode = (loc: (string | number)[], input: string) => ({
    type: 'string_unicode',
    loc: ['body', ...loc],
    msg: 'Input should be a valid string, unable to parse raw data as a unicode string',
    input,
  });
  const finite = (loc: (string | number)[], input: number) => ({ type: 'finite_number', loc: ['body', ...loc], msg: 'Input should be a finite number', input });
  const Stored = Type.Object({
    name: Type.String({ maxLength: 3, pattern: '^a' }),
    tags: Type.Optional(Type.Record(Type.String(), Type.String())),
    meta: Type.Optional(Type.Any()),
  });
  const errors = (value: unknown) => validateValue(Stored, value, { loc: ['body'], strict: true }).errors;
  it.each([
    ['a lone high surrogate, before the length and pattern errors', { name: 'x\ud800yz' }, [unicode(['name'], 'x\ud800yz')]],
    ['a lone low surrogate', { name: 'a\udc00' }, [unicode(['name'], 'a\udc00')]],
    ['reversed halves', { name: 'a\ude00\ud83d' }, [unicode(['name'], 'a\ude00\ud83d')]],
    ['a pair is one character', { name: 'a\ud83d\ude00' }, []],
    ['in a record key, named as pydantic names keys', { name: 'a', tags: { 'k\ud800': 'v' } }, [unicode(['tags', 'k\ud800', '[key]'], 'k\ud800')]],
    ['in a record value', { name: 'a', tags: { k: '\udfff' } }, [unicode(['tags', 'k'], '\udfff')]],
    ['deep in free JSON', { name: 'a', meta: { a: [1, { b: '\ud800' }] } }, [unicode(['meta', 'a', 1, 'b'], '\ud800')]],
    ['a free JSON key', { name: 'a', meta: { '\ud800': 1 } }, [unicode(['meta', '\ud800', '[key]'], '\ud800')]],
    ['NaN in free JSON', { name: 'a', meta: { x: NaN } }, [finite(['meta', 'x'], NaN)]],
    ['Infinity and -Infinity in free JSON, each named', { name: 'a', meta: [Infinity, 1, -Infinity] }, [finite(['meta', 0], Infinity), finite(['meta', 2], -Infinity)]],
    ['the largest double is kept', { name: 'a', meta: { x: Number.MAX_VALUE, y: -Number.MAX_VALUE, z: 5e-324 } }, []],
  ])('%s', (_name, value, expected) => {
    expect(stable(errors(value))).toBe(stable(expected));
  });

  it('what JSON decodes as infinite (1e309, a 401-digit integer) is refused as non-finite', () => {
    for (const literal of ['1e309', '-1e309', '9'.repeat(401), 'NaN', 'Infinity']) {
      const r = validateValue(Stored, decode(`{"name":"a","meta":{"n":${literal}}}`), { loc: ['body'], strict: true });
      expect(r.errors.map((e) => [e.type, e.loc])).toEqual([['finite_number', ['body', 'meta', 'n']]]);
    }
  });

  it('a renderedOnly field lets both through (never stored) but still refuses NUL', () => {
    const Rendered = Type.Object({ prompt_id: Type.String(), inputs: Type.Optional(renderedOnly(Type.Record(Type.String(), Type.Any()))) });
    const check = (inputs: unknown) => validateValue(Rendered, { prompt_id: 'p', inputs }, { loc: ['body'], strict: false }).errors;
    expect(check({ s: '\ud800', n: NaN, '\udc00': [Infinity] })).toEqual([]);
    expect(check({ s: 'a\u0000' }).map((e) => e.type)).toEqual(['value_error']);
    // The mark covers its own field only: the rest of the body is checked as ever.
    expect(validateValue(Rendered, { prompt_id: '\ud800' }, { loc: ['body'], strict: false }).errors.map((e) => e.type)).toEqual(['string_unicode']);
  });
});

describe('tagged unions of objects and str | list (content parts)', () => {
  const Part = Type.Union([
    Type.Object({ type: Type.Literal('text'), text: Type.String() }),
    Type.Object({ type: Type.Literal('image_url'), image_url: Type.Object({ url: Type.String() }) }),
  ]);
  const Content = Type.Union([Type.String({ maxLength: 3 }), Type.Array(Part)]);
  const errors = (value: unknown) => validateValue(Content, value, { loc: ['c'], strict: true }).errors;
  it.each([
    ['a string', 'abc', []],
    ['a string over its bound, as the plain string field', 'abcd', [{ type: 'string_too_long', loc: ['c'] }]],
    ['neither, as the plain string field', 5, [{ type: 'string_type', loc: ['c'], msg: 'Input should be a valid string', input: 5 }]],
    ['parts', [{ type: 'text', text: 'x' }, { type: 'image_url', image_url: { url: 'u' } }], []],
    ['a part without its field, under its tag', [{ type: 'image_url', image_url: {} }], [{ type: 'missing', loc: ['c', 0, 'image_url', 'image_url', 'url'] }]],
    ['an extra key, under its tag', [{ type: 'text', text: 'x', more: 1 }], [{ type: 'extra_forbidden', loc: ['c', 0, 'text', 'more'] }]],
    ['an unknown tag', [{ type: 'audio' }], [{ type: 'union_tag_invalid', loc: ['c', 0], ctx: { discriminator: "'type'", tag: 'audio', expected_tags: "'text', 'image_url'" } }]],
    ['no tag', [{ text: 'x' }], [{ type: 'union_tag_not_found', loc: ['c', 0], msg: "Unable to extract tag using discriminator 'type'" }]],
    ['a part that is no object', ['x'], [{ type: 'model_attributes_type', loc: ['c', 0] }]],
  ])('%s', (_name, value, expected) => {
    const got = errors(value);
    expect(got).toHaveLength(expected.length);
    for (const [i, e] of expected.entries()) expect(got[i]).toMatchObject(e);
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
