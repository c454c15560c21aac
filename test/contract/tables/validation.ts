/** docs/runtime-contract.md, "The order of checks", step 3: header validation, then pydantic (lax) body validation, one 422 with every item. */
import {
  B, boolParsing, boolType, detail, dictType, finiteNumber, floatParsing, floatType, GET_SUPPORT_OK, H, MISSING_BODY, MISSING_KEY, missing,
  modelType, NOKEY, NUMBER_FORM, KEY_ORDER, post, runOk, stringType, SUPPORT_BODY, trackOk, type ContractCase,
} from '../contractCase.js';

const RUN = '/run_prompt';
const GET = '/get_prompt';
const TRACK = '/track_outcome';
const OK_INPUTS = '{"name":"Ann","topic":"billing"}';

/** /track_outcome for prompt `support` with one extra member (raw JSON text). */
const track = (member: string) => `{"prompt_id":"support",${member}}`;

/** bool lax table for `is_success` (None allowed). */
const boolOk = (literal: string, stored: number | null): ContractCase =>
  post(`bool: is_success ${literal} → ${stored === null ? 'null' : stored === 1 ? 'true' : 'false'}`, TRACK, track(`"is_success":${literal}`), 200, trackOk(), { stored: { is_success: stored } });
const boolBad = (literal: string, item: string): ContractCase =>
  post(`bool: is_success ${literal} → ${item.slice(9, item.indexOf('"', 9))}`, TRACK, track(`"is_success":${literal}`), 422, detail(item),
    /\.0$/.test(literal) ? { deviation: NUMBER_FORM } : {});

/** float lax table for `numeric_value` (None allowed, finite only). */
const floatOk = (literal: string, stored: number | null): ContractCase =>
  post(`float: numeric_value ${literal} → ${stored}`, TRACK, track(`"numeric_value":${literal}`), 200, trackOk(), { stored: { numeric_value: stored } });
const floatBad = (literal: string, item: string): ContractCase =>
  post(`float: numeric_value ${literal} → ${item.slice(9, item.indexOf('"', 9))}`, TRACK, track(`"numeric_value":${literal}`), 422, detail(item));

export const validationCases: ContractCase[] = [
  // Step 3: the X-API-Key header item, then the body items.
  post('header: missing key, valid body', GET, SUPPORT_BODY, 422, detail(MISSING_KEY), { headers: NOKEY() }),
  post('header: missing key, missing fields after it', RUN, '{}', 422, detail(MISSING_KEY, missing('prompt_id', '{}'), missing('inputs', '{}')), { headers: NOKEY() }),
  post('header: missing key, body not an object', TRACK, '[1,"a"]', 422, detail(MISSING_KEY, modelType('[1,"a"]')), { headers: NOKEY() }),
  post('header: missing key, no body at all', RUN, undefined, 422, detail(MISSING_KEY, MISSING_BODY), { headers: {} }),
  post('header: missing key, type errors', TRACK, '{"prompt_id":1,"is_success":"maybe"}', 422,
    detail(MISSING_KEY, stringType(B('prompt_id'), '1'), boolParsing('"maybe"')), { headers: NOKEY() }),
  post('header: an empty key is present (no header item)', RUN, '{"inputs":{}}', 422, detail(missing('prompt_id', '{"inputs":{}}')), { headers: H({ 'x-api-key': '' }) }),
  post('header: a wrong key with an invalid body is 422', GET, '{"prompt_id":5}', 422, detail(stringType(B('prompt_id'), '5')), { headers: H({ 'x-api-key': 'wrong' }) }),
  post('header: another header is not the key', GET, SUPPORT_BODY, 422, detail(MISSING_KEY), { headers: { 'content-type': 'application/json', 'x-api-keys': '⟦ADMIN⟧', authorization: 'Bearer ⟦ADMIN⟧' } }),

  // Body not an object.
  post('model: array', RUN, '[]', 422, detail(modelType('[]'))),
  post('model: array of values', GET, '[1,"a",null]', 422, detail(modelType('[1,"a",null]'))),
  post('model: string', RUN, '"abc"', 422, detail(modelType('"abc"'))),
  post('model: integer', GET, '5', 422, detail(modelType('5'))),
  post('model: negative float', TRACK, '-1.5', 422, detail(modelType('-1.5'))),
  post('model: true', TRACK, 'true', 422, detail(modelType('true'))),
  post('model: false', RUN, 'false', 422, detail(modelType('false'))),
  post('model: non-ASCII string', GET, '"日本 😀"', 422, detail(modelType('"日本 😀"'))),

  // Missing required fields: input is the whole body (as decoded: duplicates folded, order kept).
  post('missing: {} on /run_prompt', RUN, '{}', 422, detail(missing('prompt_id', '{}'), missing('inputs', '{}'))),
  post('missing: {} on /get_prompt (inputs has a default)', GET, '{}', 422, detail(missing('prompt_id', '{}'))),
  post('missing: {} on /track_outcome', TRACK, '{}', 422, detail(missing('prompt_id', '{}'))),
  post('missing: prompt_id only', RUN, '{"inputs":{}}', 422, detail(missing('prompt_id', '{"inputs":{}}'))),
  post('missing: inputs only, other fields echoed', RUN, '{"prompt_id":"support","external_user_id":null,"x":[1,{"y":2}]}', 422,
    detail(missing('inputs', '{"prompt_id":"support","external_user_id":null,"x":[1,{"y":2}]}'))),
  post('missing: echo keeps the first position of a duplicate key with the last value', TRACK, '{"a":1,"b":2,"a":3}', 422, detail(missing('prompt_id', '{"a":3,"b":2}'))),
  post('missing: echo keeps integer-like keys in document order', GET, '{"b":1,"2":2,"1":3}', 422, detail(missing('prompt_id', '{"b":1,"2":2,"1":3}')), { deviation: KEY_ORDER }),
  post('missing: echo of nested objects keeps document order', TRACK, '{"m":{"z":1,"10":2,"a":{"2":0,"1":0}}}', 422, detail(missing('prompt_id', '{"m":{"z":1,"10":2,"a":{"2":0,"1":0}}}')), { deviation: KEY_ORDER }),
  post('missing: non-ASCII and escapes echoed as UTF-8, not \\u-escaped', TRACK, '{"label":"\\u00e9\\ud83d\\ude00 日本語 😀"}', 422, detail(missing('prompt_id', '{"label":"é😀 日本語 😀"}'))),
  post('missing: control characters and quotes escaped like json.dumps', TRACK, '{"label":"a\\"b\\\\c\\n\\t\\u0001\\u001f\\u007f\\u2028/\\/"}', 422,
    detail(missing('prompt_id', '{"label":"a\\"b\\\\c\\n\\t\\u0001\\u001f\u007f\u2028//"}'))),
  post('missing: floats echoed with Python repr (3.0 stays 3.0)', TRACK, '{"x":3.0,"y":2.50,"z":-0.0}', 422, detail(missing('prompt_id', '{"x":3.0,"y":2.5,"z":-0.0}')), { deviation: NUMBER_FORM }),

  // str fields accept only strings; numbers are not coerced.
  post('string: prompt_id integer', RUN, `{"prompt_id":5,"inputs":${OK_INPUTS}}`, 422, detail(stringType(B('prompt_id'), '5'))),
  post('string: prompt_id float', RUN, `{"prompt_id":1.5,"inputs":${OK_INPUTS}}`, 422, detail(stringType(B('prompt_id'), '1.5'))),
  post('string: prompt_id bool', GET, '{"prompt_id":true}', 422, detail(stringType(B('prompt_id'), 'true'))),
  post('string: prompt_id list', GET, '{"prompt_id":["support"]}', 422, detail(stringType(B('prompt_id'), '["support"]'))),
  post('string: prompt_id object', TRACK, '{"prompt_id":{"id":"support"}}', 422, detail(stringType(B('prompt_id'), '{"id":"support"}'))),
  post('string: required prompt_id given null (run)', RUN, `{"prompt_id":null,"inputs":${OK_INPUTS}}`, 422, detail(stringType(B('prompt_id'), 'null'))),
  post('string: required prompt_id given null (get)', GET, '{"prompt_id":null}', 422, detail(stringType(B('prompt_id'), 'null'))),
  post('string: required prompt_id given null (track)', TRACK, '{"prompt_id":null}', 422, detail(stringType(B('prompt_id'), 'null'))),
  post('string: defaulted event_type given null', TRACK, track('"event_type":null'), 422, detail(stringType(B('event_type'), 'null'))),
  post('string: external_user_id integer', GET, '{"prompt_id":"support","external_user_id":42}', 422, detail(stringType(B('external_user_id'), '42'))),
  post('string: external_user_id list', RUN, `{"prompt_id":"support","inputs":${OK_INPUTS},"external_user_id":[]}`, 422, detail(stringType(B('external_user_id'), '[]'))),
  post('string: label, value and source', TRACK, track('"label":3,"value":4.25,"source":false'), 422,
    detail(stringType(B('label'), '3'), stringType(B('value'), '4.25'), stringType(B('source'), 'false'))),
  post('string: prompt_run_id integer', TRACK, track('"prompt_run_id":123'), 422, detail(stringType(B('prompt_run_id'), '123'))),

  // Echoed numbers keep Python's form (int stays exact, float uses repr).
  post('echo: float 1.0 stays 1.0', RUN, `{"prompt_id":1.0,"inputs":${OK_INPUTS}}`, 422, detail(stringType(B('prompt_id'), '1.0')), { deviation: NUMBER_FORM }),
  post('echo: 1e5 is the float 100000.0', RUN, `{"prompt_id":1e5,"inputs":${OK_INPUTS}}`, 422, detail(stringType(B('prompt_id'), '100000.0')), { deviation: NUMBER_FORM }),
  post('echo: 1E+2 is the float 100.0', GET, '{"prompt_id":1E+2}', 422, detail(stringType(B('prompt_id'), '100.0')), { deviation: NUMBER_FORM }),
  post('echo: 1.5e-7 is written 1.5e-07', GET, '{"prompt_id":1.5e-7}', 422, detail(stringType(B('prompt_id'), '1.5e-07')), { deviation: NUMBER_FORM }),
  post('echo: 1e16 is written 1e+16', GET, '{"prompt_id":1e16}', 422, detail(stringType(B('prompt_id'), '1e+16')), { deviation: NUMBER_FORM }),
  post('echo: -0.0 stays -0.0', GET, '{"prompt_id":-0.0}', 422, detail(stringType(B('prompt_id'), '-0.0')), { deviation: NUMBER_FORM }),
  post('echo: 0.1 stays 0.1', GET, '{"prompt_id":0.1}', 422, detail(stringType(B('prompt_id'), '0.1'))),
  post('echo: integer above 2^53 is exact', GET, '{"prompt_id":9007199254740993}', 422, detail(stringType(B('prompt_id'), '9007199254740993')), { deviation: NUMBER_FORM }),
  post('echo: 30-digit integer is exact', TRACK, '{"prompt_id":123456789012345678901234567890}', 422, detail(stringType(B('prompt_id'), '123456789012345678901234567890')), { deviation: NUMBER_FORM }),
  post('echo: -0 integer is 0', TRACK, '{"prompt_id":-0}', 422, detail(stringType(B('prompt_id'), '0'))),

  // dict[str, str] inputs: one item per bad value, in key order; dict_type for a non-object.
  post('inputs: non-string values, one item each in key order', RUN,
    '{"prompt_id":"support","inputs":{"name":1,"topic":null,"ok":"s","b":false,"l":[1],"o":{"k":"v"},"f":2.0}}', 422,
    detail(stringType(B('inputs', 'name'), '1'), stringType(B('inputs', 'topic'), 'null'), stringType(B('inputs', 'b'), 'false'),
      stringType(B('inputs', 'l'), '[1]'), stringType(B('inputs', 'o'), '{"k":"v"}'), stringType(B('inputs', 'f'), '2.0')), { deviation: NUMBER_FORM }),
  post('inputs: integer-like keys keep document order', RUN, '{"prompt_id":"support","inputs":{"z":1,"10":2,"2":3}}', 422,
    detail(stringType(B('inputs', 'z'), '1'), stringType(B('inputs', '10'), '2'), stringType(B('inputs', '2'), '3')), { deviation: KEY_ORDER }),
  post('inputs: duplicate key reported once with its last value', RUN, '{"prompt_id":"support","inputs":{"name":1,"topic":"t","name":2}}', 422,
    detail(stringType(B('inputs', 'name'), '2'))),
  post('inputs: duplicate key fixed by its last value', RUN, '{"prompt_id":"support","inputs":{"name":1,"topic":"billing","name":"Ann"}}', 200, runOk('Hello Ann, about billing')),
  post('inputs: non-ASCII key in the loc', RUN, '{"prompt_id":"support","inputs":{"名前":7}}', 422, detail(stringType(B('inputs', '名前'), '7'))),
  post('inputs: string', RUN, '{"prompt_id":"support","inputs":"x"}', 422, detail(dictType(B('inputs'), '"x"'))),
  post('inputs: null (required, not nullable)', RUN, '{"prompt_id":"support","inputs":null}', 422, detail(dictType(B('inputs'), 'null'))),
  post('inputs: list', RUN, '{"prompt_id":"support","inputs":[["name","Ann"]]}', 422, detail(dictType(B('inputs'), '[["name","Ann"]]'))),
  post('inputs: number', RUN, '{"prompt_id":"support","inputs":5}', 422, detail(dictType(B('inputs'), '5'))),
  post('get inputs: null (defaulted, not nullable)', GET, '{"prompt_id":"support","inputs":null}', 422, detail(dictType(B('inputs'), 'null'))),
  post('get inputs: list', GET, '{"prompt_id":"support","inputs":[]}', 422, detail(dictType(B('inputs'), '[]'))),
  post('get inputs: any JSON values accepted', GET, '{"prompt_id":"support","inputs":{"name":5,"topic":"x","extra":[null,{"a":1}]}}', 200,
    '{"prompt_text":"Hello 5, about x","variant_assigned":null,"experiment_id":null,"prompt_version":1}'),
  post('metadata: list', TRACK, track('"metadata":[]'), 422, detail(dictType(B('metadata'), '[]'))),
  post('metadata: string', TRACK, track('"metadata":"x"'), 422, detail(dictType(B('metadata'), '"x"'))),
  post('metadata: free-form object accepted', TRACK, track('"metadata":{"a":[1,{"b":null}],"c":1.5}'), 200, trackOk()),

  // Errors in declaration order across fields, whatever the document order.
  post('order: /run_prompt fields reversed in the document', RUN, '{"external_user_id":2,"inputs":"x","prompt_id":1}', 422,
    detail(stringType(B('prompt_id'), '1'), dictType(B('inputs'), '"x"'), stringType(B('external_user_id'), '2'))),
  post('order: every /track_outcome field wrong, document reversed', TRACK,
    '{"metadata":[],"source":1,"is_success":"maybe","numeric_value":"abc","value":2,"label":3,"event_type":null,"external_user_id":4,"prompt_run_id":5}', 422,
    detail(
      stringType(B('prompt_run_id'), '5'),
      missing('prompt_id', '{"metadata":[],"source":1,"is_success":"maybe","numeric_value":"abc","value":2,"label":3,"event_type":null,"external_user_id":4,"prompt_run_id":5}'),
      stringType(B('external_user_id'), '4'), stringType(B('event_type'), 'null'), stringType(B('label'), '3'), stringType(B('value'), '2'),
      floatParsing('"abc"'), boolParsing('"maybe"'), stringType(B('source'), '1'), dictType(B('metadata'), '[]'))),
  post('order: header item, then prompt_id, then inputs values', RUN, '{"inputs":{"b":1,"a":2}}', 422,
    detail(MISSING_KEY, missing('prompt_id', '{"inputs":{"b":1,"a":2}}'), stringType(B('inputs', 'b'), '1'), stringType(B('inputs', 'a'), '2')), { headers: NOKEY() }),

  // Nullable fields take null; unknown fields are ignored.
  post('nullable: external_user_id null on /run_prompt', RUN, `{"prompt_id":"support","inputs":${OK_INPUTS},"external_user_id":null}`, 200, runOk('Hello Ann, about billing')),
  post('nullable: external_user_id null on /get_prompt', GET, '{"prompt_id":"support","inputs":{"name":"Ann","topic":"billing"},"external_user_id":null}', 200, GET_SUPPORT_OK),
  post('nullable: every optional /track_outcome field null', TRACK,
    track('"prompt_run_id":null,"external_user_id":null,"label":null,"value":null,"numeric_value":null,"is_success":null,"source":null,"metadata":null'), 200, trackOk(),
    { stored: { is_success: null, numeric_value: null, event_type: 'outcome' } }),
  post('extra: unknown fields ignored on /run_prompt', RUN, `{"prompt_id":"support","inputs":${OK_INPUTS},"model":"gpt-x","temperature":"hot","stream":true}`, 200, runOk('Hello Ann, about billing')),
  post('extra: unknown fields ignored on /get_prompt', GET, '{"prompt_id":"support","inputs":{"name":"Ann","topic":"billing"},"version":99,"label":null}', 200, GET_SUPPORT_OK),
  post('extra: unknown fields ignored on /track_outcome', TRACK, track('"run":1,"score":"x","event_type":"click"'), 200, trackOk(), { stored: { event_type: 'click' } }),

  // bool lax table (is_success).
  boolOk('true', 1), boolOk('false', 0), boolOk('"yes"', 1), boolOk('"ON"', 1), boolOk('"t"', 1), boolOk('"Y"', 1), boolOk('"TRUE"', 1),
  boolOk('"1"', 1), boolOk('"0"', 0), boolOk('"off"', 0), boolOk('"No"', 0), boolOk('"f"', 0), boolOk('1', 1), boolOk('0', 0),
  boolOk('1.0', 1), boolOk('0.0', 0), boolOk('null', null),
  boolBad('"maybe"', boolParsing('"maybe"')), boolBad('" true"', boolParsing('" true"')), boolBad('"true "', boolParsing('"true "')),
  boolBad('""', boolParsing('""')), boolBad('2', boolParsing('2')), boolBad('-1', boolParsing('-1')), boolBad('2.0', boolParsing('2.0')),
  boolBad('0.5', boolType('0.5')), boolBad('[]', boolType('[]')), boolBad('{}', boolType('{}')), boolBad('[true]', boolType('[true]')),

  // float lax table (numeric_value, finite only).
  floatOk('"3.5"', 3.5), floatOk('" 1e3 "', 1000), floatOk('"1_000"', 1000), floatOk('true', 1), floatOk('false', 0), floatOk('5', 5),
  floatOk('-2.25', -2.25), floatOk('"-0.5e-1"', -0.05), floatOk('null', null),
  floatBad('"abc"', floatParsing('"abc"')), floatBad('""', floatParsing('""')), floatBad('"1,5"', floatParsing('"1,5"')),
  floatBad('"0x10"', floatParsing('"0x10"')), floatBad('[]', floatType('[]')), floatBad('{}', floatType('{}')), floatBad('[1.5]', floatType('[1.5]')),
  floatBad('"inf"', finiteNumber('"inf"')), floatBad('"nan"', finiteNumber('"nan"')), floatBad('"-Infinity"', finiteNumber('"-Infinity"')),
  floatBad('"1e400"', finiteNumber('"1e400"')),
  // Python cannot write these inputs back as JSON (FastAPI would crash): the contract asks for the
  // finite_number 422; the echo is null, the only JSON for a non-finite number.
  floatBad('1e400', finiteNumber('null')), floatBad('-1e400', finiteNumber('null')), floatBad('NaN', finiteNumber('null')),
  floatBad('Infinity', finiteNumber('null')), floatBad('-Infinity', finiteNumber('null')),
];
