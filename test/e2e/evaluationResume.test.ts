import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { behave, FakeOpenAI } from '../support/fakeOpenAI.js';
import { createTestDatabase } from '../support/postgres.js';
import { callServer, processFixtures, type RunningServer } from '../support/processes.js';
import { DATABASE_MS, STEP_MS, timeLimit } from '../support/timeLimits.js';

/**
 * An evaluation survives kill -9: the server is killed while every worker of the evaluation waits
 * on a model call, restarted on the same data, and goes on. Each item × version is marked before
 * its call is made, so the fake provider's count of calls is exactly items × versions: the calls
 * cut by the kill are not made again (those items are recorded as interrupted).
 */
const ADMIN = 'pl_a_e2e-evaluation-resume-key-0000000000';
const fx = processFixtures(ADMIN);
const fake = new FakeOpenAI();
let env: Record<string, string>;

const until = async (what: string, ok: () => boolean | Promise<boolean>, ms = STEP_MS) => {
  const deadline = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

beforeAll(async () => {
  const { baseURL } = await fake.start();
  env = {
    PROMPTLINE_PROVIDER_FAKE_BASE_URL: baseURL,
    PROMPTLINE_PROVIDER_FAKE_API_KEY: 'sk-test',
    PROMPTLINE_MAX_RETRIES: '0',
    PROMPTLINE_EVALUATION_LEASE_MS: '1000',
    PROMPTLINE_RATE_LIMIT_PER_MINUTE: '0',
  };
});
afterAll(async () => fake.close());

/**
 * Starts an evaluation on a first server, kills it with -9 while every worker waits on a model
 * call, starts `second` (the same server again, or another replica) and checks that it finished
 * the evaluation without calling any item twice.
 */
async function resumesAfterKill(first: () => Promise<RunningServer>, second: () => Promise<RunningServer>): Promise<void> {
  const ITEMS = 30;
  let server = await first();
  const api = (path: string, body?: unknown, method = 'POST') => callServer(server.origin, path, ADMIN, body, method);
  expect((await api('/prompts', { prompt_id: 'p', template: '{{answer}}', model: 'fake/gpt-4o-mini' })).status).toBe(201);
  expect((await api('/prompts/p/versions', { template: '{{answer}}!', model: 'fake/gpt-4o-mini' })).status).toBe(201);
  await api('/datasets', { dataset_id: 'qa' });
  await api('/datasets/qa/items', { items: Array.from({ length: ITEMS }, (_, i) => ({ inputs: { answer: `a${i}` }, expected: `a${i}` })) });
  await api('/evaluators', { evaluator_id: 'exact', kind: 'exact_match' });

  fake.requests.length = 0;
  fake.setDefault(behave.slow(20, { content: 'a' }));
  const created = await api('/evaluations', { prompt_id: 'p', versions: [2, 1], dataset_id: 'qa', evaluators: ['exact'], concurrency: 3 });
  expect(created.status).toBe(202);
  const id = created.json.evaluation_id;
  await until('a third of the calls', () => fake.requests.length >= 20);
  // From here every call hangs: once the three workers each wait on one, none is between its mark and its call.
  fake.setDefault(behave.hang());
  await until('three calls held', () => fake.inFlight === 3);
  await server.stop('SIGKILL');
  fx.forget(server);
  const calledBeforeTheKill = fake.requests.length;

  fake.setDefault(behave.ok({ content: 'a' }));
  server = await second();
  await until('the end of the evaluation', async () => (await api(`/evaluations/${id}`, undefined, 'GET')).json.status === 'completed');
  const e = (await api(`/evaluations/${id}`, undefined, 'GET')).json;
  expect(fake.requests.length).toBe(ITEMS * 2);
  expect(calledBeforeTheKill).toBeLessThan(ITEMS * 2);
  expect(e.progress).toMatchObject({ done: ITEMS * 2, total: ITEMS * 2 });
  const items = (await api(`/evaluations/${id}/items?limit=100`, undefined, 'GET')).json.data;
  const states = items.flatMap((i: any) => [i.baseline.state, i.candidate.state]);
  expect(states.filter((s: string) => s === 'interrupted')).toHaveLength(3);
  expect(states.filter((s: string) => s === 'done')).toHaveLength(ITEMS * 2 - 3);
  // Each call that returned is one stored evaluation run; none is stored twice.
  const runs = (await api('/runs?source=evaluation&limit=500', undefined, 'GET')).json.data;
  expect(runs).toHaveLength(ITEMS * 2 - 3);
}

describe('an evaluation across a crash', () => {
  // two starts, and three waits for the provider's calls or the evaluation's end
  it('resumes after kill -9 without calling any item twice', { timeout: timeLimit({ starts: 2, steps: 3 }) }, async () => {
    const dir = fx.dataDir();
    await resumesAfterKill(
      () => fx.serve(dir, env),
      () => fx.serve(dir, env),
    );
  });

  // the same, and a database made and dropped
  it("on PostgreSQL, another replica takes it over once the killed one's lease ran out", {
    timeout: timeLimit({ starts: 2, steps: 3, ms: 2 * DATABASE_MS }),
  }, async () => {
    const database = await createTestDatabase();
    try {
      const replica = () => fx.serve(undefined, { ...env, PROMPTLINE_DATABASE_URL: database.url });
      await resumesAfterKill(replica, replica);
    } finally {
      await database.drop();
    }
  });
});
