/**
 * The PostgreSQL bulk seed checked against per-user seeding (insertAssignment/recordExposureCalls,
 * as /get_prompt writes) on PostgreSQL and on SQLite, on a small population, before the benchmark
 * relies on it.
 */
import type { PromptlineApp } from '../src/app.js';
import { createExperiment, seedApp, withBenchApp } from './resultsApp.js';

const CHECK_USERS = 2_000;
const CHECK_START = '2026-01-05T08:00:00.000Z';

/** Every assignment of the experiment, the captured covariate parsed (SQLite and PostgreSQL render JSON numbers differently). */
async function assignmentRows(app: PromptlineApp, experimentId: string): Promise<string[]> {
  const rows = await app.store.sql.all<Record<string, unknown>>(
    `SELECT external_user_id, variant, first_seen, last_seen, calls, pre_key, pre FROM assignments WHERE experiment_id = ? ORDER BY external_user_id`,
    [experimentId],
  );
  return rows.map((r) => JSON.stringify({ ...r, calls: Number(r.calls), pre: r.pre === null ? null : JSON.parse(r.pre as string) }));
}

/** Every seeded run and outcome, as comparable text (the project's id differs between apps). */
async function seededRows(app: PromptlineApp): Promise<string[]> {
  const runs = await app.store.sql.all<Record<string, unknown>>(
    `SELECT id, prompt_version, experiment_id, variant, external_user_id, prompt_tokens, completion_tokens, total_tokens, cost_nano_usd,
      latency_ms, status, error, created_at FROM runs ORDER BY id`,
  );
  const outcomes = await app.store.sql.all<Record<string, unknown>>(
    `SELECT id, prompt_run_id, external_user_id, event_type, label, numeric_value, is_success, experiment_id, variant, attributed_by,
      attributed_user, created_at FROM outcomes ORDER BY id`,
  );
  // BIGINT and NUMERIC arrive as numbers on PostgreSQL too (src/db/postgres.ts), REAL 3.0 as 3 from SQLite.
  return [...runs, ...outcomes].map((row) => JSON.stringify(row));
}

/**
 * Bulk seeding on PostgreSQL checked on a small population: the same runs and outcomes as on
 * SQLite, and the same assignments (calls, last_seen, the captured covariate) as per-user
 * insertAssignment/recordExposureCalls on either backend.
 */
export async function checkBulkSeed(): Promise<void> {
  const seeded = async (backend: 'sqlite' | 'postgres', assignments: 'bulk' | 'per-user') =>
    withBenchApp(backend, `promptline_bench_results_check_${assignments.replace('-', '_')}`, async (app, projectId, databaseUrl) => {
      const e = await createExperiment(app);
      const started = performance.now();
      await seedApp(app, databaseUrl, projectId, { ...e, startedAt: CHECK_START }, CHECK_USERS, assignments);
      const ms = performance.now() - started;
      return { ms, assignments: await assignmentRows(app, e.experimentId), rows: await seededRows(app) };
    });
  const sqlite = await seeded('sqlite', 'per-user');
  const perUser = await seeded('postgres', 'per-user');
  const bulk = await seeded('postgres', 'bulk');
  const differing = (a: string[], b: string[]) => (a.length !== b.length ? Math.max(a.length, b.length) : a.filter((row, i) => row !== b[i]).length);
  const captured = bulk.assignments.filter((row) => !row.endsWith('"pre":null}')).length;
  const problems = [
    differing(bulk.assignments, perUser.assignments) && `${differing(bulk.assignments, perUser.assignments)} assignments differ from per-user insertAssignment`,
    differing(bulk.assignments, sqlite.assignments) && `${differing(bulk.assignments, sqlite.assignments)} assignments differ from SQLite's`,
    differing(bulk.rows, sqlite.rows) && `${differing(bulk.rows, sqlite.rows)} runs/outcomes differ from SQLite's`,
    captured === 0 && 'no covariate captured',
  ].filter(Boolean);
  if (problems.length > 0) throw new Error(`bulk seeding on PostgreSQL is not what per-user seeding writes: ${problems.join('; ')}`);
  console.log(
    `check (${CHECK_USERS} users): PostgreSQL bulk seed = per-user insertAssignment on PostgreSQL = SQLite's rows ` +
      `(${bulk.assignments.length} assignments, ${captured} with a captured covariate, ${bulk.rows.length} runs and outcomes); ` +
      `seeding took ${sqlite.ms.toFixed(0)} ms on SQLite, ${perUser.ms.toFixed(0)} ms per-user and ${bulk.ms.toFixed(0)} ms bulk on PostgreSQL`,
  );
}
