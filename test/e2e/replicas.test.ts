import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { callServer, processFixtures, type RunningServer } from '../support/processes.js';
import { createTestDatabase } from '../support/postgres.js';
import { DATABASE_MS, timeLimit } from '../support/timeLimits.js';

const ADMIN = 'pl_a_e2e-replicas-admin-key-000000000000';
const { serve, forget } = processFixtures(ADMIN);

const call = (origin: string, path: string, body?: unknown, method = 'POST') => callServer(origin, path, ADMIN, body, method);

/** Three built servers (as `npm start` runs them) on one PostgreSQL database, started together. */
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let replicas: RunningServer[];
const SETUP_LIMIT = timeLimit({ starts: 3, ms: DATABASE_MS }); // a database, and three starts (at most one per core at a time)
beforeEach(async () => {
  database = await createTestDatabase();
  // Started at once: each migrates under the advisory lock, so the schema is made exactly once.
  replicas = await Promise.all([1, 2, 3].map(() => serve(undefined, { PROMPTLINE_DATABASE_URL: database.url })));
}, SETUP_LIMIT);
afterEach(async () => {
  try {
    await Promise.all(replicas.map((r) => r.stop('SIGKILL')));
  } finally {
    await database.drop();
  }
});

describe('three replicas on one PostgreSQL database', () => {
  it('migrate once, give each user one variant whatever replica they reach, compute the same results, and serve a label moved elsewhere within a second', async () => {
    const [a, b, c] = replicas.map((r) => r.origin) as [string, string, string];
    expect((await call(a, '/prompts', { prompt_id: 'greet', template: 'Hello {{name}}', labels: ['production'] })).status).toBe(201);
    expect((await call(b, '/prompts/greet/versions', { template: 'Hi {{name}}!' })).status).toBe(201);
    await call(c, '/experiments', {
      experiment_id: 'tone',
      prompt_id: 'greet',
      variants: [
        { key: 'v1', version: 1 },
        { key: 'v2', version: 2 },
      ],
      metrics: [
        { event_type: 'click', kind: 'success_rate', role: 'primary' },
        { event_type: 'spend', kind: 'mean', role: 'secondary' },
      ],
      cuped: true,
    });
    // Activity before the experiment: CUPED's covariate, captured by whichever replica assigns first.
    for (let i = 0; i < 30; i++) {
      const spend = { prompt_id: 'greet', external_user_id: `user-${i}`, event_type: 'spend', numeric_value: i % 7 };
      expect((await call(replicas[i % 3]!.origin, '/track_outcome', spend)).status).toBe(200);
    }
    expect((await call(a, '/experiments/tone/start')).status).toBe(200);

    const variants = new Map<string, string>();
    for (let round = 0; round < 3; round++) {
      await Promise.all(
        Array.from({ length: 60 }, async (_, i) => {
          const origin = replicas[(i + round) % 3]!.origin;
          const res = await call(origin, '/get_prompt', { prompt_id: 'greet', inputs: { name: 'Ada' }, external_user_id: `user-${i}` });
          expect(res.status).toBe(200);
          const seen = variants.get(`user-${i}`);
          if (seen === undefined) variants.set(`user-${i}`, res.json.variant_assigned);
          else expect(res.json.variant_assigned).toBe(seen);
        }),
      );
    }
    expect(new Set(variants.values())).toEqual(new Set(['v1', 'v2']));
    // Exposure counts from every replica add up once each has flushed its counter (every second).
    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    try {
      const counted = async () =>
        (await db.query("SELECT count(*)::int AS users, sum(calls)::int AS calls FROM assignments WHERE experiment_id = 'tone'")).rows[0];
      await expect.poll(counted, { message: 'every replica has flushed its calls' }).toEqual({ users: 60, calls: 180 });
      expect((await db.query("SELECT count(*)::int AS n FROM assignments WHERE experiment_id = 'tone' AND pre IS NOT NULL")).rows[0]).toEqual({ n: 30 });
    } finally {
      await db.end();
    }

    // Outcomes through every replica; then each replica computes the same report.
    await Promise.all(
      Array.from({ length: 60 }, async (_, i) => {
        const origin = replicas[i % 3]!.origin;
        const click = { prompt_id: 'greet', external_user_id: `user-${i}`, event_type: 'click', is_success: i % 3 === 0 };
        const spend = { prompt_id: 'greet', external_user_id: `user-${i}`, event_type: 'spend', numeric_value: (i * 7) % 11 };
        expect((await call(origin, '/track_outcome', click)).status).toBe(200);
        expect((await call(origin, '/track_outcome', spend)).status).toBe(200);
      }),
    );
    const reports = await Promise.all(
      [a, b, c].map(async (origin) => {
        const res = await call(origin, '/experiments/tone/results', undefined, 'GET');
        expect(res.status).toBe(200);
        const { generated_at: _, ...report } = res.json;
        return report;
      }),
    );
    expect(reports[0].variants.reduce((n: number, v: { users: number }) => n + v.users, 0)).toBe(60);
    expect(reports[0].metrics[0].variants.reduce((n: number, v: { users_with_event: number }) => n + v.users_with_event, 0)).toBe(60);
    expect(reports[0].metrics[1].cuped.users_with_pre_data).toBe(30);
    expect(reports[1]).toEqual(reports[0]);
    expect(reports[2]).toEqual(reports[0]);

    expect((await call(a, '/experiments/tone/stop', {})).status).toBe(200);
    expect((await call(a, '/get_prompt', { prompt_id: 'greet', inputs: { name: 'Ada' } })).json.prompt_version).toBe(1);
    expect((await call(c, '/get_prompt', { prompt_id: 'greet', inputs: { name: 'Ada' } })).json.prompt_version).toBe(1);
    const moved = performance.now();
    expect((await call(b, '/prompts/greet/labels/production', { version: 2 }, 'PUT')).status).toBe(200);
    let seenBy = 0;
    while (performance.now() - moved < 1000 && seenBy < 2) {
      const versions = await Promise.all(
        [a, c].map(async (origin) => (await call(origin, '/get_prompt', { prompt_id: 'greet', inputs: { name: 'Ada' } })).json.prompt_version),
      );
      seenBy = versions.filter((v) => v === 2).length;
    }
    expect(seenBy).toBe(2);
  });

  it('lose no acknowledged outcome when one replica is killed with -9 under load', async () => {
    const origins = replicas.map((r) => r.origin);
    expect((await call(origins[0]!, '/prompts', { prompt_id: 'p', template: 'hi' })).status).toBe(201);
    const acknowledged: string[] = [];
    const send = (i: number) =>
      call(origins[i % 3]!, '/track_outcome', { prompt_id: 'p', external_user_id: `u${i}`, event_type: 'click', is_success: true }).then(
        (res) => {
          if (res.status === 200) acknowledged.push(res.json.outcome_id);
        },
        () => undefined, // the connection died with the replica: not acknowledged
      );
    // Killed once 150 are acknowledged; if the whole burst ends first, the count below says how many were.
    let settled = false;
    const burst = Promise.all(Array.from({ length: 900 }, (_, i) => send(i))).finally(() => (settled = true));
    while (acknowledged.length < 150 && !settled) await new Promise((resolve) => setImmediate(resolve));
    const victim = replicas[1]!;
    victim.process.kill('SIGKILL');
    forget(victim);
    await burst;
    expect(acknowledged.length).toBeGreaterThan(150);
    // Every acknowledged outcome is stored, as the survivors read it.
    const stored = new Set<string>();
    let cursor: string | null = null;
    do {
      const page = await call(origins[2]!, `/outcomes?limit=500${cursor ? `&cursor=${cursor}` : ''}`, undefined, 'GET');
      for (const row of page.json.data) stored.add(row.outcome_id);
      cursor = page.json.next_cursor;
    } while (cursor);
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
  });
});
