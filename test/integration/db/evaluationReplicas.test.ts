import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenPrompt } from '../../support/fixtures.js';
import { createTestDatabase } from '../../support/postgres.js';
import { behave, FakeOpenAI } from '../../support/fakeOpenAI.js';
import { claimWork } from '../../../src/modules/evaluations/evaluations.repo.js';

/**
 * Two replicas on one PostgreSQL database share the evaluation queue through a lease in the
 * database: one works on an evaluation at a time, the other takes it over when the first stops,
 * and no item × version is ever called twice. Always on PostgreSQL, as replicas are.
 */
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let a: TestApp;
let b: TestApp;
const fake = new FakeOpenAI();
const ITEMS = 12;

beforeAll(async () => {
  database = await createTestDatabase();
  const { baseURL } = await fake.start();
  const env = {
    PROMPTLINE_DATABASE_URL: database.url,
    PROMPTLINE_PROVIDER_FAKE_BASE_URL: baseURL,
    PROMPTLINE_PROVIDER_FAKE_API_KEY: 'sk-test',
    PROMPTLINE_MAX_RETRIES: '0',
    PROMPTLINE_EVALUATION_LEASE_MS: '600',
  };
  a = await startTestApp(env);
  b = await startTestApp(env);
  await givenPrompt(a, {
    prompt_id: 'p',
    template: '{{answer}}',
    model: 'fake/gpt-4o-mini',
    versions: [{ template: '{{answer}}!', model: 'fake/gpt-4o-mini' }],
  });
  await a.request('POST', '/datasets', { body: { dataset_id: 'qa' } });
  await a.request('POST', '/datasets/qa/items', {
    body: { items: Array.from({ length: ITEMS }, (_, i) => ({ inputs: { answer: `a${i}` }, expected: `a${i}` })) },
  });
  await a.request('POST', '/evaluators', { body: { evaluator_id: 'exact', kind: 'exact_match' } });
});
afterAll(async () => {
  await a.cleanup();
  await b.cleanup();
  await database.drop();
  await fake.close();
});

describe('evaluations on two replicas', () => {
  it('a row two runners race for goes to one', async () => {
    const created = await a.request('POST', '/evaluations', { body: { prompt_id: 'p', versions: [2, 1], dataset_id: 'qa', evaluators: ['exact'] } });
    const id = created.json.evaluation_id as string;
    // Straight at the repository, so both runners' claims meet in the database at once.
    await a.request('POST', `/evaluations/${id}/cancel`); // keeps the runners off it; claims below are direct
    await Promise.all([a.evaluations.idle(), b.evaluations.idle()]);
    // Running again, its lease held by no runner (claimWork claims only for an active evaluation): the runners keep off it.
    await a.store.writer.write(async (db) => {
      await db.run("UPDATE evaluation_items SET state = 'pending' WHERE evaluation_id = ?", [id]);
      await db.run("UPDATE evaluations SET status = 'running', lease_owner = 'the test', lease_until = '9999-12-31' WHERE id = ?", [id]);
    });
    const projectId = (await a.store.sql.value<string>('SELECT project_id FROM evaluations WHERE id = ?', [id]))!;
    const claims = await Promise.all(
      Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? a : b).store.writer.write((db) => claimWork(db, projectId, id, `runner-${i}`, ITEMS * 2))),
    );
    const claimed = claims.flat().map((c) => `${c.seq}/${c.side}`);
    expect(claimed).toHaveLength(ITEMS * 2);
    expect(new Set(claimed).size).toBe(ITEMS * 2);
  });

  it('one replica works on it; when it stops, the other goes on; every item × version is called once', async () => {
    fake.requests.length = 0;
    fake.setDefault(behave.slow(40, { content: 'a0' }));
    const created = await a.request('POST', '/evaluations', {
      body: { prompt_id: 'p', versions: [2, 1], dataset_id: 'qa', evaluators: ['exact'], concurrency: 2 },
    });
    const id = created.json.evaluation_id as string;
    await Promise.all([a.evaluations.poll(), b.evaluations.poll()]);
    while (fake.requests.length < 6) await new Promise((resolve) => setTimeout(resolve, 10));
    const holder = (await a.store.sql.value<string>('SELECT lease_owner FROM evaluations WHERE id = ?', [id]))!;
    const [first, second] = holder === a.evaluations.owner ? [a, b] : [b, a];
    expect([a.evaluations.owner, b.evaluations.owner]).toContain(holder);
    // The holder stops (as on shutdown): calls in flight finish, its lease is released, the other takes over.
    await first.evaluations.close();
    await second.evaluations.poll();
    for (;;) {
      const e = (await second.request('GET', `/evaluations/${id}`)).json;
      if (e.status === 'completed') break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(fake.requests).toHaveLength(ITEMS * 2);
    const runIds = await a.store.sql.column<string>('SELECT run_id FROM evaluation_items WHERE evaluation_id = ?', [id]);
    expect(new Set(runIds).size).toBe(ITEMS * 2);
    expect(await a.store.sql.value<string>('SELECT lease_owner FROM evaluations WHERE id = ?', [id])).toBeNull();
  });
});
