import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenExperiment, givenPrompt } from '../../support/fixtures.js';
import { createTestDatabase, testBackend } from '../../support/postgres.js';

/**
 * Two replicas on one database (one SQLite file, or one PostgreSQL database), both running the
 * scheduler's passes at the same scheduled times: a bandit is re-weighted once per scheduled time,
 * never twice, whichever replica wins the lease.
 */
let now = new Date('2026-03-02T08:00:00.000Z');
const clock = { now: () => now };
let database: Awaited<ReturnType<typeof createTestDatabase>> | null = null;
let a: TestApp;
let b: TestApp;

beforeAll(async () => {
  database = testBackend() === 'postgres' ? await createTestDatabase() : null;
  a = await startTestApp(database === null ? {} : { PROMPTLINE_DATABASE_URL: database.url }, { clock, schedulerTimers: false });
  const shared: Record<string, string> = database === null ? { PROMPTLINE_DATA_DIR: a.dataDir } : { PROMPTLINE_DATABASE_URL: database.url };
  b = await startTestApp(shared, { clock, schedulerTimers: false });
});
afterAll(async () => {
  await b?.cleanup();
  await a?.cleanup();
  await database?.drop();
});

const count = async (sql: string) => Number(await a.store.sql.value<number>(sql));

describe('a bandit on two replicas', () => {
  it('is re-weighted once per scheduled time', async () => {
    await givenPrompt(a, { prompt_id: 'greet', template: 'A {{name}}', labels: ['production'], versions: ['B {{name}}'] });
    await givenExperiment(a, {
      experiment_id: 'twin',
      prompt_id: 'greet',
      type: 'bandit',
      variants: { a: 1, b: 2 },
      metrics: [{ event_type: 'signup', kind: 'success_rate', role: 'primary' }],
      start: true,
    });
    for (let i = 0; i < 40; i++) {
      const app = i % 2 === 0 ? a : b;
      const user = `u-${i}`;
      const served = await app.request('POST', '/get_prompt', { body: { prompt_id: 'greet', external_user_id: user, inputs: { name: 'x' } } });
      const is_success = served.json.variant_assigned === 'b' ? i % 3 === 0 : i % 7 === 0;
      await app.request('POST', '/track_outcome', { body: { prompt_id: 'greet', external_user_id: user, event_type: 'signup', is_success } });
    }
    for (let hour = 1; hour <= 3; hour++) {
      const made = await Promise.all([a.scheduler.runDue(), b.scheduler.runDue()]);
      expect(made.reduce((s, n) => s + n, 0)).toBe(1);
      // Period 0 (the starting weights) is written with the first check; then one period per check.
      expect(await count("SELECT count(*) FROM bandit_allocations WHERE experiment_id = 'twin'")).toBe(hour + 1);
      expect(await count("SELECT count(*) FROM experiment_checks WHERE experiment_id = 'twin' AND action = 'reweight'")).toBe(hour);
      expect(await count("SELECT count(*) FROM audit_log WHERE action = 'experiment.reweighted'")).toBe(hour);
      now = new Date(now.getTime() + 60 * 60_000);
    }
  });
});
