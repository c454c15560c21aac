/** docs/runtime-contract.md, "The order of checks", step 1: routing answers come before anything else (method, key, body). */
import { GET_SUPPORT_OK, H, NOKEY, SUPPORT_BODY, post, type ContractCase } from '../contractCase.js';

const NOT_FOUND = '{"detail":"Not Found"}';
const NOT_ALLOWED = '{"detail":"Method Not Allowed"}';
const BAD_UTF8 = Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
const BIG = `{"prompt_id":"support","value":"${'a'.repeat(2 * 1024 * 1024)}"}`;

function call(name: string, method: string, path: string, status: number, body: string, opts: Partial<ContractCase> = {}): ContractCase {
  return { name, method, path, headers: H(), rawBody: SUPPORT_BODY, status, body, ...opts };
}

const redirect = (name: string, method: string, path: string, location: string, opts: Partial<ContractCase> = {}): ContractCase =>
  call(name, method, path, 307, '', { location, ...opts });

export const routingCases: ContractCase[] = [
  // 404: unknown path, whatever the key or body.
  call('404 unknown path', 'POST', '/nope', 404, NOT_FOUND),
  call('404 unknown path with a wrong key and a JSON syntax error', 'POST', '/nope', 404, NOT_FOUND, { headers: H({ 'x-api-key': 'wrong' }), rawBody: '{bad' }),
  call('404 unknown path without a key and with invalid UTF-8', 'POST', '/nope', 404, NOT_FOUND, { headers: NOKEY(), rawBody: BAD_UTF8 }),
  call('404 unknown path with no body at all', 'POST', '/nope', 404, NOT_FOUND, { headers: NOKEY(null), rawBody: undefined }),
  call('404 root path', 'POST', '/', 404, NOT_FOUND),
  call('404 paths are case-sensitive', 'POST', '/RUN_PROMPT', 404, NOT_FOUND),
  call('404 a runtime path with an extra segment', 'POST', '/run_prompt/extra', 404, NOT_FOUND),
  call('404 an extra segment after repeated slashes', 'POST', '/run_prompt//extra', 404, NOT_FOUND),
  call('404 unknown path with a query', 'POST', '/nope?x=1', 404, NOT_FOUND),
  call('404 unknown path with repeated slashes', 'POST', '//nope', 404, NOT_FOUND),
  call('404 GET of an unknown path', 'GET', '/nope', 404, NOT_FOUND, { rawBody: undefined }),
  call('404 HEAD of an unknown path has no body', 'HEAD', '/nope', 404, '', { rawBody: undefined, contentType: 'application/json' }),
  call('404 unknown path with a body over the size limit', 'POST', '/nope', 404, NOT_FOUND, { rawBody: BIG }),

  // 405: known path, wrong method; `allow: POST`.
  call('405 GET /run_prompt', 'GET', '/run_prompt', 405, NOT_ALLOWED, { rawBody: undefined }),
  call('405 GET /get_prompt with a wrong key and a bad body', 'GET', '/get_prompt', 405, NOT_ALLOWED, { headers: H({ 'x-api-key': 'wrong' }), rawBody: '{bad' }),
  call('405 PUT /track_outcome without a key', 'PUT', '/track_outcome', 405, NOT_ALLOWED, { headers: NOKEY() }),
  call('405 DELETE /run_prompt', 'DELETE', '/run_prompt', 405, NOT_ALLOWED, { rawBody: undefined }),
  call('405 PATCH /get_prompt with invalid UTF-8', 'PATCH', '/get_prompt', 405, NOT_ALLOWED, { rawBody: BAD_UTF8 }),
  call('405 OPTIONS /track_outcome', 'OPTIONS', '/track_outcome', 405, NOT_ALLOWED, { rawBody: undefined }),
  call('405 GET /run_prompt with a query', 'GET', '/run_prompt?x=1', 405, NOT_ALLOWED, { rawBody: undefined }),
  call('405 HEAD /run_prompt has no body', 'HEAD', '/run_prompt', 405, '', { rawBody: undefined, contentType: 'application/json' }),
  call('405 HEAD /track_outcome without a key has no body', 'HEAD', '/track_outcome', 405, '', { headers: NOKEY(null), rawBody: undefined, contentType: 'application/json' }),
  call('405 PUT /track_outcome with a body over the size limit', 'PUT', '/track_outcome', 405, NOT_ALLOWED, { rawBody: BIG }),

  // 307: the path plus or minus a trailing slash (and repeated slashes); empty body, no content-type, query kept.
  redirect('307 trailing slash, valid request', 'POST', '/get_prompt/', '/get_prompt'),
  redirect('307 trailing slash without a key and with a bad body', 'POST', '/run_prompt/', '/run_prompt', { headers: NOKEY(), rawBody: '{"prompt_id":1}' }),
  redirect('307 trailing slash with invalid UTF-8', 'POST', '/track_outcome/', '/track_outcome', { headers: NOKEY(), rawBody: BAD_UTF8 }),
  redirect('307 trailing slash keeps the query', 'POST', '/track_outcome/?a=1&b=2', '/track_outcome?a=1&b=2'),
  redirect('307 query kept byte for byte (percent-encoding untouched)', 'POST', '/run_prompt/?q=%20a%2F&x=%C3%A9', '/run_prompt?q=%20a%2F&x=%C3%A9'),
  redirect('307 an empty query is not kept', 'POST', '/get_prompt/?', '/get_prompt'),
  redirect('307 leading repeated slashes', 'POST', '//get_prompt', '/get_prompt'),
  redirect('307 repeated slashes both ends', 'POST', '///run_prompt//', '/run_prompt'),
  redirect('307 two trailing slashes', 'POST', '/get_prompt//', '/get_prompt'),
  redirect('307 comes before the method check (GET)', 'GET', '/get_prompt/', '/get_prompt', { rawBody: undefined }),
  redirect('307 for HEAD too', 'HEAD', '/track_outcome/', '/track_outcome', { rawBody: undefined }),
  redirect('307 with a body over the size limit', 'POST', '/track_outcome/', '/track_outcome', { rawBody: BIG }),

  // A query on the canonical path changes nothing.
  post('200 a percent-encoded path is decoded before routing', '/get%5Fprompt', SUPPORT_BODY, 200, GET_SUPPORT_OK),
  post('200 a query on the canonical path is ignored', '/get_prompt?x=1&prompt_id=ghost', SUPPORT_BODY, 200, GET_SUPPORT_OK),
];
