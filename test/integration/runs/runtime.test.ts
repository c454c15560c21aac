import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenPrompt } from '../../support/fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  await givenPrompt(t, { prompt_id: 'support', template: 'Answer {{customer}}: {{question}}' });
  await givenPrompt(t, {
    prompt_id: 'chat',
    messages: [
      { role: 'system', content: 'Be {{tone}}.' },
      { role: 'user', content: '{{q}}' },
    ],
  });
  await givenPrompt(t, { prompt_id: 'list', template: '{{#items}}- {{name}}\n{{/items}}{{^items}}nothing{{/items}} n={{n}} ok={{ok}}' });
});
afterAll(async () => t.cleanup());

const count = (table: string) => t.store.sql.value(`SELECT count(*) FROM ${table}`);

describe('POST /get_prompt', () => {
  it('renders a text prompt without HTML escaping', async () => {
    const res = await t.request('POST', '/get_prompt', {
      key: await t.keyFor('runtime'),
      body: { prompt_id: 'support', inputs: { customer: 'Ann & <Bob>', question: 'Où?' } },
    });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.text).toBe('{"prompt_text":"Answer Ann & <Bob>: Où?","variant_assigned":null,"experiment_id":null,"prompt_version":1}');
  });

  it('renders chat prompts as messages and joined text', async () => {
    const res = await t.request('POST', '/get_prompt', { body: { prompt_id: 'chat', inputs: { tone: 'brief', q: 'Why?' } } });
    expect(res.json).toEqual({
      prompt_text: 'system: Be brief.\n\nuser: Why?',
      variant_assigned: null,
      experiment_id: null,
      prompt_version: 1,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Why?' },
      ],
    });
  });

  it('renders non-string inputs as text and lists drive sections', async () => {
    const res = await t.request('POST', '/get_prompt', { body: { prompt_id: 'list', inputs: { items: [{ name: 'a' }, { name: 'b' }], n: 2.5, ok: true } } });
    expect(res.json.prompt_text).toBe('- a\n- b\n n=2.5 ok=true');
    const empty = await t.request('POST', '/get_prompt', { body: { prompt_id: 'list', inputs: { items: [], n: 0, ok: false } } });
    expect(empty.json.prompt_text).toBe('nothing n=0 ok=false');
  });

  it('answers 422 per missing variable, with the inputs echoed', async () => {
    const res = await t.request('POST', '/get_prompt', { body: { prompt_id: 'support', inputs: { question: 'q', extra: 1 } } });
    expect(res.status).toBe(422);
    expect(res.text).toBe('{"detail":[{"type":"missing","loc":["body","inputs","customer"],"msg":"Field required","input":{"question":"q","extra":1}}]}');
    const none = await t.request('POST', '/get_prompt', { body: { prompt_id: 'support' } });
    expect(none.json.detail.map((d: { loc: string[] }) => d.loc[2])).toEqual(['customer', 'question']);
  });

  it('answers 404 for an unknown prompt', async () => {
    expect((await t.request('POST', '/get_prompt', { body: { prompt_id: 'ghost' } })).text).toBe('{"detail":"Prompt \'ghost\' not found"}');
  });
});

describe('POST /run_prompt with the echo provider', () => {
  it('runs, answers every contract field, and stores the run before answering', async () => {
    const res = await t.request('POST', '/run_prompt', {
      key: await t.keyFor('runtime'),
      body: { prompt_id: 'support', inputs: { customer: 'Ann', question: 'hi' }, external_user_id: 'u1' },
    });
    expect(res.status).toBe(200);
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
    expect(res.json).toMatchObject({
      output: 'Answer Ann: hi',
      model_used: 'echo/echo',
      token_cost_usd: 0,
      variant_assigned: null,
      experiment_id: null,
      prompt_version: 1,
    });
    expect(res.json.prompt_tokens).toBeGreaterThan(0);
    expect(res.json.total_tokens).toBe(res.json.prompt_tokens + res.json.completion_tokens);
    const run = await t.request('GET', `/runs/${res.json.run_id}`, { key: await t.keyFor('read') });
    expect(run.status).toBe(200);
    expect(run.json).toMatchObject({
      run_id: res.json.run_id,
      prompt_id: 'support',
      prompt_version: 1,
      external_user_id: 'u1',
      inputs: { customer: 'Ann', question: 'hi' },
      rendered_prompt: 'Answer Ann: hi',
      messages: [{ role: 'user', content: 'Answer Ann: hi' }],
      output: 'Answer Ann: hi',
      model_requested: 'echo/echo',
      model_used: 'echo/echo',
      status: 'ok',
      error: null,
      cost_known: true,
    });
  });

  it('runs chat prompts', async () => {
    const res = await t.request('POST', '/run_prompt', { body: { prompt_id: 'chat', inputs: { tone: 'kind', q: 'Why?' } } });
    expect(res.json.output).toBe('system: Be kind.\n\nuser: Why?');
  });

  it('requires string inputs (dict[str, str]) and stores nothing on bad input', async () => {
    const before = await count('runs');
    const res = await t.request('POST', '/run_prompt', { body: { prompt_id: 'support', inputs: { customer: 1, question: true } } });
    expect(res.text).toBe(
      '{"detail":[{"type":"string_type","loc":["body","inputs","customer"],"msg":"Input should be a valid string","input":1},{"type":"string_type","loc":["body","inputs","question"],"msg":"Input should be a valid string","input":true}]}',
    );
    expect((await t.request('POST', '/run_prompt', { body: { prompt_id: 'support', inputs: {} } })).status).toBe(422);
    expect((await t.request('POST', '/run_prompt', { body: { prompt_id: 'ghost', inputs: {} } })).status).toBe(404);
    expect(await count('runs')).toBe(before);
  });
});

describe('POST /track_outcome', () => {
  it('stores every field and attributes to the run', async () => {
    const run = (await t.request('POST', '/run_prompt', { body: { prompt_id: 'support', inputs: { customer: 'A', question: 'B' } } })).json;
    const res = await t.request('POST', '/track_outcome', {
      key: await t.keyFor('runtime'),
      body: {
        prompt_run_id: run.run_id,
        prompt_id: 'support',
        external_user_id: 'u1',
        event_type: 'resolved',
        label: 'good',
        value: 'v',
        numeric_value: '4.5',
        is_success: 'yes',
        source: 'app',
        metadata: { a: [1, 2] },
      },
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.json)).toEqual(['outcome_id', 'status', 'experiment_id', 'variant_assigned']);
    expect(res.json).toMatchObject({ status: 'recorded', experiment_id: null, variant_assigned: null });
    const listed = await t.request('GET', `/outcomes?prompt_run_id=${run.run_id}`, { key: await t.keyFor('read') });
    expect(listed.json.data).toHaveLength(1);
    expect(listed.json.data[0]).toMatchObject({
      outcome_id: res.json.outcome_id,
      prompt_id: 'support',
      prompt_run_id: run.run_id,
      external_user_id: 'u1',
      event_type: 'resolved',
      label: 'good',
      value: 'v',
      numeric_value: 4.5,
      is_success: true,
      source: 'app',
      metadata: { a: [1, 2] },
      attributed_by: 'none',
    });
  });

  it('defaults event_type to "outcome" and accepts a bare prompt_id', async () => {
    const res = await t.request('POST', '/track_outcome', { body: { prompt_id: 'support' } });
    expect(res.status).toBe(200);
    const stored = await t.store.sql.get('SELECT event_type, is_success FROM outcomes WHERE id = ?', [res.json.outcome_id]);
    expect(stored).toEqual({ event_type: 'outcome', is_success: null });
  });

  it('answers 404 for an unknown run and 422 for a run of another prompt; stores nothing', async () => {
    const before = await count('outcomes');
    expect((await t.request('POST', '/track_outcome', { body: { prompt_run_id: 'run_nope', prompt_id: 'support' } })).json).toEqual({
      detail: "Run 'run_nope' not found",
    });
    const run = (await t.request('POST', '/run_prompt', { body: { prompt_id: 'chat', inputs: { tone: 'a', q: 'b' } } })).json;
    const res = await t.request('POST', '/track_outcome', { body: { prompt_run_id: run.run_id, prompt_id: 'support' } });
    expect(res.status).toBe(422);
    const why = `run ${run.run_id} belongs to prompt 'chat', not 'support'`;
    expect(res.json.detail).toEqual([
      { type: 'value_error', loc: ['body', 'prompt_run_id'], msg: `Value error, ${why}`, input: run.run_id, ctx: { error: why } },
    ]);
    expect((await t.request('POST', '/track_outcome', { body: { prompt_id: 'support', numeric_value: 'Infinity' } })).json.detail[0].type).toBe(
      'finite_number',
    );
    expect(await count('outcomes')).toBe(before);
  });

  it("never attributes to another project's run", async () => {
    const run = (await t.request('POST', '/run_prompt', { body: { prompt_id: 'support', inputs: { customer: 'A', question: 'B' } } })).json;
    const other = await t.keyFor('admin', 'other');
    await givenPrompt(t, { prompt_id: 'support', template: 'x', key: other });
    expect((await t.request('POST', '/track_outcome', { key: other, body: { prompt_run_id: run.run_id, prompt_id: 'support' } })).status).toBe(404);
    expect((await t.request('GET', `/runs/${run.run_id}`, { key: other })).status).toBe(404);
  });
});

describe('GET /runs and /outcomes', () => {
  it('filter, page newest first, and validate their query', async () => {
    const page1 = await t.request('GET', '/runs?prompt_id=support&limit=2');
    expect(page1.json.data).toHaveLength(2);
    const page2 = await t.request('GET', `/runs?prompt_id=support&limit=2&cursor=${page1.json.next_cursor}`);
    expect(page2.json.data[0].run_id < page1.json.data[1].run_id).toBe(true);
    expect((await t.request('GET', '/runs?status=error')).json.data).toEqual([]);
    expect((await t.request('GET', '/runs?since=2999-01-01T00:00:00Z')).json.data).toEqual([]);
    expect((await t.request('GET', '/runs?since=yesterday')).status).toBe(422);
    expect((await t.request('GET', '/runs?status=weird')).json.detail[0].type).toBe('literal_error');
    expect((await t.request('GET', '/outcomes?event_type=resolved')).json.data).toHaveLength(1);
    expect((await t.request('GET', '/runs/run_missing')).status).toBe(404);
  });

  it("refuse an unknown key, and never show another project's rows", async () => {
    expect((await t.request('GET', '/outcomes', { key: 'bad' })).status).toBe(401);
    const other = await t.keyFor('read', 'third');
    expect((await t.request('GET', '/runs', { key: other })).json.data).toEqual([]);
    expect((await t.request('GET', '/outcomes', { key: other })).json.data).toEqual([]);
  });
});
