import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { behave, FakeOpenAI } from '../../support/fakeOpenAI.js';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenPrompt } from '../../support/fixtures.js';

// A model's answer is not the client's to check: a NUL in it (which PostgreSQL's text cannot hold)
// must not turn a paid, successful call into a 500 there while SQLite stores it, and a lone
// surrogate must not be stored as three U+FFFD on SQLite and one on PostgreSQL. On both backends
// the run is stored and answered with each U+0000 and each lone surrogate replaced by one U+FFFD.
let model: FakeOpenAI;
let t: TestApp;

beforeAll(async () => {
  model = new FakeOpenAI();
  const { baseURL } = await model.start();
  t = await startTestApp({
    PROMPTLINE_PROVIDER_FAKE_BASE_URL: baseURL,
    PROMPTLINE_PROVIDER_FAKE_API_KEY: 'sk-test-provider-secret-000',
    PROMPTLINE_MAX_RETRIES: '0',
  });
  await givenPrompt(t, { template: 'Say {{x}}', model: 'fake/gpt-4o-mini' });
});
afterAll(async () => {
  await t?.cleanup();
  await model?.close();
});

describe('a NUL in what the model sends back', () => {
  it('a successful answer with NUL is stored and answered with U+FFFD in its place', async () => {
    model.script([behave.ok({ content: 'a\u0000b\u0000' })]);
    const res = await t.request('POST', '/run_prompt', { body: { prompt_id: 'p', inputs: { x: 'hi' } } });
    expect([res.status, res.json?.output]).toEqual([200, 'a\uFFFDb\uFFFD']);
    const stored = await t.request('GET', `/runs/${res.json.run_id}`);
    expect(stored.json.output).toBe('a\uFFFDb\uFFFD');
  });

  it('a lone surrogate in the answer (a \\ud800 escape without its pair) is one U+FFFD, stored and answered alike on both backends', async () => {
    model.script([behave.ok({ content: 'a\ud800b\udc00 \ud83d\ude00' })]);
    const res = await t.request('POST', '/run_prompt', { body: { prompt_id: 'p', inputs: { x: 'hi' } } });
    expect([res.status, res.json?.output]).toEqual([200, 'a\uFFFDb\uFFFD \ud83d\ude00']);
    const stored = await t.request('GET', `/runs/${res.json.run_id}`);
    expect(stored.json.output).toBe('a\uFFFDb\uFFFD \ud83d\ude00');
  });

  it("a provider's error message with NUL is stored with U+FFFD, and the client gets the model error, not a 500", async () => {
    model.script([behave.badRequest('bad\u0000request')]);
    const res = await t.request('POST', '/run_prompt', { body: { prompt_id: 'p', inputs: { x: 'hi' } } });
    expect(res.status).toBe(502);
    const run = (await t.request('GET', '/runs?limit=1')).json.data[0];
    expect(run.status).toBe('error');
    expect(JSON.stringify(run)).not.toContain('\\u0000');
  });
});
