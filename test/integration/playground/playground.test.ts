import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { behave, FakeOpenAI } from '../../support/fakeOpenAI.js';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenExperiment, givenPrompt } from '../../support/fixtures.js';

/** The playground's routes: render and run any version, a run stored as a playground run and kept out of experiments. */
let t: TestApp;
let fake: FakeOpenAI;
let read: string;
let admin: string;

beforeAll(async () => {
  fake = new FakeOpenAI();
  const { baseURL } = await fake.start();
  t = await startTestApp({ PROMPTLINE_PROVIDER_FAKE_BASE_URL: baseURL, PROMPTLINE_PROVIDER_FAKE_API_KEY: 'sk-test', PROMPTLINE_MAX_RETRIES: '0' });
  read = await t.keyFor('read');
  admin = await t.keyFor('admin');
  // Version 1 is production; version 2 is served to nobody.
  await givenPrompt(t, {
    prompt_id: 'greet',
    template: 'Hello {{name}}',
    labels: ['production'],
    versions: ['Hi {{name}}, {{#items}}[{{n}}]{{/items}} age {{who.age}}'],
  });
  await givenPrompt(t, {
    prompt_id: 'chat',
    messages: [
      { role: 'system', content: 'Be {{tone}}.' },
      { role: 'user', content: '{{q}}' },
    ],
  });
});
afterAll(async () => {
  await t?.cleanup();
  await fake?.close();
});

const render = (prompt: string, version: number, body: unknown, key: string | null = read) =>
  t.request('POST', `/prompts/${prompt}/versions/${version}/render`, { key, body });
const run = (prompt: string, version: number, body: unknown, key: string | null = admin) =>
  t.request('POST', `/prompts/${prompt}/versions/${version}/run`, { key, body });

describe('POST /prompts/{id}/versions/{v}/render', () => {
  it('renders a version that is not served, with numbers, lists and nested objects', async () => {
    const res = await render('greet', 2, { inputs: { name: 'Ada', items: [{ n: 1 }, { n: 2.5 }], who: { age: 36 } } });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      prompt_id: 'greet',
      version: 2,
      prompt_text: 'Hi Ada, [1][2.5] age 36',
      messages: [{ role: 'user', content: 'Hi Ada, [1][2.5] age 36' }],
    });
  });

  it('renders a chat version as messages and joined text', async () => {
    const res = await render('chat', 1, { inputs: { tone: 'brief', q: 'Why?' } });
    expect(res.json.prompt_text).toBe('system: Be brief.\n\nuser: Why?');
    expect(res.json.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Why?' },
    ]);
  });

  it('stores nothing and assigns nobody', async () => {
    const before = await t.store.sql.value('SELECT count(*) FROM runs');
    await render('greet', 1, { inputs: { name: 'x' } });
    expect(await t.store.sql.value('SELECT count(*) FROM runs')).toBe(before);
  });

  it("answers /get_prompt's 422 for each missing variable, with the inputs echoed", async () => {
    const res = await render('greet', 1, { inputs: { other: 1 } });
    expect(res.status).toBe(422);
    expect(res.text).toBe('{"detail":[{"type":"missing","loc":["body","inputs","name"],"msg":"Field required","input":{"other":1}}]}');
  });

  it('answers 404 for an unknown prompt or version, and 422 for a bad version or body', async () => {
    expect((await render('ghost', 1, { inputs: {} })).json).toEqual({ detail: "Prompt 'ghost' not found" });
    expect((await render('greet', 9, { inputs: {} })).json).toEqual({ detail: "Version 9 of prompt 'greet' not found" });
    expect((await render('greet', 0, { inputs: {} })).status).toBe(422);
    expect((await render('greet', 1, { inputs: [] })).json.detail[0].loc).toEqual(['body', 'inputs']);
    expect((await render('greet', 1, { inputs: {}, extra: 1 })).json.detail[0].type).toBe('extra_forbidden');
  });

  it('answers 404 for an archived prompt (nothing of it is served)', async () => {
    await givenPrompt(t, { prompt_id: 'gone', template: 'x' });
    await t.request('DELETE', '/prompts/gone');
    expect((await render('gone', 1, { inputs: {} })).status).toBe(404);
    expect((await run('gone', 1, { inputs: {} })).status).toBe(404);
  });

  it('takes a runtime key as not allowed, and hides another project', async () => {
    expect((await render('greet', 1, { inputs: { name: 'x' } }, await t.keyFor('runtime'))).status).toBe(403);
    expect((await render('greet', 1, { inputs: { name: 'x' } }, await t.keyFor('read', 'other'))).json).toEqual({ detail: "Prompt 'greet' not found" });
  });
});

describe('POST /prompts/{id}/versions/{v}/run', () => {
  it('runs a version that is not served and stores a playground run, shown in GET /runs and /runs/{id}', async () => {
    const res = await run('greet', 2, { inputs: { name: 'Ada', items: [{ n: 7 }], who: { age: 3 } } });
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
    expect(res.json).toMatchObject({ output: 'Hi Ada, [7] age 3', model_used: 'echo/echo', prompt_version: 2, variant_assigned: null, experiment_id: null });
    expect(res.text).toContain('"token_cost_usd":0.0');
    const stored = (await t.request('GET', `/runs/${res.json.run_id}`, { key: read })).json;
    expect(stored).toMatchObject({ source: 'playground', prompt_version: 2, inputs: { name: 'Ada', items: [{ n: 7 }], who: { age: 3 } }, status: 'ok' });
    const listed = (await t.request('GET', '/runs?prompt_id=greet&source=playground', { key: read })).json.data;
    expect(listed.map((r: { run_id: string }) => r.run_id)).toContain(res.json.run_id);
    expect(listed.every((r: { source: string }) => r.source === 'playground')).toBe(true);
  });

  it("runs /run_prompt's runs as source 'api', and filters them", async () => {
    const served = (await t.request('POST', '/run_prompt', { body: { prompt_id: 'greet', inputs: { name: 'B' } } })).json;
    expect((await t.request('GET', `/runs/${served.run_id}`)).json.source).toBe('api');
    const api = (await t.request('GET', '/runs?prompt_id=greet&source=api')).json.data;
    expect(api.map((r: { run_id: string }) => r.run_id)).toEqual([served.run_id]);
    expect((await t.request('GET', '/runs?source=elsewhere')).status).toBe(422);
  });

  it('runs on an overriding model, without the fallbacks of the version', async () => {
    await givenPrompt(t, { prompt_id: 'fb', template: 'F {{x}}', model: 'fake/primary', fallbacks: ['echo/backup'] });
    fake.script([behave.serverError()]);
    const failed = await run('fb', 1, { inputs: { x: '1' }, model: 'fake/other' });
    expect(failed.status).toBe(502);
    const stored = (await t.request('GET', '/runs?prompt_id=fb&source=playground')).json.data;
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ status: 'error', model_requested: 'fake/other', source: 'playground' });
    expect(stored[0].attempts.map((a: { model: string }) => a.model)).toEqual(['fake/other']);
    const echoed = await run('fb', 1, { inputs: { x: '1' }, model: 'echo/trial' });
    expect(echoed.json).toMatchObject({ output: 'F 1', model_used: 'echo/trial' });
    expect((await t.request('GET', `/runs/${echoed.json.run_id}`)).json.model_requested).toBe('echo/trial');
  });

  it("checks the model as a version's model is checked", async () => {
    expect((await run('greet', 1, { inputs: { name: 'x' }, model: 'nonsense' })).json.detail[0].loc).toEqual(['body', 'model']);
    const unknown = await run('greet', 1, { inputs: { name: 'x' }, model: 'nowhere/m' });
    expect(unknown.status).toBe(422);
    expect(unknown.json.detail[0]).toMatchObject({ loc: ['body', 'model'], msg: "Value error, provider 'nowhere' is not configured" });
  });

  it('stores nothing for a render error or an unknown version', async () => {
    const before = await t.store.sql.value('SELECT count(*) FROM runs');
    expect((await run('greet', 1, { inputs: {} })).status).toBe(422);
    expect((await run('greet', 7, { inputs: {} })).status).toBe(404);
    expect(await t.store.sql.value('SELECT count(*) FROM runs')).toBe(before);
  });

  it('needs an admin key: a read key renders but cannot run', async () => {
    expect((await run('greet', 1, { inputs: { name: 'x' } }, read)).json).toEqual({ detail: 'Not allowed for this API key' });
    expect((await run('greet', 1, { inputs: { name: 'x' } }, null)).status).toBe(422);
    expect((await run('greet', 1, { inputs: { name: 'x' } }, 'pl_a_nope')).status).toBe(401);
    expect((await run('greet', 1, { inputs: { name: 'x' } }, await t.keyFor('admin', 'other'))).status).toBe(404);
  });
});

describe('a playground run and experiments', () => {
  it('is never attributed, never assigns, never counts in results, and its outcomes reach no experiment', async () => {
    await givenPrompt(t, { prompt_id: 'ab', template: 'A {{name}}', labels: ['production'], versions: ['B {{name}}'] });
    await givenExperiment(t, { experiment_id: 'ab-exp', prompt_id: 'ab', variants: { a: 1, b: 2 }, start: true });
    // A user assigned by the runtime, whose outcomes would be attributed through the assignment.
    const served = (await t.request('POST', '/get_prompt', { body: { prompt_id: 'ab', inputs: { name: 'x' }, external_user_id: 'u1' } })).json;
    expect(served.experiment_id).toBe('ab-exp');
    const results = async () => {
      const { generated_at: _g, ...rest } = (await t.request('GET', '/experiments/ab-exp/results')).json;
      return rest;
    };
    const before = await results();
    const assignments = await t.store.sql.value('SELECT count(*) FROM assignments');

    const trial = await run('ab', 2, { inputs: { name: 'x' }, external_user_id: 'u1' });
    const stranger = await run('ab', 2, { inputs: { name: 'x' }, external_user_id: 'u-new' });
    expect([trial.json.experiment_id, trial.json.variant_assigned, stranger.json.experiment_id]).toEqual([null, null, null]);
    expect(await t.store.sql.value('SELECT count(*) FROM assignments')).toBe(assignments);
    expect(await results()).toEqual(before);
    const outcome = await t.request('POST', '/track_outcome', {
      body: { prompt_id: 'ab', prompt_run_id: trial.json.run_id, external_user_id: 'u1', event_type: 'click', is_success: true },
    });
    expect(outcome.json).toMatchObject({ experiment_id: null, variant_assigned: null });
    // Counted only as an outcome no experiment owns (the health section says how many there are).
    const after = await results();
    expect([after.variants, after.metrics, after.primary, after.decisions]).toEqual([before.variants, before.metrics, before.primary, before.decisions]);
    expect(after.health.unattributed_outcomes).toBe(before.health.unattributed_outcomes + 1);
    const listed = (await t.request('GET', '/runs?experiment_id=ab-exp')).json.data;
    expect(listed).toEqual([]);
  });
});
