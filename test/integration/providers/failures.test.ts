// Retries, timeouts, fallbacks, the concurrency cap and aborts, against real loopback servers
// through the real SDK. Backoff waits are recorded (and skipped) through the injected sleep.
import { createServer } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createModelGateway, ModelCallError, type ModelGateway, type ModelRequest } from '../../../src/providers/gateway.js';
import { parseProviderEnv } from '../../../src/providers/settings.js';
import { behave, FakeOpenAI, memoryLogger } from '../../support/fakeOpenAI.js';

const KEY = 'sk-test-failures-secret-0123456789';
const messages = [{ role: 'user' as const, content: 'Say hi' }];

let primary: FakeOpenAI;
let backup: FakeOpenAI;
let primaryURL: string;
let backupURL: string;
const gateways: ModelGateway[] = [];

beforeEach(async () => {
  primary = new FakeOpenAI();
  backup = new FakeOpenAI();
  ({ baseURL: primaryURL } = await primary.start());
  ({ baseURL: backupURL } = await backup.start());
});
afterEach(async () => {
  await Promise.all(gateways.splice(0).map((g) => g.close()));
  await Promise.all([primary.close(), backup.close()]);
});

function gateway(env: Record<string, string> = {}, opts: { realSleep?: boolean; random?: number } = {}) {
  const { settings, errors } = parseProviderEnv({
    PROMPTLINE_PROVIDER_MAIN_BASE_URL: primaryURL,
    PROMPTLINE_PROVIDER_MAIN_API_KEY: KEY,
    PROMPTLINE_PROVIDER_BACKUP_BASE_URL: backupURL,
    PROMPTLINE_PROVIDER_TIMEOUT_MS: '2000',
    PROMPTLINE_REQUEST_DEADLINE_MS: '5000',
    ...env,
  });
  expect(errors).toEqual([]);
  const sleeps: number[] = [];
  const gw = createModelGateway(settings, memoryLogger().logger, {
    random: () => opts.random ?? 0.5,
    ...(opts.realSleep ? {} : { sleep: async (ms: number) => void sleeps.push(ms) }),
  });
  gateways.push(gw);
  return { gw, sleeps };
}

async function failure(p: Promise<unknown>): Promise<ModelCallError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ModelCallError);
  return err as ModelCallError;
}

const req = (model = 'main/gpt-4o-mini', extra: Partial<ModelRequest> = {}): ModelRequest => ({ model, messages, ...extra });

describe('retries', () => {
  it('retries a 500 and succeeds, waiting random()·200 ms', async () => {
    primary.script([behave.serverError()]);
    const { gw, sleeps } = gateway();
    const result = await gw.execute(req());
    expect(result.attempts.map((a) => [a.attempt, a.status, a.error])).toEqual([
      [1, 500, 'main returned 500: The server had an error'],
      [2, 200, null],
    ]);
    expect(sleeps).toEqual([100]);
  });

  it('backs off with full jitter within min(5 s, 200 ms·2^n), then fails with 502', async () => {
    primary.setDefault(behave.serverError());
    const { gw, sleeps } = gateway({ PROMPTLINE_MAX_RETRIES: '6', PROMPTLINE_REQUEST_DEADLINE_MS: '60000' }, { random: 0.999 });
    const err = await failure(gw.execute(req()));
    expect(err.kind).toBe('failed');
    expect(err.message).toBe('Model provider error: main returned 500: The server had an error');
    expect(err.attempts).toHaveLength(7);
    const caps = [200, 400, 800, 1600, 3200, 5000];
    expect(sleeps).toHaveLength(6);
    sleeps.forEach((ms, i) => {
      expect(ms).toBeLessThan(caps[i]!);
      expect(ms).toBeGreaterThan(caps[i]! * 0.99);
    });
  });

  it.each([
    ['400', behave.badRequest(), 400],
    ['401', behave.unauthorized(`Incorrect API key provided: ${KEY}`), 401],
    ['404', behave.status(404, 'The model does not exist'), 404],
    ['422', behave.status(422, 'Unprocessable'), 422],
  ])('never retries a %s nor tries the fallbacks', async (_name, behaviour, status) => {
    primary.script([behaviour]);
    const { gw, sleeps } = gateway();
    const err = await failure(gw.execute(req('main/gpt-4o-mini', { fallbacks: ['backup/other'] })));
    expect(err.kind).toBe('failed');
    expect(err.message).toMatch(new RegExp(`^Model provider error: main returned ${status}: `));
    expect(err.attempts).toHaveLength(1);
    expect(sleeps).toEqual([]);
    expect(backup.requests).toHaveLength(0);
    expect(JSON.stringify(err)).not.toContain(KEY);
    expect(err.message).not.toContain(KEY);
  });

  it('honours a small Retry-After (seconds) and retry-after-ms', async () => {
    primary.script([behave.rateLimited({ 'retry-after': '1' }), behave.rateLimited({ 'retry-after-ms': '150' })]);
    const { gw, sleeps } = gateway();
    const result = await gw.execute(req());
    expect(sleeps).toEqual([1000, 150]);
    expect(result.attempts.map((a) => a.status)).toEqual([429, 429, 200]);
  });

  it('does not wait out a Retry-After beyond the cap: the fallback serves at once', async () => {
    primary.setDefault(behave.rateLimited({ 'retry-after': '3600' }));
    backup.script([behave.ok({ content: 'from backup', model: 'backup-model-v2' })]);
    const { gw, sleeps } = gateway();
    const result = await gw.execute(req('main/gpt-4o-mini', { fallbacks: ['backup/backup-model'] }));
    expect(sleeps).toEqual([]);
    expect(result).toMatchObject({ output: 'from backup', modelRequested: 'main/gpt-4o-mini', modelUsed: 'backup/backup-model-v2' });
    expect(result.attempts.map((a) => [a.model, a.status])).toEqual([
      ['main/gpt-4o-mini', 429],
      ['backup/backup-model', 200],
    ]);
    expect(result.attempts[0]!.error).toContain('exceeds the 10 s cap');
  });

  it('fails with 502 when a capped Retry-After leaves no fallback', async () => {
    primary.setDefault(behave.rateLimited({ 'retry-after': '3600' }));
    const { gw } = gateway();
    const started = performance.now();
    const err = await failure(gw.execute(req()));
    expect(performance.now() - started).toBeLessThan(1000);
    expect(err.kind).toBe('failed');
    expect(err.message).toContain('main returned 429');
  });

  it('retries a connection reset and succeeds', async () => {
    primary.script([behave.reset()]);
    const { gw } = gateway();
    const result = await gw.execute(req());
    expect(result.attempts.map((a) => [a.status, a.error])).toEqual([
      [null, 'main: connection reset'],
      [200, null],
    ]);
  });

  it('retries a refused connection, then reports it', async () => {
    const port = await closedPort();
    const { gw, sleeps } = gateway({ PROMPTLINE_PROVIDER_MAIN_BASE_URL: `http://127.0.0.1:${port}/v1` });
    const err = await failure(gw.execute(req()));
    expect(err.message).toBe('Model provider error: main: connection refused');
    expect(err.attempts).toHaveLength(3);
    expect(sleeps).toHaveLength(2);
  });

  it('answers 502 to malformed JSON without retrying', async () => {
    primary.script([behave.malformed()]);
    const { gw } = gateway();
    const err = await failure(gw.execute(req()));
    expect(err.kind).toBe('failed');
    expect(err.message).toMatch(/^Model provider error: main returned a malformed response/);
    expect(primary.requests).toHaveLength(1);
  });
});

describe('time limits', () => {
  it('holds the request deadline against a hanging provider (504)', async () => {
    primary.setDefault(behave.hang());
    const { gw } = gateway({ PROMPTLINE_REQUEST_DEADLINE_MS: '300', PROMPTLINE_PROVIDER_TIMEOUT_MS: '10000' });
    const started = performance.now();
    const err = await failure(gw.execute(req()));
    const took = performance.now() - started;
    expect(err.kind).toBe('timeout');
    expect(err.message).toBe('Model provider timed out after 300 ms');
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(600);
    expect(err.latencyMs).toBeGreaterThanOrEqual(290);
  });

  it('the deadline also bounds real backoff waits', async () => {
    primary.setDefault(behave.rateLimited({ 'retry-after': '0.25' }));
    const { gw } = gateway({ PROMPTLINE_REQUEST_DEADLINE_MS: '400', PROMPTLINE_MAX_RETRIES: '10' }, { realSleep: true });
    const started = performance.now();
    const err = await failure(gw.execute(req()));
    expect(performance.now() - started).toBeLessThan(700);
    expect(err.kind).toBe('failed'); // the next wait would outlast the deadline, so it stops
    expect(err.attempts.length).toBeGreaterThanOrEqual(2);
  });

  it('times out each call, retries it, and answers 504 when every attempt timed out', async () => {
    primary.setDefault(behave.hang());
    const { gw } = gateway({ PROMPTLINE_PROVIDER_MAIN_TIMEOUT_MS: '150', PROMPTLINE_MAX_RETRIES: '1' });
    const started = performance.now();
    const err = await failure(gw.execute(req()));
    expect(performance.now() - started).toBeLessThan(1000);
    expect(err.kind).toBe('timeout');
    expect(err.message).toBe('Model provider timed out after 150 ms');
    expect(err.attempts.map((a) => a.error)).toEqual(['main timed out after 150 ms', 'main timed out after 150 ms']);
  });

  it('a slow first call times out and the retry succeeds', async () => {
    primary.script([behave.slow(1000), behave.ok({ content: 'second' })]);
    const { gw } = gateway({ PROMPTLINE_PROVIDER_MAIN_TIMEOUT_MS: '150' });
    const result = await gw.execute(req());
    expect(result.output).toBe('second');
    expect(result.attempts.map((a) => a.status)).toEqual([null, 200]);
  });
});

describe('fallbacks', () => {
  it('serve when the primary keeps failing, and every attempt is recorded', async () => {
    primary.setDefault(behave.serverError());
    const { gw } = gateway({ PROMPTLINE_MAX_RETRIES: '1' });
    const result = await gw.execute(req('main/gpt-4o-mini', { fallbacks: ['nope/x', 'backup/llama3'] }));
    expect(result.modelUsed).toBe('backup/llama3');
    expect(result.provider).toBe('backup');
    expect(result.attempts.map((a) => [a.model, a.attempt, a.status])).toEqual([
      ['main/gpt-4o-mini', 1, 500],
      ['main/gpt-4o-mini', 2, 500],
      ['nope/x', 1, null],
      ['backup/llama3', 1, 200],
    ]);
  });

  it('an unconfigured provider is a 502 naming it', async () => {
    const { gw } = gateway();
    const err = await failure(gw.execute(req('nope/gpt-4o')));
    expect(err.kind).toBe('failed');
    expect(err.message).toBe("Model provider error: provider 'nope' is not configured");
    expect(gw.isConfigured('nope/gpt-4o')).toBe(false);
    expect(gw.isConfigured('MAIN/gpt-4o')).toBe(true);
  });
});

describe('isolation and concurrency', () => {
  it('other providers stay fast while one hangs', async () => {
    primary.setDefault(behave.hang());
    const { gw } = gateway({ PROMPTLINE_PROVIDER_MAIN_TIMEOUT_MS: '1500', PROMPTLINE_MAX_RETRIES: '0' });
    const hanging = Array.from({ length: 20 }, () => gw.execute(req()).catch((e: unknown) => e));
    await new Promise((r) => setTimeout(r, 50));
    const started = performance.now();
    for (let i = 0; i < 5; i++) await gw.execute(req('backup/fast'));
    expect(performance.now() - started).toBeLessThan(500);
    await primary.close(); // ends the hanging calls
    for (const e of await Promise.all(hanging)) expect(e).toBeInstanceOf(ModelCallError);
  });

  it('caps concurrent calls per provider and answers 503 after the queue timeout', async () => {
    primary.setDefault(behave.slow(400));
    const { gw } = gateway({ PROMPTLINE_PROVIDER_MAIN_MAX_CONCURRENCY: '2', PROMPTLINE_QUEUE_TIMEOUT_MS: '100' });
    const first = [gw.execute(req()), gw.execute(req())];
    const started = performance.now();
    const err = await failure(gw.execute(req()));
    const waited = performance.now() - started;
    expect(err.kind).toBe('busy');
    expect(err.message).toBe('Model provider busy: too many concurrent requests');
    expect(err.retryAfterSeconds).toBe(1);
    expect(waited).toBeGreaterThanOrEqual(90);
    expect(waited).toBeLessThan(350);
    await Promise.all(first);
    expect(primary.maxInFlight).toBe(2);
  });

  it('queued calls run in order once a slot frees up', async () => {
    primary.setDefault(behave.slow(100));
    const { gw } = gateway({ PROMPTLINE_PROVIDER_MAIN_MAX_CONCURRENCY: '1', PROMPTLINE_QUEUE_TIMEOUT_MS: '2000' });
    const results = await Promise.all(['a', 'b', 'c'].map((c) => gw.execute({ model: 'main/m', messages: [{ role: 'user', content: c }] })));
    expect(results.map((r) => r.output)).toEqual(['fake answer to: a', 'fake answer to: b', 'fake answer to: c']);
    expect(primary.requests.map((r) => (r.body as { messages: Array<{ content: string }> }).messages[0]!.content)).toEqual(['a', 'b', 'c']);
    expect(primary.maxInFlight).toBe(1);
  });
});

describe('client abort', () => {
  it('aborts the in-flight call and does not retry', async () => {
    primary.setDefault(behave.hang());
    const { gw } = gateway();
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    const started = performance.now();
    const err = await failure(gw.execute(req('main/gpt-4o-mini', { abort: ac, fallbacks: ['backup/x'] })));
    expect(performance.now() - started).toBeLessThan(500);
    expect(err.clientAborted).toBe(true);
    expect(err.attempts).toHaveLength(1);
    expect(backup.requests).toHaveLength(0);
    await new Promise((r) => setTimeout(r, 50));
    expect(primary.requests).toHaveLength(1);
    expect(primary.requests[0]!.clientClosed).toBe(true);
  });

  it('stops during a backoff wait', async () => {
    primary.setDefault(behave.rateLimited({ 'retry-after': '3' }));
    const { gw } = gateway({}, { realSleep: true });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    const started = performance.now();
    const err = await failure(gw.execute(req('main/m', { abort: ac })));
    expect(performance.now() - started).toBeLessThan(600);
    expect(err.clientAborted).toBe(true);
    expect(primary.requests).toHaveLength(1);
  });
});

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
