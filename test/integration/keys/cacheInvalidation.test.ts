import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startTestApp, type TestApp } from '../../support/harness.js';
import { givenPrompt } from '../../support/fixtures.js';
import { createTestDatabase, testBackend } from '../../support/postgres.js';

/**
 * A change drops from the in-memory caches what it changed, and nothing else: revoking one key
 * leaves every other key warm, moving a label leaves every key and every other prompt warm. Seen
 * through the cache counters of /metrics (a miss is a database read on the request path).
 */
const apps: TestApp[] = [];
let database: Awaited<ReturnType<typeof createTestDatabase>> | null = null;
afterEach(async () => {
  for (const app of apps.splice(0)) await app.cleanup();
  await database?.drop();
  database = null;
});

async function lookups(app: TestApp, cache: 'keys' | 'prompts', result: 'hit' | 'miss'): Promise<number> {
  const text = (await app.request('GET', '/metrics', { key: null })).text;
  const line = text.split('\n').find((l) => l.startsWith(`promptline_cache_lookups_total{cache="${cache}",result="${result}"}`));
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}

const getPrompt = (app: TestApp, key: string, prompt = 'greet') =>
  app.request('POST', '/get_prompt', { key, body: { prompt_id: prompt, inputs: { name: 'Ada' } } });

async function setUp(app: TestApp): Promise<{ revoked: { key: string; id: string }; kept: string }> {
  await givenPrompt(app, { prompt_id: 'greet', template: 'Hello {{name}}', labels: ['production'], versions: ['Hi {{name}}!'] });
  await givenPrompt(app, { prompt_id: 'other', template: 'Bye {{name}}' });
  const revoked = (await app.request('POST', '/keys', { body: { name: 'to-revoke', role: 'runtime' } })).json;
  const kept = (await app.request('POST', '/keys', { body: { name: 'kept', role: 'runtime' } })).json.key;
  return { revoked: { key: revoked.key, id: revoked.key_id }, kept };
}

describe('one process', () => {
  it('revoking a key drops that key alone, and moving a label drops no key', async () => {
    const t = await startTestApp({ PROMPTLINE_METRICS: 'on' });
    apps.push(t);
    const { revoked, kept } = await setUp(t);
    // On PostgreSQL the process hears its own NOTIFYs too: let them arrive before warming up.
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (const key of [revoked.key, kept, ADMIN_KEY]) expect((await getPrompt(t, key)).status).toBe(200);

    const missesBefore = await lookups(t, 'keys', 'miss');
    expect((await t.request('DELETE', `/keys/${revoked.id}`)).status).toBe(204);
    expect((await t.request('PUT', '/prompts/greet/labels/production', { body: { version: 2 } })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await getPrompt(t, revoked.key)).status).toBe(401); // the one miss: read, found revoked
    expect((await getPrompt(t, kept)).json.prompt_version).toBe(2);
    expect((await getPrompt(t, ADMIN_KEY)).json.prompt_version).toBe(2);
    expect((await lookups(t, 'keys', 'miss')) - missesBefore).toBe(1);
  });
});

describe.skipIf(testBackend() !== 'postgres')('two replicas (PostgreSQL only: run with npm run test:postgres)', () => {
  it('a change made through one replica drops on the other only what it changed', async () => {
    database = await createTestDatabase();
    const a = await startTestApp({ PROMPTLINE_DATABASE_URL: database.url });
    apps.push(a);
    const b = await startTestApp({ PROMPTLINE_DATABASE_URL: database.url, PROMPTLINE_METRICS: 'on' });
    apps.push(b);
    const { revoked, kept } = await setUp(a);
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (const key of [revoked.key, kept]) expect((await getPrompt(b, key)).status).toBe(200);
    expect((await getPrompt(b, kept, 'other')).status).toBe(200);

    expect((await a.request('DELETE', `/keys/${revoked.id}`)).status).toBe(204);
    expect((await a.request('PUT', '/prompts/greet/labels/production', { body: { version: 2 } })).status).toBe(200);
    const changed = performance.now();
    while ((await getPrompt(b, revoked.key)).status !== 401 || (await getPrompt(b, ADMIN_KEY)).json.prompt_version !== 2) {
      expect(performance.now() - changed).toBeLessThan(1_000);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // Both changes heard: the other key and the other prompt are still in memory.
    const keyMisses = await lookups(b, 'keys', 'miss');
    const promptMisses = await lookups(b, 'prompts', 'miss');
    expect((await getPrompt(b, kept, 'other')).status).toBe(200);
    expect((await getPrompt(b, kept)).json.prompt_version).toBe(2);
    expect([(await lookups(b, 'keys', 'miss')) - keyMisses, (await lookups(b, 'prompts', 'miss')) - promptMisses]).toEqual([0, 0]);
  });

  it('a replica started with a new bootstrap key makes the others refuse the old one at once', async () => {
    database = await createTestDatabase();
    const a = await startTestApp({ PROMPTLINE_DATABASE_URL: database.url });
    apps.push(a);
    await givenPrompt(a, { prompt_id: 'greet', template: 'Hello {{name}}' });
    expect((await getPrompt(a, ADMIN_KEY)).status).toBe(200); // cached on A
    const replaced = 'pl_a_the-operator-rotated-the-bootstrap-key-000';
    const c = await startTestApp({ PROMPTLINE_DATABASE_URL: database.url, PROMPTLINE_BOOTSTRAP_ADMIN_KEY: replaced });
    apps.push(c);
    const started = performance.now();
    while ((await getPrompt(a, ADMIN_KEY)).status !== 401) {
      expect(performance.now() - started).toBeLessThan(1_000);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect((await getPrompt(a, replaced)).status).toBe(200);
    const audit = await a.request('GET', '/audit?action=key.revoked', { key: replaced });
    expect(audit.json.data).toMatchObject([{ key_name: 'system', after: { name: 'bootstrap' } }]);
  });
});
