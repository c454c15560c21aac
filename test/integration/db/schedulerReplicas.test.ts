import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenPrompt } from '../../support/fixtures.js';
import { createTestDatabase } from '../../support/postgres.js';

/**
 * The scheduler on two replicas of one PostgreSQL database, both passing at the same moments of one
 * driven clock: each scheduled time of a rollout is checked exactly once, whichever replica wins
 * the lease, and a check whose process died is made once its lease ends. Always on PostgreSQL:
 * replicas are what that backend is for.
 */
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let a: TestApp;
let b: TestApp;
let now = Date.parse('2026-04-01T00:00:00.000Z');
const clock = { now: () => new Date(now) };
const HOUR = 3_600_000;

beforeAll(async () => {
  database = await createTestDatabase();
  const env = { PROMPTLINE_DATABASE_URL: database.url };
  a = await startTestApp(env, { clock, schedulerTimers: false });
  b = await startTestApp(env, { clock, schedulerTimers: false });
  await givenPrompt(a, { prompt_id: 'p', labels: ['production'], versions: ['Hello {{name}}'] });
  // Minimums nobody reaches: every check holds, so the rollout runs through every scheduled time.
  const body = { experiment_id: 'ramp', prompt_id: 'p', type: 'rollout', candidate_version: 2, steps: [{ percent: 10, min_users: 1_000_000 }] };
  expect((await a.request('POST', '/experiments', { body })).status).toBe(201);
  expect((await a.request('POST', '/experiments/ramp/start')).status).toBe(200);
});
afterAll(async () => {
  await a.cleanup();
  await b.cleanup();
  await database.drop();
});

const checks = async () =>
  (await a.request('GET', '/experiments/ramp/checks')).json.data as Array<{ scheduled_at: string | null; trigger: string; action: string }>;

describe('the scheduler on two replicas', () => {
  it('checks each scheduled time once, whichever replica claims it', async () => {
    const made: number[] = [];
    for (let hour = 0; hour < 6; hour++) {
      const [fromA, fromB] = await Promise.all([a.scheduler.runDue(), b.scheduler.runDue()]);
      made.push(fromA + fromB);
      now += HOUR;
    }
    expect(made).toEqual([1, 1, 1, 1, 1, 1]);
    const scheduled = (await checks()).filter((c) => c.trigger === 'scheduled');
    expect(scheduled.map((c) => c.scheduled_at)).toEqual(
      Array.from({ length: 6 }, (_, i) => new Date(Date.parse('2026-04-01T00:00:00.000Z') + i * HOUR).toISOString()),
    );
    expect(scheduled.every((c) => c.action === 'hold')).toBe(true);
  });

  it('leaves a check leased by a process that died until its lease ends, then makes it once; a check asked for meanwhile is a 409', async () => {
    const due = new Date(now).toISOString();
    await a.store.sql.run("UPDATE experiment_schedule SET lease_owner = 'lse_dead', lease_until = ? WHERE experiment_id = 'ramp'", [
      new Date(now + 5 * 60_000).toISOString(),
    ]);
    expect(await Promise.all([a.scheduler.runDue(), b.scheduler.runDue()])).toEqual([0, 0]);
    expect((await b.request('POST', '/experiments/ramp/check')).status).toBe(409);
    now += 5 * 60_000;
    const [fromA, fromB] = await Promise.all([a.scheduler.runDue(), b.scheduler.runDue()]);
    expect(fromA + fromB).toBe(1);
    expect((await checks()).filter((c) => c.scheduled_at === due)).toHaveLength(1);
  });

  it('a check asked for on one replica takes the lease too, and leaves the scheduled times as they were', async () => {
    const before = (await checks()).length;
    const [asked, passed] = await Promise.all([b.request('POST', '/experiments/ramp/check'), a.scheduler.runDue()]);
    expect([200, 409]).toContain(asked.status);
    expect(passed).toBe(0); // nothing was due
    expect((await checks()).length).toBe(before + (asked.status === 200 ? 1 : 0));
    now += HOUR;
    expect((await a.scheduler.runDue()) + (await b.scheduler.runDue())).toBe(1);
  });
});
