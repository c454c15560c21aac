/** docs/runtime-contract.md, "The order of checks", step 2: reading the body (Content-Type, empty, null, UTF-8, BOM, JSON syntax, size). */
import {
  detail, GET_SUPPORT_OK, H, jsonInvalid, MISSING_BODY, MISSING_KEY, missing, NOKEY, PARSE_ERROR, post, runOk, sentAsText, SUPPORT_BODY,
  TOO_LARGE, trackOk, type ContractCase,
} from '../contractCase.js';

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const bom = (text: string) => Buffer.concat([BOM, Buffer.from(text, 'utf8')]);
const bytes = (...parts: Array<string | number[]>) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p))));
const ct = (contentType: string) => H({ 'content-type': contentType });
const noCt = () => ({ 'x-api-key': '⟦ADMIN⟧' });
const SUPPORT_AS_TEXT = JSON.stringify(SUPPORT_BODY);

const LIMIT = 1024 * 1024;
// Padded through a field the endpoint ignores: every real string field has its own smaller maximum.
const atLimit = (extra: number) => {
  const head = '{"prompt_id":"support","padding":"';
  return `${head}${'a'.repeat(LIMIT + extra - head.length - 2)}"}`;
};
const nested = (depth: number) => `{"prompt_id":"support","inputs":{"name":"Ann","topic":"billing"},"deep":${'['.repeat(depth)}${']'.repeat(depth)}}`;

export const bodyCases: ContractCase[] = [
  // Which Content-Types are parsed as JSON.
  post('JSON: application/json', '/get_prompt', SUPPORT_BODY, 200, GET_SUPPORT_OK),
  post('JSON: application/json; charset=utf-8', '/get_prompt', SUPPORT_BODY, 200, GET_SUPPORT_OK, { headers: ct('application/json; charset=utf-8') }),
  post('JSON: Application/JSON (case-insensitive)', '/get_prompt', SUPPORT_BODY, 200, GET_SUPPORT_OK, { headers: ct('Application/JSON') }),
  post('JSON: APPLICATION/JSON ; Charset=UTF-8 (space before ;)', '/get_prompt', SUPPORT_BODY, 200, GET_SUPPORT_OK, { headers: ct('APPLICATION/JSON ; Charset=UTF-8') }),
  post('JSON: application/vnd.api+json', '/get_prompt', SUPPORT_BODY, 200, GET_SUPPORT_OK, { headers: ct('application/vnd.api+json') }),
  post('JSON: application/merge-patch+json', '/run_prompt', SUPPORT_BODY, 200, runOk('Hello Ann, about billing'), { headers: ct('application/merge-patch+json') }),
  post('JSON: absent Content-Type is parsed as JSON', '/get_prompt', SUPPORT_BODY, 200, GET_SUPPORT_OK, { headers: noCt() }),
  post('JSON: an empty Content-Type value is parsed as JSON (FastAPI: `if not content_type`)', '/get_prompt', SUPPORT_BODY, 200, GET_SUPPORT_OK, { headers: ct('') }),

  // Anything else: the raw text, not parsed → model_attributes_type with the text as input, whose
  // message (only ours) also says what the body was sent as: its media type, lower-cased.
  post('raw: text/plain JSON text is not parsed', '/get_prompt', SUPPORT_BODY, 422, sentAsText('as text/plain', SUPPORT_AS_TEXT), { headers: ct('text/plain') }),
  post('raw: text/plain; charset=utf-8 on /track_outcome', '/track_outcome', '{"prompt_id":"support"}', 422, sentAsText('as text/plain', '"{\\"prompt_id\\":\\"support\\"}"'), { headers: ct('text/plain; charset=utf-8') }),
  post('raw: form-urlencoded (curl -d)', '/run_prompt', 'prompt_id=support&inputs=x', 422, sentAsText('as application/x-www-form-urlencoded', '"prompt_id=support&inputs=x"'), { headers: ct('application/x-www-form-urlencoded') }),
  post('raw: multipart/form-data', '/get_prompt', SUPPORT_BODY, 422, sentAsText('as multipart/form-data', SUPPORT_AS_TEXT), { headers: ct('multipart/form-data; boundary=xyz') }),
  post('raw: text/json is not application/*', '/get_prompt', SUPPORT_BODY, 422, sentAsText('as text/json', SUPPORT_AS_TEXT), { headers: ct('text/json') }),
  post('raw: application/jsonx', '/get_prompt', SUPPORT_BODY, 422, sentAsText('as application/jsonx', SUPPORT_AS_TEXT), { headers: ct('application/jsonx') }),
  post('raw: application/json+x', '/get_prompt', SUPPORT_BODY, 422, sentAsText('as application/json+x', SUPPORT_AS_TEXT), { headers: ct('application/json+x') }),
  // Over a socket Node (like uvicorn) strips header whitespace, so only inject can send it.
  post('raw: a whitespace-only Content-Type', '/get_prompt', SUPPORT_BODY, 422, sentAsText('with a blank content-type', SUPPORT_AS_TEXT), { headers: ct(' '), transports: ['inject'] }),
  post('raw: a Content-Type without a slash (foo)', '/get_prompt', '{}', 422, sentAsText('as foo', '"{}"'), { headers: ct('foo') }),
  post('raw: a Content-Type without a slash (application)', '/run_prompt', SUPPORT_BODY, 422, sentAsText('as application', SUPPORT_AS_TEXT), { headers: ct('application') }),
  post('raw: a list of media types is not JSON', '/track_outcome', '{"prompt_id":"support"}', 422, sentAsText('as application/json, text/plain', '"{\\"prompt_id\\":\\"support\\"}"'), { headers: ct('application/json, text/plain') }),
  post('raw: application/ json (space in the type)', '/get_prompt', '{}', 422, sentAsText('as application/ json', '"{}"'), { headers: ct('application/ json') }),
  post('raw: text/ (empty subtype)', '/get_prompt', '[]', 422, sentAsText('as text/', '"[]"'), { headers: ct('text/') }),
  post('missing: empty body under an unparseable Content-Type', '/get_prompt', '', 422, detail(MISSING_BODY), { headers: ct('foo') }),
  post('JSON: a quoted ; in a parameter', '/get_prompt', SUPPORT_BODY, 200, GET_SUPPORT_OK, { headers: ct('APPLICATION/VND.API+JSON; x="a;b"') }),
  post('JSON: application/json;; (empty parameters)', '/get_prompt', '{}', 422, detail(missing('prompt_id', '{}')), { headers: ct('application/json;;') }),
  post('raw: a JSON syntax error under text/plain is just text', '/run_prompt', '{bad', 422, sentAsText('as text/plain', '"{bad"'), { headers: ct('text/plain') }),
  post('raw: non-ASCII text echoed as is', '/track_outcome', 'héllo 😀 日本', 422, sentAsText('as text/plain', '"héllo 😀 日本"'), { headers: ct('text/plain') }),
  post('raw: the text "null" is not JSON null', '/get_prompt', 'null', 422, sentAsText('as text/plain', '"null"'), { headers: ct('text/plain') }),
  post('raw: a BOM stays in raw text', '/get_prompt', bom('hi'), 422, sentAsText('as text/plain', '"\ufeffhi"'), { headers: ct('text/plain') }),
  post('raw: without a key, header item first', '/run_prompt', 'x', 422, sentAsText('as text/plain', '"x"', MISSING_KEY), { headers: NOKEY('text/plain') }),

  // Empty body and JSON null: the body is missing.
  post('missing: empty application/json body', '/run_prompt', '', 422, detail(MISSING_BODY)),
  post('missing: empty text/plain body', '/get_prompt', '', 422, detail(MISSING_BODY), { headers: ct('text/plain') }),
  post('missing: no body and no Content-Type', '/track_outcome', undefined, 422, detail(MISSING_BODY), { headers: noCt() }),
  post('missing: empty body without a key', '/track_outcome', '', 422, detail(MISSING_KEY, MISSING_BODY), { headers: NOKEY() }),
  post('missing: JSON null', '/run_prompt', 'null', 422, detail(MISSING_BODY)),
  post('missing: JSON null with whitespace', '/get_prompt', ' \n null \t', 422, detail(MISSING_BODY)),
  post('missing: JSON null after a BOM', '/track_outcome', bom('null'), 422, detail(MISSING_BODY)),
  post('missing: JSON null without a key', '/get_prompt', 'null', 422, detail(MISSING_KEY, MISSING_BODY), { headers: NOKEY() }),
  post('missing: JSON null with a wrong key is 422, not 401', '/run_prompt', 'null', 422, detail(MISSING_BODY), { headers: H({ 'x-api-key': 'wrong' }) }),

  // Bytes that are not UTF-8: 400 under any Content-Type, before the key.
  post('400 invalid UTF-8 under application/json', '/run_prompt', bytes('{"prompt_id":"', [0xff], '","inputs":{}}'), 400, PARSE_ERROR),
  post('400 invalid UTF-8 under text/plain', '/get_prompt', Buffer.from([0xff, 0xfe]), 400, PARSE_ERROR, { headers: ct('text/plain') }),
  post('400 invalid UTF-8 under form-urlencoded', '/track_outcome', bytes('prompt_id=', [0xe9]), 400, PARSE_ERROR, { headers: ct('application/x-www-form-urlencoded') }),
  post('400 invalid UTF-8 without a Content-Type', '/get_prompt', bytes('{"prompt_id":"', [0xc3], '"}'), 400, PARSE_ERROR, { headers: noCt() }),
  post('400 invalid UTF-8 without a key', '/track_outcome', bytes('{"prompt_id":"', [0x80], '"}'), 400, PARSE_ERROR, { headers: NOKEY() }),
  post('400 invalid UTF-8 with a wrong key', '/run_prompt', bytes([0xc0, 0xaf]), 400, PARSE_ERROR, { headers: H({ 'x-api-key': 'wrong' }) }),
  post('400 overlong encoding', '/get_prompt', bytes('{"prompt_id":"', [0xc0, 0xaf], '"}'), 400, PARSE_ERROR),
  post('400 truncated multi-byte sequence at the end', '/get_prompt', bytes('"', [0xe2, 0x82]), 400, PARSE_ERROR),
  post('400 invalid UTF-8 inside what would be a JSON syntax error', '/run_prompt', bytes('{bad', [0xff]), 400, PARSE_ERROR),

  // UTF-8 byte-order mark: skipped before JSON, not counted in positions.
  post('BOM before valid JSON', '/get_prompt', bom(SUPPORT_BODY), 200, GET_SUPPORT_OK),
  post('BOM then {bad: position not counting the BOM', '/run_prompt', bom('{bad'), 422, jsonInvalid(1, 'Expecting property name enclosed in double quotes')),
  post('BOM then spaces then {bad', '/run_prompt', bom('  {bad'), 422, jsonInvalid(3, 'Expecting property name enclosed in double quotes')),
  post('BOM alone', '/get_prompt', BOM, 422, jsonInvalid(0, 'Expecting value')),
  post('two BOMs: only one is skipped', '/get_prompt', bom('\ufeff{}'), 422, jsonInvalid(0, 'Expecting value')),

  // JSON syntax errors: one json_invalid item with Python's position (code points) and message.
  post('json: {bad', '/run_prompt', '{bad', 422, jsonInvalid(1, 'Expecting property name enclosed in double quotes')),
  post('json: three spaces', '/run_prompt', '   ', 422, jsonInvalid(3, 'Expecting value')),
  post('json: a lone newline', '/get_prompt', '\n', 422, jsonInvalid(1, 'Expecting value')),
  post('json: {"a"', '/run_prompt', '{"a"', 422, jsonInvalid(4, "Expecting ':' delimiter")),
  post('json: {"a":1', '/run_prompt', '{"a":1', 422, jsonInvalid(6, "Expecting ',' delimiter")),
  post('json: {} x', '/run_prompt', '{} x', 422, jsonInvalid(3, 'Extra data')),
  post('json: "abc (unterminated string)', '/run_prompt', '"abc', 422, jsonInvalid(0, 'Unterminated string starting at')),
  post('json: {"a":1,} (trailing comma)', '/run_prompt', '{"a":1,}', 422, jsonInvalid(7, 'Expecting property name enclosed in double quotes')),
  post('json: [1,] (trailing comma in an array)', '/get_prompt', '[1,]', 422, jsonInvalid(3, 'Expecting value')),
  post('json: [1 2]', '/get_prompt', '[1 2]', 422, jsonInvalid(3, "Expecting ',' delimiter")),
  post('json: [ alone', '/track_outcome', '[', 422, jsonInvalid(1, 'Expecting value')),
  post('json: { alone', '/track_outcome', '{', 422, jsonInvalid(1, 'Expecting property name enclosed in double quotes')),
  post('json: nul', '/track_outcome', 'nul', 422, jsonInvalid(0, 'Expecting value')),
  post('json: single quotes', '/get_prompt', "{'a':1}", 422, jsonInvalid(1, 'Expecting property name enclosed in double quotes')),
  post('json: {"a" 1}', '/get_prompt', '{"a" 1}', 422, jsonInvalid(5, "Expecting ':' delimiter")),
  post('json: {"a":true (unclosed)', '/get_prompt', '{"a":true', 422, jsonInvalid(9, "Expecting ',' delimiter")),
  post('json: {"a":-}', '/get_prompt', '{"a":-}', 422, jsonInvalid(5, 'Expecting value')),
  post('json: leading zero {"a":01}', '/get_prompt', '{"a":01}', 422, jsonInvalid(6, "Expecting ',' delimiter")),
  post('json: {"a":1.}', '/get_prompt', '{"a":1.}', 422, jsonInvalid(6, "Expecting ',' delimiter")),
  post('json: {"a":.5}', '/get_prompt', '{"a":.5}', 422, jsonInvalid(5, 'Expecting value')),
  post('json: missing comma between members', '/track_outcome', '{"a":1 "b":2}', 422, jsonInvalid(7, "Expecting ',' delimiter")),
  post('json: array closed by }', '/track_outcome', '{"a":[1,2}', 422, jsonInvalid(9, "Expecting ',' delimiter")),
  post('json: object closed by ]', '/track_outcome', '{"a":{"b":1]}', 422, jsonInvalid(11, "Expecting ',' delimiter")),
  post('json: extra data after a complete body', '/track_outcome', '{"prompt_id":"x"}}', 422, jsonInvalid(17, 'Extra data')),
  post('json: raw control character in a string', '/run_prompt', '{"a":"\u0001"}', 422, jsonInvalid(6, 'Invalid control character at')),
  post('json: raw newline in a string', '/run_prompt', '{"a":"x\ny"}', 422, jsonInvalid(7, 'Invalid control character at')),
  post('json: invalid escape', '/run_prompt', '"\\q"', 422, jsonInvalid(1, 'Invalid \\escape')),
  post('json: invalid \\u escape', '/run_prompt', '"\\u12x"', 422, jsonInvalid(2, 'Invalid \\uXXXX escape')),
  post('json: no-break space is not JSON whitespace', '/get_prompt', '\u00a0{}', 422, jsonInvalid(0, 'Expecting value')),
  post('json: form feed is not JSON whitespace', '/get_prompt', '\f{}', 422, jsonInvalid(0, 'Expecting value')),
  post('json: emoji key then trailing comma (code-point position 7, not 8)', '/run_prompt', '{"😀":1,}', 422, jsonInvalid(7, 'Expecting property name enclosed in double quotes')),
  post('json: two emoji before the error', '/run_prompt', '{"a":"😀😀", x}', 422, jsonInvalid(11, 'Expecting property name enclosed in double quotes')),
  post('json: emoji in an array then tru', '/get_prompt', '["😀", tru]', 422, jsonInvalid(6, 'Expecting value')),
  post('json: emoji then invalid escape', '/get_prompt', '"😀\\x"', 422, jsonInvalid(2, 'Invalid \\escape')),
  post('json: non-BMP and accented text before the error', '/track_outcome', '{"é":"日本😀𝄞","b":}', 422, jsonInvalid(16, 'Expecting value')),
  post('json: error is the whole answer without a key', '/run_prompt', '{bad', 422, jsonInvalid(1, 'Expecting property name enclosed in double quotes'), { headers: NOKEY() }),
  post('json: error is the whole answer with a wrong key', '/get_prompt', '{"a":1,}', 422, jsonInvalid(7, 'Expecting property name enclosed in double quotes'), { headers: H({ 'x-api-key': 'wrong' }) }),
  post('json: error under application/vnd.api+json', '/track_outcome', '{"a"', 422, jsonInvalid(4, "Expecting ':' delimiter"), { headers: ct('application/vnd.api+json') }),
  post('json: error without a Content-Type', '/track_outcome', '{} x', 422, jsonInvalid(3, 'Extra data'), { headers: noCt() }),
  post('json: error under application/json; charset=utf-8', '/get_prompt', '"abc', 422, jsonInvalid(0, 'Unterminated string starting at'), { headers: ct('application/json; charset=utf-8') }),

  // Where CPython's json itself fails outside JSON syntax: FastAPI's 400.
  post('400 an integer literal over 4300 digits', '/get_prompt', `{"prompt_id":"support","n":${'1'.repeat(4301)}}`, 400, PARSE_ERROR),
  post('an integer literal of 4300 digits is fine', '/get_prompt', `{"prompt_id":"support","inputs":{"name":"Ann","topic":"billing"},"n":${'1'.repeat(4300)}}`, 200, GET_SUPPORT_OK),
  post('400 nesting deeper than Python can decode', '/get_prompt', nested(100_000), 400, PARSE_ERROR),
  post('moderate nesting is fine', '/get_prompt', nested(50), 200, GET_SUPPORT_OK),
  post('JSON extras: duplicate keys, last wins', '/get_prompt', '{"prompt_id":"ghost","inputs":{"name":"X"},"prompt_id":"support","inputs":{"name":"Ann","topic":"billing"}}', 200, GET_SUPPORT_OK),

  // Size limit: over 1 MiB is 413, whatever the key; exactly 1 MiB is read.
  post('413 body of 1 MiB + 1 byte', '/track_outcome', atLimit(1), 413, TOO_LARGE),
  post('413 without a key', '/track_outcome', atLimit(1), 413, TOO_LARGE, { headers: NOKEY() }),
  post('413 with a wrong key', '/run_prompt', atLimit(1), 413, TOO_LARGE, { headers: H({ 'x-api-key': 'wrong' }) }),
  post('413 under text/plain', '/get_prompt', atLimit(1000), 413, TOO_LARGE, { headers: ct('text/plain') }),
  post('a body of exactly 1 MiB is accepted', '/track_outcome', atLimit(0), 200, trackOk()),
  post('just under the limit, still validated', '/track_outcome', atLimit(-10).replace('"prompt_id":"support"', '"prompt_id":null'), 422,
    detail(`{"type":"string_type","loc":["body","prompt_id"],"msg":"Input should be a valid string","input":null}`)),
  post('missing fields echo the whole body, unknown fields kept in the echo', '/track_outcome', '{"x":1}', 422, detail(missing('prompt_id', '{"x":1}'))),
];
