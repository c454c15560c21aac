import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/db/open.js';
import { openSqliteStore } from '../../../src/db/store.js';
import { insertAssignment } from '../../../src/modules/experiments/experiments.repo.js';
import { sqliteSql } from '../../../src/db/sql.js';
import { covariate } from '../../../src/modules/results/covariate.js';
import { preExposureRows } from '../../../src/modules/results/metricSources.repo.js';
import { testBackend } from '../../support/postgres.js';
import { mulberry32 } from '../../support/prng.js';

/**
 * CUPED's covariate at the edges of the pre-exposure window, on rows written straight into the
 * tables so each edge case sits on an exact millisecond. Every case is checked twice: against the
 * values expected by hand, and against the query as first written (the window start computed with
 * strftime for every assignment), so a faster query cannot change a single covariate.
 */
const P = 'prj_window';
const OTHER = 'prj_other';
const EXP = 'exp_window';
/** The same users assigned at the same instants with the covariate captured (insertAssignment, as /get_prompt writes it). */
const CAPTURED = 'exp_captured';

const WINDOWS = [1, 2, 5, 14, 15, 30, 90];
/** Users with a random first exposure, per window length. */
const RANDOM_USERS = 40;

let dir: string;
let db: Db;
let store: ReturnType<typeof openSqliteStore>;

/** The pre-exposure query as first written: the reference the repository's query must agree with. */
function reference(projectId: string, experimentId: string, eventTypes: readonly string[], days: number): unknown[] {
  const columns = eventTypes
    .map((_, i) => `max(h.is_success) FILTER (WHERE h.event_type = @t${i}) AS s${i}, sum(h.numeric_value) FILTER (WHERE h.event_type = @t${i}) AS n${i}`)
    .join(', ');
  return db
    .prepare(
      `SELECT a.external_user_id AS user, a.variant AS variant, ${columns}
      FROM assignments a JOIN outcomes h INDEXED BY outcomes_person
        ON h.project_id = a.project_id AND coalesce(h.attributed_user, h.external_user_id) = +a.external_user_id
          AND h.created_at >= strftime('%Y-%m-%dT%H:%M:%fZ', a.first_seen, @window) AND h.created_at < a.first_seen
          AND h.event_type IN (${eventTypes.map((_, i) => `@t${i}`).join(', ')})
      WHERE a.project_id = @project AND a.experiment_id = @experiment
      GROUP BY a.external_user_id`,
    )
    .raw()
    .all({ project: projectId, experiment: experimentId, window: `-${days} days`, ...Object.fromEntries(eventTypes.map((t, i) => [`t${i}`, t])) });
}

/**
 * preExposureRows flattened to [user, variant, then max(is_success) and Σ numeric_value per event
 * type in the order asked], the reference's columns (the covariate orders its values by event type).
 */
async function rows(experimentId: string, eventTypes: readonly string[], days: number): Promise<Array<[user: string, variant: string, ...values: unknown[]]>> {
  const c = covariate(days, eventTypes)!;
  return (await preExposureRows(sqliteSql(db), P, experimentId, c)).map(([user, variant, values]): [string, string, ...unknown[]] => [
    user,
    variant,
    ...eventTypes.flatMap((t) => [values[2 * c.types.indexOf(t)], values[2 * c.types.indexOf(t) + 1]]),
  ]);
}

/** Re-assigns every user of EXP in CAPTURED at the same first exposure, capturing the covariate of `days` and `eventTypes`. */
async function captureAll(eventTypes: readonly string[], days: number): Promise<void> {
  const c = covariate(days, eventTypes)!;
  db.exec('BEGIN');
  {
    db.prepare('DELETE FROM assignments WHERE project_id = ? AND experiment_id = ?').run(P, CAPTURED);
    const assigned = db
      .prepare('SELECT external_user_id, variant, first_seen FROM assignments WHERE project_id = ? AND experiment_id = ?')
      .all(P, EXP) as Array<{
      external_user_id: string;
      variant: string;
      first_seen: string;
    }>;
    for (const a of assigned) await insertAssignment(sqliteSql(db), P, CAPTURED, a.external_user_id, a.variant, a.first_seen, c);
  }
  db.exec('COMMIT');
}

const capturedCount = (key: string) =>
  db.prepare('SELECT count(*) FROM assignments WHERE project_id = ? AND experiment_id = ? AND pre_key = ?').pluck().get(P, CAPTURED, key) as number;

let outcomeN = 0;
function outcome(o: {
  project?: string;
  user: string | null;
  attributed?: string | null;
  type?: string;
  success?: number | null;
  value?: number | null;
  at: string;
}): void {
  db.prepare(
    `INSERT INTO outcomes (id, project_id, prompt_id, external_user_id, event_type, numeric_value, is_success, attributed_by, attributed_user, created_at)
    VALUES (?, ?, 'p', ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    `out_${++outcomeN}`,
    o.project ?? P,
    o.user,
    o.type ?? 'spend',
    o.value ?? null,
    o.success ?? null,
    o.attributed ? 'run' : 'none',
    o.attributed ?? null,
    o.at,
  );
}

function assign(user: string, variant: string, firstSeen: string, project = P): void {
  db.prepare(`INSERT INTO assignments (project_id, experiment_id, external_user_id, variant, first_seen, last_seen, calls) VALUES (?, ?, ?, ?, ?, ?, 1)`).run(
    project,
    EXP,
    user,
    variant,
    firstSeen,
    firstSeen,
  );
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'promptline-pre-window-'));
  store = openSqliteStore(dir, 'normal');
  db = store.sqlite;
  // Rows go straight into assignments and outcomes: the experiment and prompt rows they point to do not matter here.
  db.pragma('foreign_keys = OFF');
  db.transaction(seed)();
});
afterAll(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function seed(): void {
  // edge: outcomes exactly at the window start (in), 1 ms before it (out), 1 ms before first exposure (in), at it (out).
  assign('edge', 'a', '2025-03-15T10:00:00.000Z');
  outcome({ user: 'edge', value: 1, at: '2025-03-01T10:00:00.000Z' });
  outcome({ user: 'edge', value: 1000, at: '2025-03-01T09:59:59.999Z' });
  outcome({ user: 'edge', value: 20, success: 1, at: '2025-03-15T09:59:59.999Z' });
  outcome({ user: 'edge', value: 300, success: 0, at: '2025-03-15T10:00:00.000Z' });
  // nopre: outcomes only from first exposure on, and one long before: no row.
  assign('nopre', 'b', '2025-03-15T10:00:00.000Z');
  outcome({ user: 'nopre', attributed: 'nopre', value: 5, at: '2025-03-15T10:00:00.000Z' });
  outcome({ user: 'nopre', value: 5, at: '2025-01-01T00:00:00.000Z' });
  // ext: matched by external_user_id (outcomes attributed to no experiment), one of another event type.
  assign('ext', 'a', '2025-03-10T00:00:00.000Z');
  outcome({ user: 'ext', value: 2, success: 0, at: '2025-03-09T00:00:00.000Z' });
  outcome({ user: 'ext', type: 'click', success: 1, at: '2025-03-09T00:00:00.000Z' });
  // att: matched by attributed_user even though the outcome's external user is another id (a run's user);
  // an outcome of external user 'att' attributed to someone else is that someone's, not att's.
  assign('att', 'b', '2025-03-10T00:00:00.000Z');
  outcome({ user: 'alias', attributed: 'att', value: 7, at: '2025-03-05T00:00:00.000Z' });
  outcome({ user: 'att', attributed: 'somebody', value: 70, at: '2025-03-05T00:00:00.000Z' });
  // float: sums that are not exact in binary (0.1 + 0.2 + 1/3), which a capture must hand over bit for bit.
  assign('float', 'b', '2025-03-15T10:00:00.000Z');
  for (const value of [0.1, 0.2, 1 / 3, 1e-7]) outcome({ user: 'float', value, at: '2025-03-14T10:00:00.000Z' });
  // Windows across a year end, a leap day and the end of February, and midnight exactly.
  assign('newyear', 'a', '2025-01-05T23:59:59.999Z');
  outcome({ user: 'newyear', value: 3, at: '2024-12-22T23:59:59.999Z' });
  outcome({ user: 'newyear', value: 30, at: '2024-12-22T23:59:59.998Z' });
  assign('leap', 'b', '2024-03-10T00:00:00.000Z');
  outcome({ user: 'leap', value: 4, at: '2024-02-25T00:00:00.000Z' });
  outcome({ user: 'leap', value: 40, at: '2024-02-24T23:59:59.999Z' });
  assign('feb', 'a', '2025-03-01T00:00:00.000Z');
  outcome({ user: 'feb', value: 6, at: '2025-02-15T00:00:00.000Z' });
  outcome({ user: 'feb', value: 60, at: '2025-02-14T23:59:59.999Z' });
  // Random first exposures over a century, each with outcomes on both sides of its window's edges
  // for one of the window lengths tested below.
  const random = mulberry32(7);
  const DAY = 86_400_000;
  for (let i = 0; i < RANDOM_USERS * WINDOWS.length; i++) {
    const seen = Date.parse('2000-01-01T00:00:00.000Z') + Math.floor(random() * 100 * 365 * DAY);
    const start = seen - WINDOWS[i % WINDOWS.length]! * DAY;
    const user = `r${i}`;
    assign(user, i % 2 === 0 ? 'a' : 'b', new Date(seen).toISOString());
    for (const [at, value] of [
      [start - 1, 1],
      [start, 10],
      [seen - 1, 100],
      [seen, 1000],
    ] as const) {
      outcome({ user, value, at: new Date(at).toISOString() });
    }
  }
  // Another project's outcomes and assignments never count.
  outcome({ project: OTHER, user: 'edge', value: 9, at: '2025-03-10T00:00:00.000Z' });
  assign('stranger', 'a', '2025-03-15T10:00:00.000Z', OTHER);
  outcome({ project: OTHER, user: 'stranger', value: 9, at: '2025-03-10T00:00:00.000Z' });
}

describe.skipIf(testBackend() === 'postgres')("CUPED's pre-exposure window (SQLite: rows seeded straight into the SQLite file)", () => {
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

  it.each(WINDOWS)('agrees with the query as first written over a %i-day window', async (days) => {
    const own = (await rows(EXP, ['spend'], days)).filter(([user]) => user.startsWith('r') && WINDOWS[Number(user.slice(1)) % WINDOWS.length] === days);
    expect(own).toHaveLength(RANDOM_USERS);
    for (const row of own) expect(row[3]).toBe(110);
    for (const types of [['spend'], ['spend', 'click'], ['click', 'spend', 'none']]) {
      expect(await rows(EXP, types, days)).toEqual(reference(P, EXP, types, days));
    }
  });

  it.each(WINDOWS)('captured at first assignment, gives the same rows as the seeks over a %i-day window', async (days) => {
    for (const types of [['spend'], ['spend', 'click'], ['click', 'spend', 'none']]) {
      await captureAll(types, days);
      const users = db.prepare('SELECT count(*) FROM assignments WHERE project_id = ? AND experiment_id = ?').pluck().get(P, EXP);
      expect(capturedCount(covariate(days, types)!.key)).toBe(users);
      expect(await rows(CAPTURED, types, days)).toEqual(reference(P, EXP, types, days));
      // A capture of another window or other event types is not used: those users are sought.
      const other = days === 90 ? 89 : days + 1;
      expect(await rows(CAPTURED, types, other)).toEqual(reference(P, EXP, types, other));
      expect(await rows(CAPTURED, ['spend', 'click', 'other'], days)).toEqual(reference(P, EXP, ['spend', 'click', 'other'], days));
    }
  });

  it('mixes captured and sought users in user order', async () => {
    await captureAll(['spend'], 14);
    // Every other user loses their capture (as if assigned before migrations/0011).
    db.prepare(
      `UPDATE assignments SET pre_key = NULL, pre = NULL WHERE project_id = ? AND experiment_id = ?
        AND length(external_user_id) % 2 = 0`,
    ).run(P, CAPTURED);
    expect(capturedCount(covariate(14, ['spend'])!.key)).toBeGreaterThan(0);
    expect(await rows(CAPTURED, ['spend'], 14)).toEqual(reference(P, EXP, ['spend'], 14));
  });
});
