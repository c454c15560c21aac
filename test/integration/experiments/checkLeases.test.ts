import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leaseOwner, type ProcessLiveness } from '../../../src/db/liveness.js';
import { openLiveness } from '../../../src/db/store.js';
import { givenPrompt } from '../../support/fixtures.js';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { type IdentityHolder, startIdentityHolder } from '../../support/identityHolder.js';
import { createTestDatabase, testBackend } from '../../support/postgres.js';
import { timeLimit } from '../../support/timeLimits.js';

/**
 * The lease of an experiment's check held by another process (a real one: a Node process that
 * took an identity as a server does): while it runs, a check asked for is a 409 that says when to
 * try again, and the scheduler leaves it; killed with -9, its lease is free at once for both,
 * where it used to stay taken for its whole five minutes.
 */
const backend = testBackend();
let database: Awaited<ReturnType<typeof createTestDatabase>> | null = null;
let t: TestApp;
/** A look from outside the app: has the holder's death become visible (at once on SQLite, once the server ended its session on PostgreSQL)? */
let observer: ProcessLiveness;
const where = () => (database === null ? t.dataDir : database.url);

beforeAll(async () => {
  database = backend === 'postgres' ? await createTestDatabase() : null;
  t = await startTestApp(database === null ? {} : { PROMPTLINE_DATABASE_URL: database.url }, { schedulerTimers: false });
  observer = openLiveness({ dataDir: t.dataDir, databaseUrl: database?.url ?? null }, t.store);
  await givenPrompt(t, { prompt_id: 'p', labels: ['production'], versions: ['Hello {{name}}'] });
  // Minimums nobody reaches: every check holds.
  const body = { experiment_id: 'ramp', prompt_id: 'p', type: 'rollout', candidate_version: 2, steps: [{ percent: 10, min_users: 1_000_000 }] };
  expect((await t.request('POST', '/experiments', { body })).status).toBe(201);
  expect((await t.request('POST', '/experiments/ramp/start')).status).toBe(200);
  // The first check puts the experiment on the schedule.
  expect((await t.request('POST', '/experiments/ramp/check')).status).toBe(200);
});
afterAll(async () => {
  await observer?.close();
  await t?.cleanup();
  await database?.drop();
});

const MINUTE = 60_000;
const lease = async () =>
  t.store.sql.get<{ lease_owner: string | null; lease_until: string | null; due_at: string }>(
    "SELECT lease_owner, lease_until, due_at FROM experiment_schedule WHERE experiment_id = 'ramp'",
  );
/** Writes the lease as `owner` would have taken it just now (its check then under way), and the due time. */
const leaseTo = (owner: string, o: { untilMs?: number; dueAt?: string } = {}) =>
  t.store.writer.write(async (db) => {
    const until = new Date(Date.now() + (o.untilMs ?? 5 * MINUTE)).toISOString();
    await db.run("UPDATE experiment_schedule SET lease_owner = ?, lease_until = ? WHERE experiment_id = 'ramp'", [owner, until]);
    if (o.dueAt !== undefined) await db.run("UPDATE experiment_schedule SET due_at = ? WHERE experiment_id = 'ramp'", [o.dueAt]);
  });
const killed = async (holder: IdentityHolder) => {
  await holder.kill();
  await expect.poll(() => observer.isDead(holder.id), { message: `the death of ${holder.id} seen` }).toBe(true);
};
const checks = async () => (await t.request('GET', '/experiments/ramp/checks')).json.data as Array<{ trigger: string; scheduled_at: string | null }>;

describe(`the lease of a check held by another process (${backend})`, () => {
  it('while that process runs, a check asked for is a 409 with Retry-After and the scheduler leaves it; killed -9, both take it at once', {
    timeout: timeLimit({ starts: 2, steps: 2 }),
  }, async () => {
    const holder = await startIdentityHolder(backend, where());
    const owner = leaseOwner(holder.id);
    const past = new Date(Date.now() - MINUTE).toISOString();
    await leaseTo(owner, { dueAt: past });

    const refused = await t.request('POST', '/experiments/ramp/check');
    expect(refused.status).toBe(409);
    expect(refused.headers['retry-after']).toBe('5');
    expect(refused.json.detail).toBe("Experiment 'ramp' is being checked right now by another process: try again in 5 s (Retry-After)");
    expect(await t.scheduler.runDue()).toBe(0);
    expect((await lease())?.lease_owner).toBe(owner);

    await killed(holder);
    const before = (await checks()).length;
    const asked = await t.request('POST', '/experiments/ramp/check');
    expect(asked.status).toBe(200);
    expect(asked.json).toMatchObject({ trigger: 'manual', action: 'hold' });
    // Settled: nobody holds it now, and the due time the dead process had claimed is still due.
    expect(await lease()).toMatchObject({ lease_owner: null, lease_until: null, due_at: past });

    // The scheduler's path: the scheduled time another dead process had claimed is checked on the next pass.
    const second = await startIdentityHolder(backend, where());
    await leaseTo(leaseOwner(second.id));
    await killed(second);
    expect(await t.scheduler.runDue()).toBe(1);
    const after = await checks();
    expect(after).toHaveLength(before + 2);
    expect(after.at(-1)).toMatchObject({ trigger: 'scheduled', scheduled_at: past });
    expect((await lease())?.lease_owner).toBeNull();
  });

  it('an owner that names no process (written before leases did) keeps it until the lease ends, and the 409 says when that is', async () => {
    await leaseTo('lse_01a2534f8e7d72ddaea04e8ea933467b', { untilMs: 2 * MINUTE });
    const refused = await t.request('POST', '/experiments/ramp/check');
    expect(refused.status).toBe(409);
    const seconds = Number(refused.headers['retry-after']);
    expect(seconds).toBeGreaterThan(5);
    expect(seconds).toBeLessThanOrEqual(120);
    expect(refused.json.detail).toBe(
      `Experiment 'ramp' is being checked right now, or was by a process that cannot be seen from here: its lease ends in ${seconds} s, try again then (Retry-After)`,
    );
    expect(await t.scheduler.runDue()).toBe(0);
    // Once it has ended, the check goes ahead.
    await leaseTo('lse_01a2534f8e7d72ddaea04e8ea933467b', { untilMs: -1 });
    expect((await t.request('POST', '/experiments/ramp/check')).status).toBe(200);
  });
});
