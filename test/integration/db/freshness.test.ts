import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startTestApp, type Answer, type TestApp } from '../../support/harness.js';
import { givenPrompt } from '../../support/fixtures.js';
import { createTestDatabase, testBackend } from '../../support/postgres.js';
import { startTcpProxy, type TcpProxy } from '../../support/tcpProxy.js';

/**
 * A replica whose connections to PostgreSQL go silent (a proxy that stops forwarding without
 * closing: what a dropped route or a stateful firewall does) must not keep serving what it cached:
 * past the staleness bound it reads through to the database, or answers 503, and /readyz says why.
 * Replica A talks to the database directly; replica B through the proxy.
 */
const onPostgres = testBackend() === 'postgres';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let proxy: TcpProxy;
let a: TestApp;
let b: TestApp | null;

const viaProxy = () => {
  const url = new URL(database.url);
  url.port = String(proxy.port);
  return url.toString();
};

beforeEach(async () => {
  if (!onPostgres) return;
  database = await createTestDatabase();
  proxy = await startTcpProxy({ host: '127.0.0.1', port: 5432 });
  a = await startTestApp({ PROMPTLINE_DATABASE_URL: database.url });
  b = null;
});
afterEach(async () => {
  if (!onPostgres) return;
  // The proxy first: B's black-holed connections are reset, so closing B cannot wait on them.
  await proxy.close();
  await b?.cleanup();
  await a.cleanup();
  await database.drop();
});

/** Resolves with the answer, or with 'no answer' once `ms` have passed (the request is left to hang). */
function answerWithin(ms: number, request: Promise<Answer>): Promise<Answer | 'no answer'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'no answer'>((resolve) => {
    timer = setTimeout(() => resolve('no answer'), ms);
  });
  return Promise.race([request, late]).finally(() => clearTimeout(timer));
}

const getPrompt = (app: TestApp, key = ADMIN_KEY) => app.request('POST', '/get_prompt', { key, body: { prompt_id: 'greet', inputs: { name: 'Ada' } } });

async function setUp(): Promise<{ key: string; keyId: string }> {
  await givenPrompt(a, { prompt_id: 'greet', template: 'Hello {{name}}', labels: ['production'], versions: ['Hi {{name}}!'] });
  const created = await a.request('POST', '/keys', { body: { name: 'app', role: 'runtime' } });
  expect(created.status).toBe(201);
  // B hears these changes within milliseconds and drops what it cached: let it, before warming its caches.
  await new Promise((resolve) => setTimeout(resolve, 300));
  return { key: created.json.key, keyId: created.json.key_id };
}

describe.skipIf(!onPostgres)('a replica cut off from PostgreSQL without a word (PostgreSQL only: run with npm run test:postgres)', () => {
  it('refuses a key revoked and serves a label moved through another replica within the staleness bound while its LISTEN connection is black-holed, and says it is not ready', async () => {
    const replica = await startTestApp({ PROMPTLINE_DATABASE_URL: viaProxy() });
    b = replica;
    const { key, keyId } = await setUp();
    // Cached on B from here on: key, served version.
    expect((await getPrompt(replica, key)).json.prompt_version).toBe(1);
    expect((await getPrompt(replica)).json.prompt_version).toBe(1);
    expect((await replica.request('GET', '/readyz')).status).toBe(200);

    proxy.blackHole((sent) => sent.includes('LISTEN '));
    const changed = performance.now();
    expect((await a.request('DELETE', `/keys/${keyId}`)).status).toBe(204);
    expect((await a.request('PUT', '/prompts/greet/labels/production', { body: { version: 2 } })).status).toBe(200);

    // The default bound is 5 s; a second of margin for a loaded machine.
    let seen: { key: number; version: number } = { key: 0, version: 0 };
    while (performance.now() - changed < 6_000) {
      const k = await getPrompt(replica, key);
      seen = { key: k.status, version: (await getPrompt(replica)).json.prompt_version };
      if (seen.key === 401 && seen.version === 2) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    console.log(
      `LISTEN black-holed: after ${Math.round(performance.now() - changed)} ms B answers the revoked key ${seen.key} and serves version ${seen.version} (bound 5000 ms)`,
    );
    expect(seen).toEqual({ key: 401, version: 2 });
    const ready = await replica.request('GET', '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.json).toEqual({ status: 'not ready', reason: expect.stringMatching(/^other replicas' changes unheard for \d+ ms \(bound 5000 ms/) });

    // The feed comes back: ready again, and a change made elsewhere is heard within a second.
    proxy.heal();
    const healed = performance.now();
    while ((await replica.request('GET', '/readyz')).status !== 200) {
      expect(performance.now() - healed).toBeLessThan(5_000);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect((await a.request('PUT', '/prompts/greet/labels/production', { body: { version: 1 } })).status).toBe(200);
    const moved = performance.now();
    while ((await getPrompt(replica)).json.prompt_version !== 1) {
      expect(performance.now() - moved).toBeLessThan(1_000);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect((await getPrompt(replica, key)).status).toBe(401);
  });

  it('answers requests and /readyz within a bounded time (503, not ready) when every connection is black-holed', async () => {
    const replica = await startTestApp({ PROMPTLINE_DATABASE_URL: viaProxy(), PROMPTLINE_STALENESS_BOUND_MS: '2000', PROMPTLINE_DB_TIMEOUT_MS: '1000' });
    b = replica;
    const { key } = await setUp();
    expect((await getPrompt(replica, key)).status).toBe(200);
    // A few pooled connections exist (the app's writes and reads went through them).
    await Promise.all(Array.from({ length: 4 }, () => replica.request('GET', '/prompts/greet')));

    proxy.blackHole();
    const cutAt = performance.now();
    // Bound 2 s, then the database has 1 s (+1 s for the client's own deadline): no answer may take over 4 s.
    const seen: Array<{ at: number; path: string; status: number | 'no answer'; ms: number }> = [];
    const send = async (path: string, request: () => Promise<Answer>) => {
      const sent = performance.now();
      const answer = await answerWithin(10_000, request());
      seen.push({ at: Math.round(sent - cutAt), path, status: answer === 'no answer' ? answer : answer.status, ms: Math.round(performance.now() - sent) });
    };
    while (performance.now() - cutAt < 5_000) {
      await Promise.all([
        send('/get_prompt', () => getPrompt(replica, key)),
        send('/readyz', () => replica.request('GET', '/readyz')),
        send('/track_outcome', () =>
          replica.request('POST', '/track_outcome', { key, body: { prompt_id: 'greet', external_user_id: 'u', event_type: 'click' } }),
        ),
      ]);
    }
    console.log('every connection black-holed:', JSON.stringify(seen));
    expect(seen.filter((s) => s.status === 'no answer' || s.ms > 4_000)).toEqual([]);
    // Once past the bound, nothing is served from memory any more.
    const late = seen.filter((s) => s.at > 3_000);
    expect(late.length).toBeGreaterThan(0);
    expect(late.filter((s) => s.status !== 503)).toEqual([]);
  });
});
