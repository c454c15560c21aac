import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenExperiment, givenPrompt } from '../../support/fixtures.js';
import { createTestDatabase } from '../../support/postgres.js';

/**
 * Two replicas (two apps, each with its own caches) on one PostgreSQL database: what one changes,
 * the other honours within a second, and a user gets one variant whichever replica they reach.
 * Always on PostgreSQL: replicas are what that backend is for.
 */
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let a: TestApp;
let b: TestApp;

beforeAll(async () => {
  database = await createTestDatabase();
  a = await startTestApp({ PROMPTLINE_DATABASE_URL: database.url });
  b = await startTestApp({ PROMPTLINE_DATABASE_URL: database.url });
});
afterAll(async () => {
  await a.cleanup();
  await b.cleanup();
  await database.drop();
});

/** Polls `read` until it gives `expected`; answers how long that took (fails after `withinMs`). */
async function within<T>(withinMs: number, read: () => Promise<T>, expected: T): Promise<number> {
  const started = performance.now();
  for (;;) {
    const value = await read();
    if (JSON.stringify(value) === JSON.stringify(expected)) return performance.now() - started;
    if (performance.now() - started > withinMs) expect(value).toEqual(expected);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const served = async (app: TestApp, user?: string) => {
  const res = await app.request('POST', '/get_prompt', { body: { prompt_id: 'greet', inputs: { name: 'Ada' }, external_user_id: user } });
  return res.json as { prompt_version: number; variant_assigned: string | null };
};

describe('replicas on one PostgreSQL database', () => {
  it('serve a label moved through another replica within a second', async () => {
    await givenPrompt(a, { prompt_id: 'greet', template: 'Hello {{name}}', labels: ['production'], versions: ['Hi {{name}}!'] });
    expect((await served(b)).prompt_version).toBe(1); // cached on b from now on
    expect((await a.request('PUT', '/prompts/greet/labels/production', { body: { version: 2 } })).status).toBe(200);
    expect(await within(1000, async () => (await served(b)).prompt_version, 2)).toBeLessThan(1000);
  });

  it('refuse a key revoked through another replica within a second', async () => {
    const created = await a.request('POST', '/keys', { body: { name: 'short-lived', role: 'runtime' } });
    const key = created.json.key as string;
    const status = async () => (await b.request('POST', '/get_prompt', { key, body: { prompt_id: 'greet', inputs: { name: 'x' } } })).status;
    expect(await status()).toBe(200);
    expect((await a.request('DELETE', `/keys/${created.json.key_id}`)).status).toBe(204);
    expect(await within(1000, status, 401)).toBeLessThan(1000);
  });

  it('give a user one variant whichever replica they reach, and stop assigning once paused elsewhere', async () => {
    await givenExperiment(a, {
      experiment_id: 'tone',
      prompt_id: 'greet',
      variants: { v1: 1, v2: 2 },
      start: true,
    });
    for (let i = 0; i < 40; i++) {
      const user = `user-${i}`;
      // Both replicas at once: the first stored assignment wins, and both answer it.
      const [viaA, viaB] = await Promise.all([served(a, user), served(b, user)]);
      expect(viaB.variant_assigned).toBe(viaA.variant_assigned);
      expect((await served(i % 2 === 0 ? a : b, user)).variant_assigned).toBe(viaA.variant_assigned);
    }
    const assigned = await a.store.sql.value<number>("SELECT count(*) FROM assignments WHERE experiment_id = 'tone'");
    expect(assigned).toBe(40);
    expect((await a.request('POST', '/experiments/tone/pause')).status).toBe(200);
    expect(await within(1000, async () => (await served(b, 'user-new')).variant_assigned, null)).toBeLessThan(1000);
  });

  it('honour an Idempotency-Key whichever replica gets the retry, and store one outcome for twins sent to both', async () => {
    const track = (app: TestApp, key: string) =>
      app.request('POST', '/track_outcome', {
        body: { prompt_id: 'greet', external_user_id: 'buyer', event_type: 'order' },
        headers: { 'idempotency-key': key },
      });
    const first = await track(a, 'order-1');
    expect(first.status).toBe(200);
    const retry = await track(b, 'order-1');
    expect([retry.status, retry.json]).toEqual([200, first.json]);

    const twins = await Promise.all([track(a, 'order-2'), track(b, 'order-2'), track(a, 'order-2'), track(b, 'order-2')]);
    expect(twins.map((res) => res.status)).toEqual([200, 200, 200, 200]);
    expect(new Set(twins.map((res) => res.json.outcome_id)).size).toBe(1);
    expect(await a.store.sql.value<number>("SELECT count(*) FROM outcomes WHERE event_type = 'order'")).toBe(2);
  });
});
