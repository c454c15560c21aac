import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { behave, FakeOpenAI } from '../../support/fakeOpenAI.js';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { refusedStoredPatterns } from '../../../src/storedPatterns.js';

/**
 * Every pattern a user gives runs on the linear-time engine (docs/management-api.md, "Patterns"):
 * the families that made JavaScript's backtracking engine stall the server are accepted and answer
 * right at once; what that engine cannot run is refused at creation (422, nothing stored); a
 * pattern stored before it that it refuses is never run, and found by the stored-pattern check.
 */
let t: TestApp;
let fake: FakeOpenAI;
const count = async (table: string) => Number(await t.store.sql.value<number>(`SELECT count(*) FROM ${table}`));

/** Each family with a value that backtracked for seconds (or minutes) and what the check must say of it. */
const ones = `${'1'.repeat(29)}!`;
const FAMILIES: Array<[string, string, boolean]> = [
  ['^(\\d|\\w)+$', ones, false],
  ['^(a|a)*$', `${'a'.repeat(30_000)}!`, false],
  ['^(a|aa)+$', `${'a'.repeat(30_000)}!`, false],
  ['^(?:a|b|ab)*c$', `${'ab'.repeat(15_000)}!`, false],
  ['[a-z]+@[a-z]+\\.com', 'a@'.repeat(15_000), false],
  ['\\s*,\\s*x', `${' '.repeat(30_000)},`, false],
  ['(.*),(.*),(.*),(.*)x', ','.repeat(30_000), false],
  ['a*a*a*a*a*a*b', 'a'.repeat(30_000), false],
  ['(a+)+$', `${'a'.repeat(30_000)}!`, false],
  ['^(\\d|\\w)+$', '1'.repeat(30_000), true],
];

beforeAll(async () => {
  fake = new FakeOpenAI();
  t = await startTestApp({ PROMPTLINE_PROVIDER_FAKE_BASE_URL: (await fake.start()).baseURL });
});
afterAll(async () => {
  await t?.cleanup();
  await fake?.close();
});

const typed = (prompt_id: string, pattern: string) =>
  t.request('POST', '/prompts', { body: { prompt_id, template: 'Code {{code}}', variables: { code: { pattern } } } });

describe('typed variables', () => {
  it.each(FAMILIES.map((f, i) => [i, ...f] as const))('family %i, %s: accepted, and /get_prompt answers right', async (i, pattern, value, matches) => {
    expect((await typed(`family${i}`, pattern)).status).toBe(201);
    const res = await t.request('POST', '/get_prompt', { body: { prompt_id: `family${i}`, inputs: { code: value } } });
    if (matches) {
      expect([res.status, res.json.prompt_text]).toEqual([200, `Code ${value}`]);
    } else {
      expect(res.status).toBe(422);
      expect(res.json.detail).toEqual([
        {
          type: 'string_pattern_mismatch',
          loc: ['body', 'inputs', 'code'],
          msg: `String should match pattern '${pattern}'`,
          input: expect.anything(),
          ctx: { pattern },
        },
      ]);
    }
  });

  it.each([
    ['a back-reference', '(a)\\1', 'the pattern uses a back-reference (\\1), which the linear-time engine does not support'],
    ['a named back-reference', '(?<q>a)\\k<q>', 'the pattern uses a back-reference (\\k<q>), which the linear-time engine does not support'],
    ['a look-ahead', '^(?!admin)', 'the pattern uses a look-ahead ((?!…), which the linear-time engine does not support'],
    ['a look-behind', '(?<=\\$)\\d', 'the pattern uses a look-behind ((?<=…), which the linear-time engine does not support'],
  ])('%s → 422 at body.variables.code.pattern, nothing stored', async (_name, pattern, msg) => {
    const [prompts, versions] = [await count('prompts'), await count('prompt_versions')];
    const res = await typed('refused', pattern);
    expect(res.status).toBe(422);
    expect(res.json.detail).toHaveLength(1);
    expect(res.json.detail[0]).toMatchObject({
      type: 'value_error',
      loc: ['body', 'variables', 'code', 'pattern'],
      msg: `Value error, ${msg}`,
      input: pattern,
    });
    expect([await count('prompts'), await count('prompt_versions')]).toEqual([prompts, versions]);
  });
});

describe('response_format and tools schemas', () => {
  const format = (pattern: string) => ({
    type: 'json_schema',
    json_schema: { name: 'x', schema: { type: 'object', properties: { id: { type: 'string', pattern } }, required: ['id'] } },
  });

  it('a family in response_format is accepted, and the output check answers right on an evil output', async () => {
    const created = await t.request('POST', '/prompts', {
      body: { prompt_id: 'structured', template: 'x', model: 'fake/m', response_format: format('^(\\d|\\w)+$') },
    });
    expect(created.status).toBe(201);
    fake.script([behave.ok({ content: JSON.stringify({ id: ones }) }), behave.ok({ content: '{"id": "abc123"}' })]);
    const bad = await t.request('POST', '/run_prompt', { body: { prompt_id: 'structured', inputs: {} } });
    expect(bad.json).toMatchObject({ output_valid: false, output_error: '/id must match pattern "^(\\d|\\w)+$"' });
    const good = await t.request('POST', '/run_prompt', { body: { prompt_id: 'structured', inputs: {} } });
    expect(good.json).toMatchObject({ output_valid: true });
  });

  it.each([
    ['response_format', { response_format: format('(?=a)') }, ['body', 'response_format', 'json_schema', 'schema', 'properties', 'id', 'pattern']],
    [
      'a tool',
      { tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', patternProperties: { '(a)\\1': {} } } } }] },
      ['body', 'tools', 0, 'function', 'parameters', 'patternProperties', '(a)\\1'],
    ],
  ])('a pattern the engine cannot run in %s → 422 at its path, nothing stored', async (_name, extra, loc) => {
    const prompts = await count('prompts');
    const res = await t.request('POST', '/prompts', { body: { prompt_id: 'refused', template: 'x', model: 'fake/m', ...extra } });
    expect(res.status).toBe(422);
    expect(res.json.detail).toHaveLength(1);
    expect(res.json.detail[0]).toMatchObject({ type: 'value_error', loc });
    expect(res.json.detail[0].msg).toMatch(/^Value error, the pattern uses a (look-ahead|back-reference)/);
    expect(await count('prompts')).toBe(prompts);
  });
});

describe('evaluators', () => {
  it('a json_schema evaluator with (a+)+$ is accepted, and an evaluation scores with it', async () => {
    await t.request('POST', '/prompts', { body: { prompt_id: 'echo', template: '{{{answer}}}' } });
    expect((await t.request('POST', '/prompts/echo/versions', { body: { template: '{{{answer}}} ' } })).status).toBe(201);
    await t.request('POST', '/datasets', { body: { dataset_id: 'evil' } });
    const items = [JSON.stringify(`${'a'.repeat(20_000)}!`), JSON.stringify(`x${'a'.repeat(20_000)}`)].map((answer) => ({ inputs: { answer } }));
    expect((await t.request('POST', '/datasets/evil/items', { body: { items } })).status).toBe(201);
    const created = await t.request('POST', '/evaluators', {
      body: { evaluator_id: 'nested', kind: 'json_schema', schema: { type: 'string', pattern: '(a+)+$' } },
    });
    expect(created.status).toBe(201);
    const queued = await t.request('POST', '/evaluations', { body: { prompt_id: 'echo', versions: [2, 1], dataset_id: 'evil', evaluators: ['nested'] } });
    expect(queued.status).toBe(202);
    await t.evaluations.poll();
    await t.evaluations.idle();
    const items2 = (await t.request('GET', `/evaluations/${queued.json.evaluation_id}/items`)).json.data;
    const scores = items2.map((item: any) => [item.candidate.scores.nested.passed, item.baseline.scores.nested.passed]);
    expect(scores).toEqual([
      [false, false],
      [true, true],
    ]);
  });

  it.each([
    [{ kind: 'regex', pattern: '(a)\\1' }, ['body', 'pattern'], 'uses a back-reference'],
    [{ kind: 'regex', pattern: 'x(?!y)', flags: 'i' }, ['body', 'pattern'], 'uses a look-ahead'],
    [{ kind: 'json_schema', schema: { properties: { a: { pattern: '(?<!a)b' } } } }, ['body', 'schema', 'properties', 'a', 'pattern'], 'uses a look-behind'],
  ])('%j → 422 at its field, nothing stored', async (body, loc, words) => {
    const before = await count('evaluators');
    const res = await t.request('POST', '/evaluators', { body: { evaluator_id: 'refused', ...body } });
    expect(res.status).toBe(422);
    expect(res.json.detail[0].loc).toEqual(loc);
    expect(res.json.detail[0].msg).toContain(words);
    expect(await count('evaluators')).toBe(before);
  });
});

describe('patterns stored before the linear-time engine', () => {
  // Stored as an older server would have: the row changed directly, as no API call can do any more.
  const storeDirectly = (sql: string, params: unknown[]) => t.store.writer.write((db) => db.run(sql, params));

  beforeAll(async () => {
    expect((await typed('legacy', '^(a)$')).status).toBe(201);
    await storeDirectly("UPDATE prompt_versions SET declared_variables = ? WHERE prompt_id = 'legacy'", [
      JSON.stringify({ code: { required: true, pattern: '^(a)\\1$' } }),
    ]);
    await t.request('POST', '/evaluators', { body: { evaluator_id: 'old', kind: 'regex', pattern: 'a' } });
    await storeDirectly("UPDATE evaluator_versions SET settings = ? WHERE evaluator_id = 'old'", [JSON.stringify({ pattern: 'x(?=y)', flags: '' })]);
  });

  it('a call sending that variable answers 409 saying why; the pattern is never run', async () => {
    const res = await t.request('POST', '/get_prompt', { body: { prompt_id: 'legacy', inputs: { code: 'aa' } } });
    expect(res.status).toBe(409);
    expect(res.json.detail).toBe(
      "Prompt 'legacy' version 1 cannot check variable 'code' (the pattern uses a back-reference (\\1), which the linear-time engine does not support): create a new version",
    );
    const bundle = (await t.request('GET', '/sdk/bundle')).json;
    expect(bundle.prompts.map((p: { prompt_id: string }) => p.prompt_id)).not.toContain('legacy');
  });

  it('the stored-pattern check names each, by project, prompt or evaluator, version and field', async () => {
    const refused = await refusedStoredPatterns(t.store.sql, () => t.projects.list());
    expect(refused).toEqual([
      {
        project: 'default',
        kind: 'prompt',
        id: 'legacy',
        version: 1,
        field: 'variables.code.pattern',
        reason: 'the pattern uses a back-reference (\\1), which the linear-time engine does not support',
      },
      {
        project: 'default',
        kind: 'evaluator',
        id: 'old',
        version: 1,
        field: 'pattern',
        reason: 'the pattern uses a look-ahead ((?=…), which the linear-time engine does not support',
      },
    ]);
  });
});
