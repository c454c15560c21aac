import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { processOf } from '../../src/db/liveness.js';
import { databasePath } from '../../src/db/open.js';
import { processesDir } from '../../src/db/sqliteLiveness.js';
import { createTestDatabase } from '../support/postgres.js';
import { callServer, processFixtures, type RunningServer } from '../support/processes.js';
import { DATABASE_MS, STEP_MS, timeLimit } from '../support/timeLimits.js';

/**
 * The built server killed with -9 in the middle of an experiment's check, then started again on
 * the same data: the next check asked for goes ahead at once. It used to answer 409 "try again in
 * a moment" for five minutes, the restarted server waiting out the lease of the process it had been.
 *
 * The kill lands inside the check: the test waits until the check's lease is taken, then holds
 * the lease's row from its own connection (a write lock on SQLite, a row lock on PostgreSQL), so
 * the check cannot settle before the kill; a check that settled first is simply asked for again.
 */
const ADMIN = 'pl_a_e2e-check-leases-key-00000000000000';
const fx = processFixtures(ADMIN);
const ENV = { PROMPTLINE_RATE_LIMIT_PER_MINUTE: '0' };

/** The lease row held from outside the server while it is taken; `release` lets go of it. */
interface HeldLease {
  owner: string;
  release(): Promise<void>;
}

const LEASE = "SELECT lease_owner FROM experiment_schedule WHERE experiment_id = 'ramp'";

/** SQLite: once the lease is seen taken, the write lock; still taken under it, the check cannot settle. */
async function holdOnSqlite(dataDir: string, answered: () => boolean): Promise<HeldLease | null> {
  const db = new Database(databasePath(dataDir));
  db.pragma('busy_timeout = 5000');
  const owner = () => (db.prepare(LEASE).get() as { lease_owner: string | null } | undefined)?.lease_owner ?? null;
  for (;;) {
    if (owner() !== null) {
      db.exec('BEGIN IMMEDIATE');
      const held = owner();
      if (held !== null) {
        const release = async () => {
          db.exec('ROLLBACK');
          db.close();
        };
        return { owner: held, release };
      }
      db.exec('ROLLBACK');
    }
    if (answered()) {
      db.close();
      return null;
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** PostgreSQL: the row locked FOR UPDATE once the lease is seen taken: the check's settling waits for it. */
async function holdOnPostgres(url: string, answered: () => boolean): Promise<HeldLease | null> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  for (;;) {
    if ((await client.query(LEASE)).rows[0]?.lease_owner) {
      await client.query('BEGIN');
      const held = (await client.query(`${LEASE} FOR UPDATE`)).rows[0]?.lease_owner as string | null;
      if (held) {
        const release = async () => {
          await client.query('ROLLBACK');
          await client.end();
        };
        return { owner: held, release };
      }
      await client.query('ROLLBACK');
    }
    if (answered()) {
      await client.end();
      return null;
    }
  }
}

async function killedMidCheck(origin: string, hold: (answered: () => boolean) => Promise<HeldLease | null>): Promise<HeldLease> {
  for (const until = performance.now() + STEP_MS; performance.now() < until; ) {
    let answered = false;
    void callServer(origin, '/experiments/ramp/check', ADMIN)
      .catch(() => undefined)
      .finally(() => (answered = true));
    const held = await hold(() => answered);
    if (held !== null) return held;
  }
  throw new Error(`waited ${STEP_MS} ms for a check whose lease could be held`);
}

async function restartsAndChecks(start: () => Promise<RunningServer>, hold: (answered: () => boolean) => Promise<HeldLease | null>): Promise<void> {
  let server = await start();
  const api = (p: string, body?: unknown) => callServer(server.origin, p, ADMIN, body);
  expect((await api('/prompts', { prompt_id: 'p', template: 'Hi {{name}}', labels: ['production'] })).status).toBe(201);
  expect((await api('/prompts/p/versions', { template: 'Hello {{name}}' })).status).toBe(201);
  const body = { experiment_id: 'ramp', prompt_id: 'p', type: 'rollout', candidate_version: 2, steps: [{ percent: 10, min_users: 1_000_000 }] };
  expect((await api('/experiments', body)).status).toBe(201);
  expect((await api('/experiments/ramp/start')).status).toBe(200);

  const held = await killedMidCheck(server.origin, hold);
  expect(processOf(held.owner)).not.toBeNull();
  await server.stop('SIGKILL');
  fx.forget(server);
  await held.release();

  server = await start();
  const checked = await api('/experiments/ramp/check');
  expect(checked.status, JSON.stringify(checked.json)).toBe(200);
  expect(checked.json).toMatchObject({ trigger: 'manual', action: 'hold', status: 'running' });
  const timeline = await callServer(server.origin, '/experiments/ramp/checks', ADMIN, undefined, 'GET');
  // The check cut by the kill left nothing: the one made after the restart is the only one.
  expect(timeline.json.data).toHaveLength(1);
}

describe('a check cut by kill -9', () => {
  // two starts; the wait for a check to hold
  it('on SQLite: the restarted server checks at once, and the dead process lock file is gone', { timeout: timeLimit({ starts: 2, steps: 1 }) }, async () => {
    const dir = fx.dataDir();
    await restartsAndChecks(
      () => fx.serve(dir, ENV),
      (answered) => holdOnSqlite(dir, answered),
    );
    // Only the running server's own lock file is left: the killed one's was found dead and removed.
    expect(fs.readdirSync(processesDir(dir)).filter((name) => path.extname(name) === '.lock')).toHaveLength(1);
  });

  // the same, and a database made and dropped
  it('on PostgreSQL: the restarted replica checks at once', { timeout: timeLimit({ starts: 2, steps: 1, ms: 2 * DATABASE_MS }) }, async () => {
    const database = await createTestDatabase();
    try {
      await restartsAndChecks(
        () => fx.serve(undefined, { ...ENV, PROMPTLINE_DATABASE_URL: database.url }),
        (answered) => holdOnPostgres(database.url, answered),
      );
    } finally {
      await database.drop();
    }
  });
});
