import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sql } from '../../../src/db/sql.js';
import { openPostgresStore, openSqliteStore, type Store } from '../../../src/db/store.js';
import { insertAssignment } from '../../../src/modules/experiments/experiments.repo.js';
import { covariate } from '../../../src/modules/experiments/covariate.js';
import { preExposureRows } from '../../../src/modules/results/metricSources.repo.js';
import { createTestDatabase, testBackend } from '../../support/postgres.js';
import { mulberry32 } from '../../support/prng.js';

/**
 * CUPED's covariate at the edges of the pre-exposure window, on rows written straight into the
 * tables so each edge case sits on an exact millisecond. Every case is checked twice: against the
 * values expected by hand, and against the query as first written (the window start computed from
 * the whole instant for every assignment: strftime on SQLite, timestamp arithmetic on PostgreSQL),
 * so a faster query cannot change a single covariate. Runs on the backend the suite runs on (a
 * SQLite file, or with PROMPTLINE_TEST_BACKEND=postgres a PostgreSQL database of its own), with
 * the same rows on both.
 */
const P = 'prj_window';
const OTHER = 'prj_other';
const EXP = 'exp_window';
/** The same users assigned at the same instants with the covariate captured (insertAssignment, as /get_prompt writes it). */
const CAPTURED = 'exp_captured';

const WINDOWS = [1, 2, 5, 14, 15, 30, 90];
/** Users with a random first exposure, per window length. */
const RANDOM_USERS = 40;

const DAY = 86_400_000;

let dir: string;
let database: Awaited<ReturnType<typeof createTestDatabase>> | null = null;
let store: Store;

/**
 * The reference's window start of an assignment: the whole instant of first exposure, `days`
 * calendar days earlier at the same time of day, as the same ISO-8601 text. Written apart from the
 * code under test (which shifts only the date part: dialect.dateShifted): SQLite's strftime with a
 * `-N days` modifier; on PostgreSQL, timestamp arithmetic in UTC.
 */
function windowStart(firstSeen: string): { sql: string; params: (days: number) => Record<string, unknown> } {
  return testBackend() === 'postgres'
    ? {
        sql: `to_char((CAST(${firstSeen} AS timestamptz) AT TIME ZONE 'UTC') - make_interval(days => @days), 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
        params: (days) => ({ days }),
      }
    : { sql: `strftime('%Y-%m-%dT%H:%M:%fZ', ${firstSeen}, @window)`, params: (days) => ({ window: `-${days} days` }) };
}

/** The pre-exposure query as first written: the reference the repository's query must agree with. */
async function reference(projectId: string, experimentId: string, eventTypes: readonly string[], days: number): Promise<unknown[][]> {
  const columns = eventTypes
    .map((_, i) => `max(h.is_success) FILTER (WHERE h.event_type = @t${i}) AS s${i}, sum(h.numeric_value) FILTER (WHERE h.event_type = @t${i}) AS n${i}`)
    .join(', ');
  const start = windowStart('a.first_seen');
  // PostgreSQL drops the INDEXED BY hint and the unary + (src/db/postgres.ts); variant is grouped
  // too (PostgreSQL asks for it; one user has one variant) and the order made explicit.
  const found = await store.sql.all<Record<string, unknown>>(
    `SELECT a.external_user_id AS unit, a.variant AS variant, ${columns}
    FROM assignments a JOIN outcomes h INDEXED BY outcomes_person
      ON h.project_id = a.project_id AND coalesce(h.attributed_user, h.external_user_id) = +a.external_user_id
        AND h.created_at >= ${start.sql} AND h.created_at < a.first_seen
        AND h.event_type IN (${eventTypes.map((_, i) => `@t${i}`).join(', ')})
    WHERE a.project_id = @project AND a.experiment_id = @experiment
    GROUP BY a.external_user_id, a.variant
    ORDER BY a.external_user_id`,
    { project: projectId, experiment: experimentId, ...start.params(days), ...Object.fromEntries(eventTypes.map((t, i) => [`t${i}`, t])) },
  );
  return found.map((row) => [row.unit, row.variant, ...eventTypes.flatMap((_, i) => [row[`s${i}`], row[`n${i}`]])]);
}

/**
 * preExposureRows flattened to [user, variant, then max(is_success) and Σ numeric_value per event
 * type in the order asked], the reference's columns (the covariate orders its values by event type).
 */
async function rows(experimentId: string, eventTypes: readonly string[], days: number): Promise<Array<[user: string, variant: string, ...values: unknown[]]>> {
  const c = covariate(days, eventTypes)!;
  return (await preExposureRows(store.sql, P, experimentId, c)).map(([user, variant, values]): [string, string, ...unknown[]] => [
    user,
    variant,
    ...eventTypes.flatMap((t) => [values[2 * c.types.indexOf(t)], values[2 * c.types.indexOf(t) + 1]]),
  ]);
}

/** Re-assigns every user of EXP in CAPTURED at the same first exposure, capturing the covariate of `days` and `eventTypes`. */
async function captureAll(eventTypes: readonly string[], days: number): Promise<void> {
  const c = covariate(days, eventTypes)!;
  await store.writer.write(async (tx) => {
    await tx.run('DELETE FROM assignments WHERE project_id = ? AND experiment_id = ?', [P, CAPTURED]);
    const assigned = await tx.all<{ external_user_id: string; variant: string; first_seen: string }>(
      'SELECT external_user_id, variant, first_seen FROM assignments WHERE project_id = ? AND experiment_id = ?',
      [P, EXP],
    );
    for (const a of assigned) await insertAssignment(tx, P, CAPTURED, a.external_user_id, a.variant, a.first_seen, c);
  });
}

const capturedCount = async (key: string) =>
  await store.sql.value<number>('SELECT count(*) FROM assignments WHERE project_id = ? AND experiment_id = ? AND pre_key = ?', [P, CAPTURED, key]);

let outcomeN = 0;
async function outcome(
  tx: Sql,
  o: {
    project?: string;
    user: string | null;
    attributed?: string | null;
    type?: string;
    success?: number | null;
    value?: number | null;
    at: string;
  },
): Promise<void> {
  await tx.run(
    `INSERT INTO outcomes (id, project_id, prompt_id, external_user_id, event_type, numeric_value, is_success, attributed_by, attributed_user, created_at)
    VALUES (?, ?, 'p', ?, ?, ?, ?, ?, ?, ?)`,
    [
      `out_${++outcomeN}`,
      o.project ?? P,
      o.user,
      o.type ?? 'spend',
      o.value ?? null,
      o.success ?? null,
      o.attributed ? 'run' : 'none',
      o.attributed ?? null,
      o.at,
    ],
  );
}

async function assign(tx: Sql, user: string, variant: string, firstSeen: string, project = P): Promise<void> {
  await tx.run(`INSERT INTO assignments (project_id, experiment_id, external_user_id, variant, first_seen, last_seen, calls) VALUES (?, ?, ?, ?, ?, ?, 1)`, [
    project,
    EXP,
    user,
    variant,
    firstSeen,
    firstSeen,
  ]);
}

/** The project, prompt and experiment rows the seeded rows point to (PostgreSQL keeps its foreign keys on): nothing else reads them. */
async function parents(tx: Sql): Promise<void> {
  const at = '2000-01-01T00:00:00.000Z';
  for (const project of [P, OTHER]) {
    await tx.run('INSERT INTO projects (id, name, created_at) VALUES (?, ?, ?)', [project, project, at]);
    await tx.run(`INSERT INTO prompts (project_id, prompt_id, created_at) VALUES (?, 'p', ?)`, [project, at]);
  }
  for (const [project, experiment] of [
    [P, EXP],
    [P, CAPTURED],
    [OTHER, EXP],
  ] as const) {
    await tx.run(
      `INSERT INTO experiments (project_id, id, prompt_id, status, variants, control, coverage, seed, created_at, updated_at)
      VALUES (?, ?, 'p', 'draft', '[]', 'a', 1, 's', ?, ?)`,
      [project, experiment, at, at],
    );
  }
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'promptline-pre-window-'));
  if (testBackend() === 'postgres') {
    database = await createTestDatabase();
    store = await openPostgresStore(database.url);
  } else {
    store = openSqliteStore(dir, 'normal');
  }
  await store.writer.write(async (tx) => {
    await parents(tx);
    await seed(tx);
  });
});
afterAll(async () => {
  await store?.close();
  await database?.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function seed(tx: Sql): Promise<void> {
  // edge: outcomes exactly at the window start (in), 1 ms before it (out), 1 ms before first exposure (in), at it (out).
  await assign(tx, 'edge', 'a', '2025-03-15T10:00:00.000Z');
  await outcome(tx, { user: 'edge', value: 1, at: '2025-03-01T10:00:00.000Z' });
  await outcome(tx, { user: 'edge', value: 1000, at: '2025-03-01T09:59:59.999Z' });
  await outcome(tx, { user: 'edge', value: 20, success: 1, at: '2025-03-15T09:59:59.999Z' });
  await outcome(tx, { user: 'edge', value: 300, success: 0, at: '2025-03-15T10:00:00.000Z' });
  // nopre: outcomes only from first exposure on, and one long before: no row.
  await assign(tx, 'nopre', 'b', '2025-03-15T10:00:00.000Z');
  await outcome(tx, { user: 'nopre', attributed: 'nopre', value: 5, at: '2025-03-15T10:00:00.000Z' });
  await outcome(tx, { user: 'nopre', value: 5, at: '2025-01-01T00:00:00.000Z' });
  // ext: matched by external_user_id (outcomes attributed to no experiment), one of another event type.
  await assign(tx, 'ext', 'a', '2025-03-10T00:00:00.000Z');
  await outcome(tx, { user: 'ext', value: 2, success: 0, at: '2025-03-09T00:00:00.000Z' });
  await outcome(tx, { user: 'ext', type: 'click', success: 1, at: '2025-03-09T00:00:00.000Z' });
  // att: matched by attributed_user even though the outcome's external user is another id (a run's user);
  // an outcome of external user 'att' attributed to someone else is that someone's, not att's.
  await assign(tx, 'att', 'b', '2025-03-10T00:00:00.000Z');
  await outcome(tx, { user: 'alias', attributed: 'att', value: 7, at: '2025-03-05T00:00:00.000Z' });
  await outcome(tx, { user: 'att', attributed: 'somebody', value: 70, at: '2025-03-05T00:00:00.000Z' });
  // float: sums that are not exact in binary (0.1 + 0.2 + 1/3), which a capture must hand over bit for bit.
  await assign(tx, 'float', 'b', '2025-03-15T10:00:00.000Z');
  for (const value of [0.1, 0.2, 1 / 3, 1e-7]) await outcome(tx, { user: 'float', value, at: '2025-03-14T10:00:00.000Z' });
  // Windows across a year end, a leap day and the end of February, and midnight exactly.
  await assign(tx, 'newyear', 'a', '2025-01-05T23:59:59.999Z');
  await outcome(tx, { user: 'newyear', value: 3, at: '2024-12-22T23:59:59.999Z' });
  await outcome(tx, { user: 'newyear', value: 30, at: '2024-12-22T23:59:59.998Z' });
  await assign(tx, 'leap', 'b', '2024-03-10T00:00:00.000Z');
  await outcome(tx, { user: 'leap', value: 4, at: '2024-02-25T00:00:00.000Z' });
  await outcome(tx, { user: 'leap', value: 40, at: '2024-02-24T23:59:59.999Z' });
  await assign(tx, 'feb', 'a', '2025-03-01T00:00:00.000Z');
  await outcome(tx, { user: 'feb', value: 6, at: '2025-02-15T00:00:00.000Z' });
  await outcome(tx, { user: 'feb', value: 60, at: '2025-02-14T23:59:59.999Z' });
  // Random first exposures over a century, each with outcomes on both sides of its window's edges
  // for one of the window lengths tested below.
  const random = mulberry32(7);
  for (let i = 0; i < RANDOM_USERS * WINDOWS.length; i++) {
    const seen = Date.parse('2000-01-01T00:00:00.000Z') + Math.floor(random() * 100 * 365 * DAY);
    const start = seen - WINDOWS[i % WINDOWS.length]! * DAY;
    const user = `r${i}`;
    await assign(tx, user, i % 2 === 0 ? 'a' : 'b', new Date(seen).toISOString());
    for (const [at, value] of [
      [start - 1, 1],
      [start, 10],
      [seen - 1, 100],
      [seen, 1000],
    ] as const) {
      await outcome(tx, { user, value, at: new Date(at).toISOString() });
    }
  }
  // Another project's outcomes and assignments never count.
  await outcome(tx, { project: OTHER, user: 'edge', value: 9, at: '2025-03-10T00:00:00.000Z' });
  await assign(tx, 'stranger', 'a', '2025-03-15T10:00:00.000Z', OTHER);
  await outcome(tx, { project: OTHER, user: 'stranger', value: 9, at: '2025-03-10T00:00:00.000Z' });
}

describe(`CUPED's pre-exposure window (${testBackend()})`, () => {
  it('takes outcomes from exactly the window start up to, not including, first exposure, matched by person', async () => {
    expect((await rows(EXP, ['spend', 'click'], 14)).filter(([user]) => !user.startsWith('r') && user !== 'float')).toEqual([
      ['att', 'b', null, 7, null, null],
      ['edge', 'a', 1, 21, null, null],
      ['ext', 'a', 0, 2, 1, null],
      ['feb', 'a', null, 6, null, null],
      ['leap', 'b', null, 4, null, null],
      ['newyear', 'a', null, 3, null, null],
    ]);
  });

  it.each(WINDOWS)('the reference starts a %i-day window at the same time of day that many days before first exposure', async (days) => {
    // The reference is held to UTC's calendar (no day is longer than 86 400 000 ms), so it cannot
    // drift with the code under test.
    const start = windowStart('first_seen');
    const found = await store.sql.all<{ first_seen: string; start: string }>(
      `SELECT first_seen, ${start.sql} AS start FROM assignments WHERE project_id = @project ORDER BY external_user_id`,
      { project: P, ...start.params(days) },
    );
    expect(found.length).toBeGreaterThan(RANDOM_USERS * WINDOWS.length);
    for (const row of found) expect([row.first_seen, row.start]).toEqual([row.first_seen, new Date(Date.parse(row.first_seen) - days * DAY).toISOString()]);
  });

  it.each(WINDOWS)('agrees with the query as first written over a %i-day window', async (days) => {
    const own = (await rows(EXP, ['spend'], days)).filter(([user]) => user.startsWith('r') && WINDOWS[Number(user.slice(1)) % WINDOWS.length] === days);
    expect(own).toHaveLength(RANDOM_USERS);
    for (const row of own) expect(row[3]).toBe(110);
    for (const types of [['spend'], ['spend', 'click'], ['click', 'spend', 'none']]) {
      expect(await rows(EXP, types, days)).toEqual(await reference(P, EXP, types, days));
    }
  });

  it.each(WINDOWS)('captured at first assignment, gives the same rows as the seeks over a %i-day window', async (days) => {
    for (const types of [['spend'], ['spend', 'click'], ['click', 'spend', 'none']]) {
      await captureAll(types, days);
      const users = await store.sql.value<number>('SELECT count(*) FROM assignments WHERE project_id = ? AND experiment_id = ?', [P, EXP]);
      expect(await capturedCount(covariate(days, types)!.key)).toBe(users);
      expect(await rows(CAPTURED, types, days)).toEqual(await reference(P, EXP, types, days));
      // A capture of another window or other event types is not used: those users are sought.
      const other = days === 90 ? 89 : days + 1;
      expect(await rows(CAPTURED, types, other)).toEqual(await reference(P, EXP, types, other));
      expect(await rows(CAPTURED, ['spend', 'click', 'other'], days)).toEqual(await reference(P, EXP, ['spend', 'click', 'other'], days));
    }
  });

  it('mixes captured and sought users in user order', async () => {
    await captureAll(['spend'], 14);
    // Every other user loses their capture (as if assigned before migrations/0011).
    await store.writer.write((tx) =>
      tx.run(
        `UPDATE assignments SET pre_key = NULL, pre = NULL WHERE project_id = ? AND experiment_id = ?
        AND length(external_user_id) % 2 = 0`,
        [P, CAPTURED],
      ),
    );
    expect(await capturedCount(covariate(14, ['spend'])!.key)).toBeGreaterThan(0);
    expect(await rows(CAPTURED, ['spend'], 14)).toEqual(await reference(P, EXP, ['spend'], 14));
  });
});
