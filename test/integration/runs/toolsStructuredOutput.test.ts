import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { behave, FakeOpenAI } from '../../support/fakeOpenAI.js';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenExperiment, givenPrompt } from '../../support/fixtures.js';

/**
 * Tools and structured output (docs/tools-and-structured-output.md): checked when a version is
 * made, sent with every call, the model's tool calls answered and stored, outputs checked against
 * the response_format, and schema_valid_rate comparing versions in an experiment.
 */
let t: TestApp;
let fake: FakeOpenAI;

const WEATHER = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'The weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};
const ANSWER_SCHEMA = {
  type: 'json_schema',
  json_schema: { name: 'answer', schema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] } },
};

beforeAll(async () => {
  fake = new FakeOpenAI();
  t = await startTestApp({ PROMPTLINE_PROVIDER_FAKE_BASE_URL: (await fake.start()).baseURL });
  await givenPrompt(t, { prompt_id: 'weather', template: 'Weather in {{city}}?', model: 'fake/m', tools: [WEATHER], tool_choice: 'auto' } as never);
  await givenPrompt(t, { prompt_id: 'structured', template: 'Answer {{q}}', model: 'fake/m', response_format: ANSWER_SCHEMA } as never);
  await givenPrompt(t, { prompt_id: 'plain', template: 'Hi {{name}}', model: 'fake/m' });
});
afterAll(async () => {
  await t?.cleanup();
  await fake?.close();
});

const create = (prompt_id: string, extra: Record<string, unknown>) => t.request('POST', '/prompts', { body: { prompt_id, template: 'x', ...extra } });
const run = (prompt_id: string, inputs: Record<string, string>, external_user_id?: string) =>
  t.request('POST', '/run_prompt', { body: { prompt_id, inputs, ...(external_user_id ? { external_user_id } : {}) } });

describe('a version with tools or a response_format is checked when it is made', () => {
  it.each([
    [
      'a parameters schema that is not JSON Schema',
      { tools: [{ ...WEATHER, function: { ...WEATHER.function, parameters: { type: 'object', properties: { city: { type: 'strnig' } } } } }] },
      ['body', 'tools', 0, 'function', 'parameters', 'properties', 'city', 'type'],
    ],
    [
      'a tool_choice naming no declared tool',
      { tools: [WEATHER], tool_choice: { type: 'function', function: { name: 'get_time' } } },
      ['body', 'tool_choice', 'function', 'name'],
    ],
    ['a tool_choice without tools', { tool_choice: 'required' }, ['body', 'tool_choice']],
    ['a tool_choice of another shape', { tools: [WEATHER], tool_choice: 'sometimes' }, ['body', 'tool_choice']],
    ['a tool declared twice', { tools: [WEATHER, WEATHER] }, ['body', 'tools', 1, 'function', 'name']],
    [
      'a response schema that is not JSON Schema',
      { response_format: { type: 'json_schema', json_schema: { name: 'a', schema: { type: 'object', required: 'answer' } } } },
      ['body', 'response_format', 'json_schema', 'schema', 'required'],
    ],
    ['json_schema without its schema', { response_format: { type: 'json_schema' } }, ['body', 'response_format', 'json_schema']],
    [
      'a response_format also in params',
      { response_format: { type: 'json_object' }, params: { response_format: { type: 'text' } } },
      ['body', 'params', 'response_format'],
    ],
  ])('refuses %s with a 422 at the exact path, storing nothing', async (_name, extra, loc) => {
    const res = await create('refused', extra);
    expect(res.status).toBe(422);
    expect(res.json.detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(loc);
    expect((await t.request('GET', '/prompts/refused')).status).toBe(404);
  });

  it('refuses a tool of the wrong shape in the FastAPI shape', async () => {
    const res = await create('refused', { tools: [{ type: 'retrieval', function: { name: 'x' } }] });
    expect(res.status).toBe(422);
    expect(res.json.detail[0]).toMatchObject({ type: 'literal_error', loc: ['body', 'tools', 0, 'type'] });
  });

  it('shows the fields on the version, and a version without them exactly as before', async () => {
    const v = (await t.request('GET', '/prompts/weather/versions/1')).json;
    expect(v).toMatchObject({ tools: [WEATHER], tool_choice: 'auto' });
    expect(v).not.toHaveProperty('response_format');
    const plain = (await t.request('GET', '/prompts/plain/versions/1')).json;
    for (const key of ['tools', 'tool_choice', 'response_format']) expect(plain).not.toHaveProperty(key);
  });

  it('makes a new version when only the tools change (the content hash covers them)', async () => {
    const res = await t.request('POST', '/prompts/weather/versions', {
      body: { template: 'Weather in {{city}}?', model: 'fake/m', tools: [WEATHER], tool_choice: 'required' },
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ version: 2, tool_choice: 'required' });
  });
});

describe('prompt files with tools', () => {
  it('push them into a version, and a second push of the same file creates nothing (the hash covers them)', async () => {
    const document = { prompt_id: 'filed', template: 'Hi {{name}}', tools: [WEATHER], response_format: ANSWER_SCHEMA };
    const body = { files: [{ path: 'prompts/filed.prompt.yaml', document }] };
    const first = await t.request('POST', '/prompts/sync', { body });
    expect(first.json).toMatchObject({ applied: true, changes: 1 });
    expect((await t.request('GET', '/prompts/filed/versions/1')).json).toMatchObject({ tools: [WEATHER], response_format: ANSWER_SCHEMA });
    const again = await t.request('POST', '/prompts/sync', { body: { ...body, bases: first.json.state } });
    expect(again.json).toMatchObject({ changes: 0, prompts: [{ action: 'unchanged', version: 1 }] });
    const changed = { files: [{ path: 'prompts/filed.prompt.yaml', document: { ...document, tool_choice: 'required' } }], bases: first.json.state };
    expect((await t.request('POST', '/prompts/sync', { body: changed })).json).toMatchObject({ changes: 1, prompts: [{ action: 'new_version', version: 2 }] });
  });

  it('refuse an invalid parameters schema at its path in the file', async () => {
    const bad = { ...WEATHER, function: { ...WEATHER.function, parameters: { type: 'object', properties: { city: { type: 'strnig' } } } } };
    const res = await t.request('POST', '/prompts/sync', {
      body: { files: [{ path: 'prompts/bad.prompt.yaml', document: { prompt_id: 'bad', template: 'x', tools: [bad] } }] },
    });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.json.detail)).toContain('"tools",0,"function","parameters","properties","city","type"');
  });
});

describe('runs with tools', () => {
  it('sends the tools, answers the calls in tool_calls (output empty) and stores what was asked and got', async () => {
    const res = await run('weather', { city: 'Oslo' });
    expect(res.status).toBe(200);
    expect(fake.requests.at(-1)!.body).toMatchObject({ tools: [WEATHER], tool_choice: 'required' });
    expect(res.json.output).toBe('');
    expect(res.json.tool_calls).toEqual([{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }]);
    expect(res.json).not.toHaveProperty('output_valid');
    const stored = (await t.request('GET', `/runs/${res.json.run_id}`)).json;
    expect(stored).toMatchObject({ tools: [WEATHER], tool_choice: 'required', tool_calls: res.json.tool_calls, output: '' });
    const listed = (await t.request('GET', '/runs?prompt_id=weather&limit=1')).json.data[0];
    expect(listed).toMatchObject({ tool_calls: res.json.tool_calls, truncated: [] });
  });

  it("answers the model's own arguments and text beside them", async () => {
    fake.script([behave.ok({ content: 'Looking it up.', toolCalls: [{ name: 'get_weather', arguments: '{"city":"Oslo"}' }] })]);
    const res = await run('weather', { city: 'Oslo' });
    expect(res.json).toMatchObject({ output: 'Looking it up.', tool_calls: [{ function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] });
  });

  it('answers a run without tools with exactly the fields of the runtime contract', async () => {
    const res = await run('plain', { name: 'Ada' });
    expect(Object.keys(res.json)).toEqual([
      'run_id',
      'output',
      'model_used',
      'latency_ms',
      'prompt_tokens',
      'completion_tokens',
      'total_tokens',
      'token_cost_usd',
      'variant_assigned',
      'experiment_id',
      'prompt_version',
    ]);
    const stored = (await t.request('GET', `/runs/${res.json.run_id}`)).json;
    for (const key of ['tools', 'tool_choice', 'response_format', 'tool_calls', 'output_valid', 'output_error']) expect(stored).not.toHaveProperty(key);
    expect(fake.requests.at(-1)!.body).not.toHaveProperty('tools');
  });
});

describe('structured output', () => {
  it('records a schema-valid output as valid', async () => {
    const res = await run('structured', { q: 'why' });
    expect(fake.requests.at(-1)!.body).toMatchObject({ response_format: ANSWER_SCHEMA });
    expect(JSON.parse(res.json.output)).toEqual({ answer: 'fake answer to: Answer why' });
    expect(res.json.output_valid).toBe(true);
    expect(res.json).not.toHaveProperty('output_error');
    expect((await t.request('GET', `/runs/${res.json.run_id}`)).json).toMatchObject({ response_format: ANSWER_SCHEMA, output_valid: true });
  });

  it.each([
    ['JSON breaking the schema', '{"answer": 42}', '/answer must be string'],
    ['JSON without a required field', '{}', "/ must have required property 'answer'"],
    ['text that is not JSON', 'Sure! {"answer": "x"}', 'the output is not valid JSON'],
  ])('records %s as invalid with the first error', async (_name, content, error) => {
    fake.script([behave.ok({ content })]);
    const res = await run('structured', { q: 'why' });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ output: content, output_valid: false, output_error: error });
    expect((await t.request('GET', `/runs/${res.json.run_id}`)).json).toMatchObject({ output_valid: false, output_error: error });
  });

  it('checks json_object too: the echo provider answers text, which is not a JSON object', async () => {
    await givenPrompt(t, { prompt_id: 'echoed', template: 'Say {{x}}', model: 'echo/m', response_format: { type: 'json_object' } } as never);
    const res = await run('echoed', { x: 'hi' });
    expect(res.json).toMatchObject({ output: 'Say hi', output_valid: false, output_error: 'the output is not valid JSON' });
  });
});

describe('schema_valid_rate', () => {
  it("compares how often each version's output satisfied its schema, higher being better", async () => {
    // Version 1 answers JSON on the fake provider (nearly always valid); version 2 echoes its input
    // (valid only when the caller's input happens to be such JSON: one user in five).
    await givenPrompt(t, {
      prompt_id: 'json-exp',
      template: 'Answer {{q}} in JSON',
      model: 'fake/m',
      response_format: ANSWER_SCHEMA,
      versions: [{ template: '{{q}}', model: 'echo/m', response_format: ANSWER_SCHEMA }],
    } as never);
    const exp = await givenExperiment(t, {
      experiment_id: 'json-breaks',
      prompt_id: 'json-exp',
      metrics: [{ source: 'runs', kind: 'schema_valid_rate', role: 'primary' }],
      start: true,
    });
    expect((exp.metrics as Array<Record<string, unknown>>)[0]).toMatchObject({ name: 'runs:schema_valid_rate', direction: 'higher', cap: null });
    // The first answers of version 1 break the schema too, so its rate is high, not a constant.
    fake.script([behave.ok({ content: 'not json' }), behave.ok({ content: '{"answer": 1}' }), behave.ok({ content: '[]' })]);
    const echoed: boolean[] = [];
    for (let i = 0; i < 60; i++) {
      const res = await run('json-exp', { q: i % 5 === 0 ? '{"answer": "ok"}' : 'why' }, `u-${i}`);
      if (res.json.variant_assigned === 'b') echoed.push(res.json.output_valid);
    }
    const report = (await t.request('GET', '/experiments/json-breaks/results')).json;
    const metric = report.metrics.find((m: { name: string }) => m.name === 'runs:schema_valid_rate');
    const byKey = Object.fromEntries(metric.variants.map((v: { key: string }) => [v.key, v]));
    expect(byKey.a.value).toBe((byKey.a.n - 3) / byKey.a.n);
    expect(byKey.b.value).toBe(echoed.filter(Boolean).length / echoed.length);
    expect(byKey.a.n + byKey.b.n).toBe(60);
    expect(metric.comparisons[0]).toMatchObject({ variant: 'b', verdict: 'worse' });
  });

  it('refuses a cap on it, as on every rate', async () => {
    const res = await t.request('POST', '/experiments', {
      body: {
        experiment_id: 'capped',
        prompt_id: 'json-exp',
        variants: [
          { key: 'a', version: 1 },
          { key: 'b', version: 2 },
        ],
        metrics: [{ source: 'runs', kind: 'schema_valid_rate', role: 'primary', cap: 1 }],
      },
    });
    expect(res.status).toBe(422);
    expect(res.json.detail[0].loc).toEqual(['body', 'metrics', 0, 'cap']);
  });
});
