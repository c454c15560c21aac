// POST /run_prompt answered as server-sent events (docs/streaming.md), over a real socket, through
// the real openai SDK against a loopback fake provider that streams.
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultMigrationsDir, loadMigrations, migrate } from '../../../src/db/migrate.js';
import { sqliteSql } from '../../../src/db/sql.js';
import { findRun } from '../../../src/modules/runs/runs.repo.js';
import { tempDataDir } from '../../support/processes.js';
import { testBackend } from '../../support/postgres.js';
import { behave, FakeOpenAI } from '../../support/fakeOpenAI.js';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { type SseEvent, type SseOptions, ssePost } from '../../support/sse.js';
import { givenExperiment, givenPrompt } from '../../support/fixtures.js';

let primary: FakeOpenAI;
let backup: FakeOpenAI;
let t: TestApp;
let port: number;

beforeAll(async () => {
  primary = new FakeOpenAI();
  backup = new FakeOpenAI();
  const [p, b] = await Promise.all([primary.start(), backup.start()]);
  t = await startTestApp({
    PROMPTLINE_PROVIDER_FAKE_BASE_URL: p.baseURL,
    PROMPTLINE_PROVIDER_FAKE_API_KEY: 'sk-test-stream-secret-000',
    PROMPTLINE_PROVIDER_BACKUP_BASE_URL: b.baseURL,
    PROMPTLINE_MAX_RETRIES: '1',
    PROMPTLINE_REQUEST_DEADLINE_MS: '5000',
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
  await givenPrompt(t, { prompt_id: 'story', template: 'Tell {{who}} a story', model: 'fake/gpt-4o-mini', fallbacks: ['backup/gpt-4o-mini'] });
  await givenPrompt(t, { prompt_id: 'alone', template: 'Hi {{who}}', model: 'fake/gpt-4o-mini' });
  await givenPrompt(t, { prompt_id: 'echoed', template: 'Hello {{who}}, how are you?', model: 'echo/test' });
  await givenPrompt(t, { prompt_id: 'ab', template: 'A {{who}}', model: 'fake/gpt-4o-mini', versions: ['B {{who}}'] });
  await givenExperiment(t, { experiment_id: 'ab-test', prompt_id: 'ab', variants: { a: 1, b: 2 }, start: true });
  await givenPrompt(t, { prompt_id: 'fast', template: 'A {{who}}', model: 'echo/test', versions: ['B {{who}}'] });
  await givenExperiment(t, {
    experiment_id: 'ttft-test',
    prompt_id: 'fast',
    variants: { a: 1, b: 2 },
    metrics: [{ source: 'runs', kind: 'ttft_ms', role: 'primary' }],
    start: true,
  });
});

afterAll(async () => {
  await t?.cleanup();
  await Promise.all([primary?.close(), backup?.close()]);
});

/** A POST over the socket, read as server-sent events. */
const post = (route: string, body: unknown, opts: SseOptions = {}) => ssePost(port, route, body, opts);

const deltas = (events: SseEvent[]) => events.filter((e) => e.event === 'delta');
const storedRun = async (id: string) => (await t.request('GET', `/runs/${id}`)).json;

/** The newest run of a prompt, once one with that status is stored (a cancelled run is stored after its client left). */
async function runOnceStored(promptId: string, status: string): Promise<any> {
  for (let i = 0; i < 200; i++) {
    const run = (await t.request('GET', `/runs?prompt_id=${promptId}&status=${status}&limit=1`)).json.data[0];
    if (run) return run;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`no ${status} run of ${promptId} was stored`);
}

describe('POST /run_prompt as server-sent events', () => {
  it('streams delta events in order, then one run event equal to the stored run, usage from the final chunk', async () => {
    primary.script([behave.stream({ content: 'Once upon a time, the end.', chunks: 6, usage: { prompt_tokens: 21, completion_tokens: 9 } })]);
    const res = await post('/run_prompt', { prompt_id: 'story', inputs: { who: 'Ada' } });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['x-accel-buffering']).toBe('no');
    expect(primary.requests.at(-1)!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(res.events.map((e) => e.event)).toEqual(['delta', 'delta', 'delta', 'delta', 'delta', 'delta', 'run']);
    expect(
      deltas(res.events)
        .map((e) => e.data.text)
        .join(''),
    ).toBe('Once upon a time, the end.');
    const answer = res.events.at(-1)!.data;
    expect(Object.keys(answer)).toEqual([
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
    expect(answer).toMatchObject({
      output: 'Once upon a time, the end.',
      prompt_tokens: 21,
      completion_tokens: 9,
      total_tokens: 30,
      model_used: 'fake/gpt-4o-mini',
    });
    const stored = await storedRun(answer.run_id);
    for (const key of [
      'output',
      'model_used',
      'latency_ms',
      'prompt_tokens',
      'completion_tokens',
      'total_tokens',
      'token_cost_usd',
      'prompt_version',
    ] as const) {
      expect(stored[key], key).toEqual(answer[key]);
    }
    expect(stored).toMatchObject({ status: 'ok', tokens_estimated: false, variant: null, experiment_id: null });
    expect(stored.ttft_ms).toBeTypeOf('number');
    expect(stored.ttft_ms).toBeLessThanOrEqual(stored.latency_ms);
    // token_cost_usd is a pydantic float in the event as in the JSON answer.
    expect(res.text).toMatch(/"token_cost_usd":\d+\.\d+/);
  });

  it('answers JSON to "stream": true in the body without the Accept header, as the contract ignores unknown fields', async () => {
    const res = await post('/run_prompt', { prompt_id: 'alone', inputs: { who: 'Bo' }, stream: true }, { accept: null });
    expect(res.headers['content-type']).toBe('application/json');
    expect(JSON.parse(res.text).output).toBe('fake answer to: Hi Bo');
  });

  it('answers JSON as before without either, and a non-streamed run has no ttft_ms', async () => {
    const res = await post('/run_prompt', { prompt_id: 'alone', inputs: { who: 'Cy' } }, { accept: null });
    expect(res.headers['content-type']).toBe('application/json');
    const answer = JSON.parse(res.text);
    expect(answer.output).toBe('fake answer to: Hi Cy');
    expect((await storedRun(answer.run_id)).ttft_ms).toBeNull();
  });

  it('estimates the usage with the tokenizer when no usage chunk comes', async () => {
    primary.script([behave.stream({ content: 'one two three', chunks: 3, usage: null })]);
    const res = await post('/run_prompt', { prompt_id: 'alone', inputs: { who: 'Di' } });
    const stored = await storedRun(res.events.at(-1)!.data.run_id);
    expect(stored).toMatchObject({ status: 'ok', output: 'one two three', tokens_estimated: true });
    expect(stored.completion_tokens).toBeGreaterThan(0);
  });

  it('streams the echo provider word by word', async () => {
    const res = await post('/run_prompt', { prompt_id: 'echoed', inputs: { who: 'Ed' } });
    expect(deltas(res.events).map((e) => e.data.text)).toEqual(['Hello ', 'Ed, ', 'how ', 'are ', 'you?']);
    expect(res.events.at(-1)!.data).toMatchObject({ output: 'Hello Ed, how are you?', model_used: 'echo/test', token_cost_usd: 0 });
  });

  it('forwards tool-call pieces as delta events', async () => {
    primary.script([behave.stream({ toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' }] })]);
    const res = await post('/run_prompt', { prompt_id: 'alone', inputs: { who: 'Fi' } });
    const calls = deltas(res.events).map((e) => e.data.tool_call);
    expect(calls[0]).toEqual({ index: 0, id: 'call_1', name: 'get_weather', arguments: '' });
    expect(calls.map((c) => c.arguments ?? '').join('')).toBe('{"city":"Oslo"}');
    expect(res.events.at(-1)!.event).toBe('run');
  });

  it('retries and falls back before the first token: the stream is the fallback’s', async () => {
    primary.script([behave.serverError(), behave.rateLimited({})]);
    backup.script([behave.stream({ content: 'from the backup', chunks: 3 })]);
    const res = await post('/run_prompt', { prompt_id: 'story', inputs: { who: 'Gus' } });
    expect(res.status).toBe(200);
    const answer = res.events.at(-1)!.data;
    expect(answer).toMatchObject({ output: 'from the backup', model_used: 'backup/gpt-4o-mini' });
    const stored = await storedRun(answer.run_id);
    expect(stored.attempts.map((a: any) => [a.model, a.status])).toEqual([
      ['fake/gpt-4o-mini', 500],
      ['fake/gpt-4o-mini', 429],
      ['backup/gpt-4o-mini', 200],
    ]);
  });

  it('answers JSON with today’s status when every model fails before the first token, and stores the failed run', async () => {
    primary.script([behave.serverError(), behave.serverError()]);
    const res = await post('/run_prompt', { prompt_id: 'alone', inputs: { who: 'Hal' } });
    expect(res.status).toBe(502);
    expect(res.headers['content-type']).toBe('application/json');
    expect(JSON.parse(res.text)).toEqual({ detail: 'Model provider error: fake returned 500: The server had an error' });
    const failed = await runOnceStored('alone', 'error');
    expect(failed.ttft_ms).toBeNull();
  });

  it('ends with an error event and a stored failed run when the provider fails after the first token', async () => {
    primary.script([behave.stream({ chunks: 6, cutAfter: 2, delayMs: 30 })]);
    const res = await post('/run_prompt', { prompt_id: 'story', inputs: { who: 'Ivy' } });
    expect(res.status).toBe(200);
    expect(res.events.map((e) => e.event)).toEqual(['delta', 'delta', 'error']);
    const end = res.events.at(-1)!.data;
    expect(end).toMatchObject({ status: 'error', detail: 'Model provider error: fake: connection reset' });
    // No fallback once committed: the backup was never asked.
    const stored = await storedRun(end.run_id);
    expect(stored).toMatchObject({ status: 'error', output: 'w0 w1 ', tokens_estimated: true, error: end.detail });
    expect(stored.completion_tokens).toBeGreaterThan(0);
    expect(stored.ttft_ms).toBeTypeOf('number');
  });

  it('cancels the upstream call when the client goes away mid-stream, and stores the run as cancelled with the tokens seen', async () => {
    primary.script([behave.stream({ chunks: 50, delayMs: 20 })]);
    const res = await post('/run_prompt', { prompt_id: 'alone', inputs: { who: 'Jo' } }, { stopAfter: 2 });
    expect(res.stopped).toBe(true);
    const cancelled = await runOnceStored('alone', 'cancelled');
    expect(cancelled.output).toMatch(/^w0 w1 /);
    expect(cancelled.output).not.toContain('w49');
    expect(cancelled.completion_tokens).toBeGreaterThan(0);
    expect(cancelled.tokens_estimated).toBe(true);
    expect(primary.requests.at(-1)!.clientClosed).toBe(true);
  });

  it('carries the experiment, the variant and the user in the run event', async () => {
    const res = await post('/run_prompt', { prompt_id: 'ab', inputs: { who: 'Kim' }, external_user_id: 'user-7' });
    const answer = res.events.at(-1)!.data;
    expect(answer.experiment_id).toBe('ab-test');
    expect(['a', 'b']).toContain(answer.variant_assigned);
    const stored = await storedRun(answer.run_id);
    expect(stored).toMatchObject({ external_user_id: 'user-7', variant: answer.variant_assigned, experiment_id: 'ab-test' });
  });

  it('checks the key and the body before any stream: 401 and 422 as JSON', async () => {
    const noKey = await post('/run_prompt', { prompt_id: 'alone', inputs: {} }, { key: 'pl_r_wrong-key-0000000000000000000000000' });
    expect(noKey.status).toBe(401);
    expect(noKey.headers['content-type']).toBe('application/json');
    const bad = await post('/run_prompt', { prompt_id: 'alone', inputs: { who: 3 } });
    expect(bad.status).toBe(422);
    expect(JSON.parse(bad.text).detail[0]).toMatchObject({ type: 'string_type', loc: ['body', 'inputs', 'who'] });
    const missing = await post('/run_prompt', { prompt_id: 'nope', inputs: {} });
    expect(missing.status).toBe(404);
  });

  it('streams a playground run with the Accept header', async () => {
    const res = await post('/prompts/echoed/versions/1/run', { inputs: { who: 'Lu' } });
    expect(res.events.at(-1)).toMatchObject({ event: 'run', data: { output: 'Hello Lu, how are you?' } });
    expect((await storedRun(res.events.at(-1)!.data.run_id)).source).toBe('playground');
  });

  it('makes ttft_ms a runs metric of experiments, over the streamed runs only (lower is better)', async () => {
    for (const user of ['s0', 's1', 's2', 's3']) await post('/run_prompt', { prompt_id: 'fast', inputs: { who: user }, external_user_id: user });
    for (const user of ['n0', 'n1']) await post('/run_prompt', { prompt_id: 'fast', inputs: { who: user }, external_user_id: user }, { accept: null });
    const report = (await t.request('GET', '/experiments/ttft-test/results')).json;
    const metric = report.metrics.find((m: any) => m.name === 'runs:ttft_ms');
    expect(metric).toMatchObject({ kind: 'ttft_ms', direction: 'lower' });
    expect(metric.variants.reduce((n: number, v: any) => n + v.n, 0)).toBe(4);
    const stored = (await t.request('GET', '/runs?experiment_id=ttft-test&limit=10')).json.data;
    const ttfts = stored.filter((r: any) => r.ttft_ms !== null).map((r: any) => r.ttft_ms);
    expect(ttfts).toHaveLength(4);
    expect(metric.variants.reduce((sum: number, v: any) => sum + v.sum, 0)).toBeCloseTo(
      ttfts.reduce((a: number, b: number) => a + b, 0),
      9,
    );
  });

  it('documents the event stream in /openapi.json beside the JSON answer, whose schema is unchanged', async () => {
    const doc = (await t.request('GET', '/openapi.json', { key: null })).json;
    const ok = doc.paths['/run_prompt'].post.responses['200'].content;
    expect(Object.keys(ok)).toEqual(['application/json', 'text/event-stream']);
    expect(ok['application/json'].schema.title).toBe('RunPromptResponse');
    expect(ok['text/event-stream'].schema.description).toContain('`delta`');
  });
});

describe.skipIf(testBackend() === 'postgres')('migration 0020 on SQLite (PostgreSQL alters the table in place)', () => {
  it('rebuilds runs with every stored run kept, ttft_ms null, and cancelled allowed', async () => {
    const dir = tempDataDir();
    const db = new Database(path.join(dir, 'old.db'));
    try {
      const all = loadMigrations(defaultMigrationsDir());
      migrate(
        db,
        all.filter((m) => m.version < 20),
      );
      db.exec(`INSERT INTO projects (id, name, created_at) VALUES ('p', 'p', '2025-01-01T00:00:00.000Z');
        INSERT INTO prompts (project_id, prompt_id, description, created_at, archived_at) VALUES ('p', 'q', NULL, '2025-01-01T00:00:00.000Z', NULL);
        INSERT INTO runs (id, project_id, prompt_id, prompt_version, inputs, rendered, output, model_requested, latency_ms, status, attempts, created_at, source)
        VALUES ('run_old', 'p', 'q', 1, '{}', '{"text":"x","messages":[]}', 'out', 'echo/x', 12, 'ok', '[]', '2025-01-01T00:00:00.000Z', 'playground');`);
      expect(migrate(db, all)).toEqual(all.filter((m) => m.version >= 20).map((m) => m.version));
      expect(await findRun(sqliteSql(db), 'p', 'run_old')).toMatchObject({ output: 'out', latency_ms: 12, status: 'ok', source: 'playground', ttft_ms: null });
      db.exec("UPDATE runs SET status = 'cancelled' WHERE id = 'run_old'");
      expect(() => db.exec("UPDATE runs SET status = 'lost' WHERE id = 'run_old'")).toThrow(/CHECK constraint/);
      const indexes = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'runs' AND sql IS NOT NULL ORDER BY name").pluck().all();
      expect(indexes).toEqual([
        'runs_error_list',
        'runs_experiment',
        'runs_experiment_list',
        'runs_experiment_user',
        'runs_project_created',
        'runs_prompt_list',
        'runs_prompt_stats',
        'runs_user_list',
      ]);
    } finally {
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
