import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { behave, FakeOpenAI } from '../../support/fakeOpenAI.js';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenPrompt } from '../../support/fixtures.js';
import { createTestDatabase, testBackend } from '../../support/postgres.js';
import { writeTempJson } from '../../support/tempJson.js';

/** /run_prompt end to end through the real openai SDK against loopback fake providers. */
const SECRET = 'sk-test-provider-secret-000';
let primary: FakeOpenAI;
let backup: FakeOpenAI;
let t: TestApp;
let env: Record<string, string>;
let pricesDir: string;
/** On PostgreSQL, the database of its own that the restart below opens again (the harness drops only those it made). */
let database: Awaited<ReturnType<typeof createTestDatabase>> | null = null;

beforeAll(async () => {
  primary = new FakeOpenAI();
  backup = new FakeOpenAI();
  const [p, b] = await Promise.all([primary.start(), backup.start()]);
  // Chosen so costs are easy to check by hand: $1, $0.5 and $4 per million tokens.
  const pricesFile = writeTempJson({ 'fake/house-model': { input: 1, cached_input: 0.5, output: 4 } });
  pricesDir = path.dirname(pricesFile);
  env = {
    PROMPTLINE_PROVIDER_FAKE_BASE_URL: p.baseURL,
    PROMPTLINE_PROVIDER_FAKE_API_KEY: SECRET,
    PROMPTLINE_PROVIDER_FAKE_TIMEOUT_MS: '300',
    PROMPTLINE_PROVIDER_BACKUP_BASE_URL: b.baseURL,
    PROMPTLINE_MAX_RETRIES: '1',
    PROMPTLINE_REQUEST_DEADLINE_MS: '3000',
    PROMPTLINE_PRICES_FILE: pricesFile,
  };
  if (testBackend() === 'postgres') {
    database = await createTestDatabase();
    env.PROMPTLINE_DATABASE_URL = database.url;
  }
  t = await startTestApp(env);
  await givenPrompt(t, {
    prompt_id: 'chat',
    messages: [
      { role: 'system', content: 'Be {{tone}}.' },
      { role: 'user', content: '{{q}}' },
    ],
    model: 'fake/house-model',
    params: { temperature: 0.3, max_tokens: 50, seed: 7 },
  });
  await givenPrompt(t, { prompt_id: 'text', template: 'Summarise: {{doc}}', model: 'fake/gpt-4o-mini', fallbacks: ['backup/gpt-4o-mini'] });
  await givenPrompt(t, { prompt_id: 'unpriced', template: 'x {{y}}', model: 'fake/mystery-model-9000' });
});

afterAll(async () => {
  await t?.cleanup();
  await database?.drop();
  await Promise.all([primary?.close(), backup?.close()]);
  fs.rmSync(pricesDir, { recursive: true, force: true });
});

const run = (prompt_id: string, inputs: Record<string, string>) => t.request('POST', '/run_prompt', { body: { prompt_id, inputs } });
const storedRun = async (id: string) => (await t.request('GET', `/runs/${id}`)).json;
const lastRun = async () => (await t.request('GET', '/runs?limit=1')).json.data[0];

describe('/run_prompt over an OpenAI-compatible provider', () => {
  it('sends the rendered messages and params, reports the served model, usage and exact cost, and stores it all', async () => {
    primary.script([behave.ok({ content: 'Sure.', model: 'house-model-2026-01', usage: { prompt_tokens: 1200, completion_tokens: 300, cached_tokens: 200 } })]);
    const res = await run('chat', { tone: 'brief', q: 'Why?' });
    expect(res.status).toBe(200);
    const sent = primary.requests.at(-1)!;
    expect(sent.body).toMatchObject({
      model: 'house-model',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Why?' },
      ],
      temperature: 0.3,
      max_tokens: 50,
      seed: 7,
    });
    expect(sent.headers.authorization).toBe(`Bearer ${SECRET}`);
    // (1200 − 200) × $1/M + 200 × $0.5/M + 300 × $4/M = 0.001 + 0.0001 + 0.0012
    expect(res.json).toMatchObject({
      output: 'Sure.',
      model_used: 'fake/house-model-2026-01',
      prompt_tokens: 1200,
      completion_tokens: 300,
      total_tokens: 1500,
      token_cost_usd: 0.0023,
    });
    const stored = await storedRun(res.json.run_id);
    expect(stored).toMatchObject({
      status: 'ok',
      model_requested: 'fake/house-model',
      model_used: 'fake/house-model-2026-01',
      cached_tokens: 200,
      tokens_estimated: false,
      cost_known: true,
      price: { input: 1, cached_input: 0.5, output: 4, source: 'override' },
      token_cost_usd: 0.0023,
    });
    expect(stored.attempts).toEqual([expect.objectContaining({ model: 'fake/house-model', attempt: 1, status: 200, error: null })]);
  });

  it('prices known models from the maintained table and counts tokens when the provider reports none', async () => {
    primary.script([behave.withoutUsage({ content: 'A summary.' })]);
    const res = await run('text', { doc: 'The quick brown fox.' });
    expect(res.status).toBe(200);
    const stored = await storedRun(res.json.run_id);
    expect(stored.tokens_estimated).toBe(true); // counted locally (o200k for gpt-4o-mini), not reported by the provider
    expect(stored.prompt_tokens).toBeGreaterThan(0);
    expect(stored.completion_tokens).toBeGreaterThan(0);
    expect(stored.price.source).toBe('genai-prices');
    const expected = (stored.prompt_tokens * stored.price.input + stored.completion_tokens * stored.price.output) / 1e6;
    expect(stored.token_cost_usd).toBeCloseTo(expected, 12);
  });

  it('answers 502 on a 400 without retrying, stores the failed run, and never leaks the provider key', async () => {
    const before = primary.requests.length;
    primary.script([behave.badRequest(`Invalid value for 'temperature' (key ${SECRET})`)]);
    const res = await run('chat', { tone: 'x', q: 'y' });
    expect(res.status).toBe(502);
    expect(res.json.detail).toMatch(/^Model provider error: /);
    expect(primary.requests.length - before).toBe(1);
    const stored = await lastRun();
    expect(stored).toMatchObject({ status: 'error', output: null, model_requested: 'fake/house-model' });
    expect(stored.error).toBe(res.json.detail);
    expect(stored.attempts).toHaveLength(1);
    expect(JSON.stringify(stored) + res.text).not.toContain(SECRET);
  });

  it('retries a 500 and serves the retry', async () => {
    primary.script([behave.serverError(), behave.ok({ content: 'second time' })]);
    const res = await run('chat', { tone: 'x', q: 'y' });
    expect(res.json.output).toBe('second time');
    expect((await storedRun(res.json.run_id)).attempts.map((a: { status: number }) => a.status)).toEqual([500, 200]);
  });

  it('falls back to the next model when the primary keeps failing, and records every attempt', async () => {
    primary.script([behave.serverError(), behave.serverError()]);
    backup.script([behave.ok({ content: 'from backup', model: 'gpt-4o-mini-2024-07-18' })]);
    const res = await run('text', { doc: 'd' });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ output: 'from backup', model_used: 'backup/gpt-4o-mini-2024-07-18' });
    const attempts = (await storedRun(res.json.run_id)).attempts;
    expect(attempts.map((a: { model: string; status: number }) => [a.model, a.status])).toEqual([
      ['fake/gpt-4o-mini', 500],
      ['fake/gpt-4o-mini', 500],
      ['backup/gpt-4o-mini', 200],
    ]);
  });

  it('answers 504 when every attempt times out, within the per-call timeouts, and stores the run', async () => {
    primary.script([behave.hang(), behave.hang()]);
    const started = Date.now();
    const res = await run('chat', { tone: 'x', q: 'y' });
    expect(res.status).toBe(504);
    expect(res.json).toEqual({ detail: 'Model provider timed out after 300 ms' });
    expect(Date.now() - started).toBeLessThan(2500);
    expect(await lastRun()).toMatchObject({ status: 'error', error: 'Model provider timed out after 300 ms' });
  });

  it('reports an unpriced model as cost 0 with cost_known=false', async () => {
    primary.script([behave.ok({ usage: { prompt_tokens: 10, completion_tokens: 5 } })]);
    const res = await run('unpriced', { y: '1' });
    expect(res.json.token_cost_usd).toBe(0);
    expect(res.text).toContain('"token_cost_usd":0.0');
    expect(await storedRun(res.json.run_id)).toMatchObject({ cost_known: false, price: null });
  });

  it('rejects a version naming an unconfigured provider (422), and answers 502 at run time if the configuration changed', async () => {
    const created = await t.request('POST', '/prompts/chat/versions', { body: { template: 'x', model: 'gone/model' } });
    expect(created.status).toBe(422);
    expect(created.json.detail[0]).toMatchObject({ loc: ['body', 'model'], msg: "Value error, provider 'gone' is not configured" });
    // Restart the same database without the `fake` provider.
    await t.close();
    const { PROMPTLINE_PROVIDER_FAKE_BASE_URL: _url, PROMPTLINE_PROVIDER_FAKE_API_KEY: _key, PROMPTLINE_PROVIDER_FAKE_TIMEOUT_MS: _ms, ...rest } = env;
    const restarted = await startTestApp({ ...rest, PROMPTLINE_DATA_DIR: t.dataDir });
    try {
      const res = await restarted.request('POST', '/run_prompt', { body: { prompt_id: 'chat', inputs: { tone: 'a', q: 'b' } } });
      expect(res.status).toBe(502);
      expect(res.json).toEqual({ detail: "Model provider error: provider 'fake' is not configured" });
      const stored = (await restarted.request('GET', '/runs?limit=1')).json.data[0];
      expect(stored).toMatchObject({ status: 'error', error: res.json.detail });
    } finally {
      await restarted.cleanup();
      // Not a spread: that would read every property of the closed app, its SQLite getter too.
      const { dataDir } = t;
      t = Object.create(t, { cleanup: { value: async () => fs.rmSync(dataDir, { recursive: true, force: true }) } }) as TestApp;
    }
  });
});
