/** docs/runtime-contract.md, "Answers": authentication, 404s, template variables, experiments, prompt_run_id, 200 bodies. */
import {
  B, detail, detailText, GET_SUPPORT_OK, H, INVALID_KEY, KEY_ORDER, MISSING_BODY, missing, NOKEY, post, runOk, stringType, SUPPORT_BODY, trackOk,
  type ContractCase,
} from '../contractCase.js';

const RUN = '/run_prompt';
const GET = '/get_prompt';
const TRACK = '/track_outcome';
const key = (value: string | string[]) => H({ 'x-api-key': value });
const notFound = (id: string) => detailText(`Prompt '${id}' not found`);
const CHAT_TEXT = 'system: You are terse.\n\nuser: Why?';
const CHAT_OK = `{"prompt_text":${JSON.stringify(CHAT_TEXT)},"variant_assigned":null,"experiment_id":null,"prompt_version":1,` +
  '"messages":[{"role":"system","content":"You are terse."},{"role":"user","content":"Why?"}]}';
const CHAT_BODY = '{"prompt_id":"chat","inputs":{"tone":"terse","question":"Why?"}}';
const varMissing = (name: string, inputs: string) => `{"type":"missing","loc":["body","inputs","${name}"],"msg":"Field required","input":${inputs}}`;
const running = (input: string) =>
  `{"type":"missing","loc":["body","external_user_id"],"msg":"Field required","input":${input},"ctx":{"reason":"experiment exp_ab is running on prompt exp"}}`;
const wrongRun = (run: string, why: string) =>
  `{"type":"value_error","loc":["body","prompt_run_id"],"msg":"Value error, ${why}","input":"${run}","ctx":{"error":"${why}"}}`;

export const runtimeCases: ContractCase[] = [
  // 200 bodies: exact key order.
  post('200 /get_prompt text prompt', GET, SUPPORT_BODY, 200, GET_SUPPORT_OK),
  post('200 /get_prompt chat prompt adds messages', GET, CHAT_BODY, 200, CHAT_OK),
  post('200 /get_prompt non-ASCII rendered as is', GET, '{"prompt_id":"support","inputs":{"name":"Zoë \\"Z\\"","topic":"日本 😀"}}', 200,
    '{"prompt_text":"Hello Zoë \\"Z\\", about 日本 😀","variant_assigned":null,"experiment_id":null,"prompt_version":1}'),
  post('200 /get_prompt extra inputs ignored', GET, '{"prompt_id":"support","inputs":{"name":"Ann","topic":"billing","unused":"x"}}', 200, GET_SUPPORT_OK),
  post('200 /run_prompt text prompt', RUN, SUPPORT_BODY, 200, runOk('Hello Ann, about billing')),
  post('200 /run_prompt chat prompt', RUN, CHAT_BODY, 200, runOk(CHAT_TEXT)),
  post('200 /run_prompt non-ASCII output as is', RUN, '{"prompt_id":"support","inputs":{"name":"Zoë","topic":"日本 😀"}}', 200, runOk('Hello Zoë, about 日本 😀')),
  post('200 /track_outcome bare prompt_id', TRACK, '{"prompt_id":"support"}', 200, trackOk(), { stored: { event_type: 'outcome', is_success: null, numeric_value: null } }),
  post('200 /track_outcome every field', TRACK,
    '{"prompt_run_id":"⟦RUN_SUPPORT⟧","prompt_id":"support","external_user_id":"u9","event_type":"resolved","label":"good","value":"v","numeric_value":"4.5","is_success":"yes","source":"app","metadata":{"a":[1,2]}}',
    200, trackOk(), { stored: { event_type: 'resolved', is_success: 1, numeric_value: 4.5 } }),

  // Every role may call the runtime endpoints.
  post('role: runtime key on /get_prompt', GET, SUPPORT_BODY, 200, GET_SUPPORT_OK, { headers: key('⟦RUNTIME⟧') }),
  post('role: runtime key on /run_prompt', RUN, SUPPORT_BODY, 200, runOk('Hello Ann, about billing'), { headers: key('⟦RUNTIME⟧') }),
  post('role: runtime key on /track_outcome', TRACK, '{"prompt_id":"support"}', 200, trackOk(), { headers: key('⟦RUNTIME⟧') }),
  post('role: read key on /get_prompt', GET, SUPPORT_BODY, 200, GET_SUPPORT_OK, { headers: key('⟦READ⟧') }),
  post('role: read key on /run_prompt', RUN, SUPPORT_BODY, 200, runOk('Hello Ann, about billing'), { headers: key('⟦READ⟧') }),
  post('role: read key on /track_outcome', TRACK, '{"prompt_id":"support"}', 200, trackOk(), { headers: key('⟦READ⟧') }),
  post('role: admin key on /track_outcome', TRACK, '{"prompt_id":"chat"}', 200, trackOk()),

  // Key header: name matched case-insensitively; the first value wins.
  post('key: header name X-API-KEY', GET, SUPPORT_BODY, 200, GET_SUPPORT_OK, { headers: { 'X-API-KEY': '⟦ADMIN⟧', 'Content-Type': 'application/json' } }),
  post('key: header name x-Api-Key', RUN, SUPPORT_BODY, 200, runOk('Hello Ann, about billing'), { headers: { 'x-Api-Key': '⟦RUNTIME⟧', 'content-type': 'application/json' } }),
  post('key: duplicate header, valid key first → accepted', GET, SUPPORT_BODY, 200, GET_SUPPORT_OK, { headers: key(['⟦ADMIN⟧', 'wrong']) }),
  post('key: duplicate header, wrong key first → 401', GET, SUPPORT_BODY, 401, INVALID_KEY, { headers: key(['wrong', '⟦ADMIN⟧']) }),
  post('key: duplicate header, empty first → 401', TRACK, '{"prompt_id":"support"}', 401, INVALID_KEY, { headers: key(['', '⟦ADMIN⟧']) }),

  // 401 only once the request validated.
  post('401 unknown key on /get_prompt', GET, SUPPORT_BODY, 401, INVALID_KEY, { headers: key('pl_a_not-a-real-key') }),
  post('401 unknown key on /run_prompt', RUN, SUPPORT_BODY, 401, INVALID_KEY, { headers: key('nope') }),
  post('401 unknown key on /track_outcome', TRACK, '{"prompt_id":"support"}', 401, INVALID_KEY, { headers: key('nope') }),
  post('401 empty key', GET, SUPPORT_BODY, 401, INVALID_KEY, { headers: key('') }),
  post('401 keys are case-sensitive', GET, SUPPORT_BODY, 401, INVALID_KEY, { headers: key('PL_A_TEST-BOOTSTRAP-ADMIN-KEY-000000000000') }),
  post('401 revoked key', RUN, SUPPORT_BODY, 401, INVALID_KEY, { headers: key('⟦REVOKED⟧') }),
  post('401 expired key', TRACK, '{"prompt_id":"support"}', 401, INVALID_KEY, { headers: key('⟦EXPIRED⟧') }),
  post('401 comes before the prompt lookup', GET, '{"prompt_id":"ghost"}', 401, INVALID_KEY, { headers: key('nope') }),
  post('401 comes before template checks', RUN, '{"prompt_id":"support","inputs":{}}', 401, INVALID_KEY, { headers: key('⟦REVOKED⟧') }),
  post('422 not 401: wrong key, missing fields', RUN, '{}', 422, detail(missing('prompt_id', '{}'), missing('inputs', '{}')), { headers: key('nope') }),
  post('422 not 401: revoked key, empty body', GET, '', 422, detail(MISSING_BODY), { headers: key('⟦REVOKED⟧') }),
  post('422 not 401: empty key, type error', TRACK, '{"prompt_id":7}', 422, detail(stringType(B('prompt_id'), '7')), { headers: key('') }),

  // Unknown prompt (or another project's): 404.
  post('404 unknown prompt on /get_prompt', GET, '{"prompt_id":"ghost"}', 404, notFound('ghost')),
  post('404 unknown prompt on /run_prompt (before template checks)', RUN, '{"prompt_id":"ghost","inputs":{}}', 404, notFound('ghost')),
  post('404 unknown prompt on /track_outcome', TRACK, '{"prompt_id":"ghost","is_success":true}', 404, notFound('ghost')),
  post('404 prompt id echoed as is (non-ASCII, quotes)', TRACK, '{"prompt_id":"é\\"😀\'"}', 404, '{"detail":"Prompt \'é\\"😀\'\' not found"}'),
  post('404 empty prompt id', GET, '{"prompt_id":""}', 404, notFound('')),
  post('404 another project\'s prompt on /get_prompt', GET, CHAT_BODY, 404, notFound('chat'), { headers: key('⟦OTHER⟧') }),
  post('404 another project\'s prompt on /run_prompt', RUN, CHAT_BODY, 404, notFound('chat'), { headers: key('⟦OTHER⟧') }),
  post('404 another project\'s prompt on /track_outcome', TRACK, '{"prompt_id":"exp"}', 404, notFound('exp'), { headers: key('⟦OTHER⟧') }),

  // Template variables missing from inputs: one item per variable, input = the inputs object.
  post('vars: /get_prompt inputs {}', GET, '{"prompt_id":"support","inputs":{}}', 422, detail(varMissing('name', '{}'), varMissing('topic', '{}'))),
  post('vars: /get_prompt inputs absent (default {})', GET, '{"prompt_id":"support"}', 422, detail(varMissing('name', '{}'), varMissing('topic', '{}'))),
  post('vars: /get_prompt one missing, extras echoed', GET, '{"prompt_id":"support","inputs":{"topic":"x","extra":1}}', 422,
    detail(varMissing('name', '{"topic":"x","extra":1}'))),
  post('vars: /get_prompt inputs echo keeps document order', GET, '{"prompt_id":"support","inputs":{"2":"b","1":"a"}}', 422,
    detail(varMissing('name', '{"2":"b","1":"a"}'), varMissing('topic', '{"2":"b","1":"a"}')), { deviation: KEY_ORDER }),
  post('vars: /run_prompt one missing', RUN, '{"prompt_id":"support","inputs":{"topic":"x"}}', 422, detail(varMissing('name', '{"topic":"x"}'))),
  post('vars: /run_prompt chat prompt, across messages', RUN, '{"prompt_id":"chat","inputs":{}}', 422, detail(varMissing('tone', '{}'), varMissing('question', '{}'))),
  post('vars: /get_prompt chat prompt, one missing', GET, '{"prompt_id":"chat","inputs":{"question":"Why?"}}', 422, detail(varMissing('tone', '{"question":"Why?"}'))),
  post('vars: a wrong key is still 401 first', GET, '{"prompt_id":"support"}', 401, INVALID_KEY, { headers: key('nope') }),

  // A running experiment needs external_user_id.
  post('experiment: /get_prompt without external_user_id', GET, '{"prompt_id":"exp","inputs":{"name":"Ann"}}', 422, detail(running('{"prompt_id":"exp","inputs":{"name":"Ann"}}'))),
  post('experiment: /get_prompt external_user_id null', GET, '{"prompt_id":"exp","inputs":{"name":"Ann"},"external_user_id":null}', 422,
    detail(running('{"prompt_id":"exp","inputs":{"name":"Ann"},"external_user_id":null}'))),
  post('experiment: /run_prompt without external_user_id', RUN, '{"prompt_id":"exp","inputs":{"name":"Ann"}}', 422, detail(running('{"prompt_id":"exp","inputs":{"name":"Ann"}}'))),
  post('experiment: /run_prompt null user, the echo is the body as sent', RUN, '{"x":1,"prompt_id":"exp","inputs":{"name":"Ann"},"external_user_id":null,"x":"é"}', 422,
    detail(running('{"x":"é","prompt_id":"exp","inputs":{"name":"Ann"},"external_user_id":null}'))),
  post('experiment: /get_prompt with a user gets the variant', GET, '{"prompt_id":"exp","inputs":{"name":"Ann"},"external_user_id":"u1"}', 200,
    '{"prompt_text":"V2 Ann","variant_assigned":"b","experiment_id":"exp_ab","prompt_version":2}'),
  post('experiment: /run_prompt with a user gets the variant', RUN, '{"prompt_id":"exp","inputs":{"name":"Ann"},"external_user_id":"u3"}', 200,
    runOk('V2 Ann', { variant: 'b', experiment: 'exp_ab', version: 2 })),
  post('experiment: outcome attributed through the run', TRACK, '{"prompt_run_id":"⟦RUN_EXP⟧","prompt_id":"exp","is_success":true}', 200, trackOk('exp_ab', 'b')),
  post('experiment: outcome attributed through the user\'s assignment', TRACK, '{"prompt_id":"exp","external_user_id":"u2"}', 200, trackOk('exp_ab', 'b')),
  post('experiment: outcome of a user never assigned', TRACK, '{"prompt_id":"exp","external_user_id":"never-seen"}', 200, trackOk()),

  // prompt_run_id must name a run of the caller's project and of prompt_id.
  post('run: unknown prompt_run_id → 404', TRACK, '{"prompt_run_id":"run_nope","prompt_id":"support"}', 404, detailText("Run 'run_nope' not found")),
  post('run: another prompt\'s run → 422 value_error', TRACK, '{"prompt_run_id":"⟦RUN_CHAT⟧","prompt_id":"support"}', 422,
    detail(wrongRun('⟦RUN_CHAT⟧', "run ⟦RUN_CHAT⟧ belongs to prompt 'chat', not 'support'"))),
  post('run: the prompt\'s own run → 200', TRACK, '{"prompt_run_id":"⟦RUN_SUPPORT⟧","prompt_id":"support"}', 200, trackOk()),
  post('run: another project\'s run → 404', TRACK, '{"prompt_run_id":"⟦RUN_SUPPORT⟧","prompt_id":"support"}', 404, detailText("Run '⟦RUN_SUPPORT⟧' not found"), { headers: key('⟦OTHER⟧') }),
  post('run: prompt_run_id null is no run', TRACK, '{"prompt_run_id":null,"prompt_id":"support"}', 200, trackOk()),

  // Error answers are compact JSON with content-type application/json (checked on every case), including with no key at all.
  post('compact: header item alone', TRACK, '{"prompt_id":"support"}', 422, detail('{"type":"missing","loc":["header","x-api-key"],"msg":"Field required","input":null}'), { headers: NOKEY() }),
];
