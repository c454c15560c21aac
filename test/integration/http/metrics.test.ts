import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attemptOutcome } from '../../../src/providers/observed.js';
import type { AttemptRecord } from '../../../src/providers/types.js';
import { behave, FakeOpenAI } from '../../support/fakeOpenAI.js';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenExperiment, givenPrompt } from '../../support/fixtures.js';
import { startServer, tempDataDir } from '../../support/processes.js';
import { writeTempJson } from '../../support/tempJson.js';

/** The value of one sample of the Prometheus text, or undefined; labels in any order. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (m === null || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return undefined;
}

let t: TestApp;
let fake: FakeOpenAI;
let runtime: string;
const scrape = async () => {
  const res = await t.request('GET', '/metrics', { key: null });
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text;
};

beforeAll(async () => {
  fake = new FakeOpenAI();
  const { baseURL } = await fake.start();
  t = await startTestApp({
    PROMPTLINE_METRICS: 'on',
    PROMPTLINE_PROVIDER_FAKE_BASE_URL: baseURL,
    PROMPTLINE_MAX_RETRIES: '1',
    PROMPTLINE_PRICES_FILE: writeTempJson({ 'fake/m': { input: 1, output: 2 } }),
  });
  runtime = await t.keyFor('runtime');
  await givenPrompt(t, { prompt_id: 'mp', template: 'hi {{x}}', model: 'fake/m', versions: [{ template: 'hey {{x}}', model: 'fake/m' }] });
});
afterAll(async () => {
  await t.cleanup();
  await fake.close();
});

describe('GET /metrics (PROMPTLINE_METRICS=on)', () => {
  it('counts requests by route template and status, never by raw path', async () => {
    await t.request('GET', '/prompts/secret-customer-42');
    await t.request('GET', '/prompts/mp');
    const text = await scrape();
    expect(sample(text, 'promptline_http_requests_total', { method: 'GET', route: '/prompts/:prompt_id', status: '404' })).toBe(1);
    expect(sample(text, 'promptline_http_requests_total', { method: 'GET', route: '/prompts/:prompt_id', status: '200' })).toBe(1);
    expect(sample(text, 'promptline_http_request_duration_seconds_count', { method: 'GET', route: '/prompts/:prompt_id' })).toBe(2);
    expect(text).not.toContain('secret-customer-42');
    await t.request('GET', '/no/such/path/for-user-7');
    const after = await scrape();
    expect(sample(after, 'promptline_http_requests_total', { route: 'unmatched', status: '404' })).toBe(1);
    expect(after).not.toContain('for-user-7');
  });

  it('counts model attempts by outcome, and the tokens and cost of answers', async () => {
    fake.script([behave.serverError(), behave.ok({ usage: { prompt_tokens: 10, completion_tokens: 5 } })]);
    expect((await t.request('POST', '/run_prompt', { key: runtime, body: { prompt_id: 'mp', inputs: { x: 'y' } } })).status).toBe(200);
    fake.script([behave.badRequest()]);
    expect((await t.request('POST', '/run_prompt', { key: runtime, body: { prompt_id: 'mp', inputs: { x: 'y' } } })).status).toBe(502);
    const text = await scrape();
    const model = { provider: 'fake', model: 'm' };
    expect(sample(text, 'promptline_model_attempts_total', { ...model, outcome: 'retried' })).toBe(1);
    expect(sample(text, 'promptline_model_attempts_total', { ...model, outcome: 'ok' })).toBe(1);
    expect(sample(text, 'promptline_model_attempts_total', { ...model, outcome: '4xx' })).toBe(1);
    expect(sample(text, 'promptline_model_attempt_duration_seconds_count', model)).toBe(3);
    expect(sample(text, 'promptline_model_tokens_total', { ...model, kind: 'prompt' })).toBe(10);
    expect(sample(text, 'promptline_model_tokens_total', { ...model, kind: 'completion' })).toBe(5);
    expect(sample(text, 'promptline_model_cost_usd_total', model)).toBeCloseTo((10 * 1 + 5 * 2) / 1e6, 12);
  });

  it('shows group commits, cache hits and misses', async () => {
    const text = await scrape();
    expect(sample(text, 'promptline_commit_batch_writes_count')).toBeGreaterThan(0);
    expect(sample(text, 'promptline_commit_duration_seconds_count')).toBe(sample(text, 'promptline_commit_batch_writes_count'));
    expect(sample(text, 'promptline_cache_lookups_total', { cache: 'keys', result: 'hit' })).toBeGreaterThan(0);
    expect(sample(text, 'promptline_cache_lookups_total', { cache: 'prompts', result: 'miss' })).toBeGreaterThan(0);
    expect(sample(text, 'promptline_cache_lookups_total', { cache: 'prompts', result: 'hit' })).toBeGreaterThan(0);
    expect(sample(text, 'promptline_process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('gauges running experiments and those whose exposures do not follow their weights', async () => {
    expect(sample(await scrape(), 'promptline_experiments_running')).toBe(0);
    await givenExperiment(t, { experiment_id: 'mx', prompt_id: 'mp', start: true });
    let text = await scrape();
    expect([sample(text, 'promptline_experiments_running'), sample(text, 'promptline_experiments_srm_flagged')]).toEqual([1, 0]);
    // 60 users in a and 10 in b against 50/50 weights: a broken split (checked from 8 users a variant).
    const projectId = (await t.keys.authenticate(runtime))!.projectId;
    await t.store.writer.write(async (tx) => {
      for (let i = 0; i < 70; i++) {
        await tx.run(
          `INSERT INTO assignments (project_id, experiment_id, external_user_id, variant, first_seen, last_seen, calls) VALUES (?, 'mx', ?, 'a', '2030-01-01T00:00:00.000Z', '2030-01-01T00:00:00.000Z', 1)`,
          [projectId, `skew-${i}`],
        );
      }
    });
    await t.store.writer.write((tx) =>
      tx.run(
        `UPDATE assignments SET variant = 'b' WHERE experiment_id = 'mx' AND external_user_id IN (${Array.from({ length: 10 }, (_, i) => `'skew-${i}'`).join(', ')})`,
      ),
    );
    text = await scrape();
    expect([sample(text, 'promptline_experiments_running'), sample(text, 'promptline_experiments_srm_flagged')]).toEqual([1, 1]);
  });

  it('is in /openapi.json as an operation that needs no key', async () => {
    const op = (await t.request('GET', '/openapi.json', { key: null })).json.paths['/metrics'].get;
    expect(op).toMatchObject({ operationId: 'getMetrics', security: [] });
    expect(op.description).toMatch(/No key needed\.$/);
  });

  it('is not there unless asked for', async () => {
    const off = await startTestApp();
    try {
      expect((await off.request('GET', '/metrics', { key: null })).status).toBe(404);
      expect(off.metrics).toBeNull();
    } finally {
      await off.cleanup();
    }
  });
});

describe('PROMPTLINE_METRICS_PORT', () => {
  it('serves /metrics on its own port only, and names the variable when that port is taken', async () => {
    const port = await freePort();
    const server = await startServer({ PROMPTLINE_DATA_DIR: tempDataDir(), PROMPTLINE_METRICS_PORT: String(port) });
    try {
      const own = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(own.status).toBe(200);
      expect(await own.text()).toContain('promptline_http_requests_total');
      expect((await fetch(`${server.origin}/metrics`)).status).toBe(404);
      // The metrics port binds before the main port, so the server never reports listening: exit 1 with one line.
      const taken = await startServer({ PROMPTLINE_DATA_DIR: tempDataDir(), PROMPTLINE_METRICS_PORT: String(port) }).then(
        async (s) => `listened, then exit ${await s.stop()}: ${s.output()}`,
        (error: Error) => error.message,
      );
      expect(String(taken)).toMatch(/^server exited with 1/);
      expect(String(taken)).toContain(`PROMPTLINE_METRICS_PORT=${port} on HOST=127.0.0.1 is already in use`);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });
});

describe('attemptOutcome', () => {
  const a = (model: string, status: number | null, error: string | null = null): AttemptRecord => ({ model, attempt: 1, status, error, latency_ms: 1 });
  it.each<[string, AttemptRecord[], number, string]>([
    ['an answer', [a('p/m', 200)], 0, 'ok'],
    ['a failure the same model retried', [a('p/m', 500, 'x'), a('p/m', 200)], 0, 'retried'],
    ['a failure before a fallback', [a('p/m', 503, 'x'), a('q/n', 200)], 0, '5xx'],
    ['a call timeout', [a('p/m', null, 'p timed out after 300 ms')], 0, 'timeout'],
    ['the request deadline', [a('p/m', null, 'deadline of 3000 ms reached')], 0, 'timeout'],
    ['a bad request', [a('p/m', 400, 'bad')], 0, '4xx'],
    ['a reset connection', [a('p/m', null, 'socket hang up')], 0, 'error'],
  ])('%s', (_name, attempts, i, expected) => {
    expect(attemptOutcome(attempts, i)).toBe(expected);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}
