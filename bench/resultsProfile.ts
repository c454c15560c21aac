/**
 * Where one PostgreSQL report spends its time: its statements timed one by one, then the heaviest
 * run again under EXPLAIN (ANALYZE, BUFFERS). Printed by the results-postgres benchmark.
 */
import pg from 'pg';
import type { PromptlineApp } from '../src/app.js';
import { translate } from '../src/db/postgres.js';
import { BEGIN_READ_ONLY, REPORT_SETTINGS } from '../src/db/snapshot.js';
import type { Sql, SqlParams } from '../src/db/sql.js';
import type { ResultsOptions } from '../src/modules/results/measured.js';
import { createReportServices } from '../src/services.js';

/** One statement as a report ran it: its text, the parameters of its slowest call, and its calls' time. */
interface StatementTime {
  sql: string;
  params: SqlParams | undefined;
  calls: number;
  totalMs: number;
  slowestMs: number;
}

/**
 * Where one PostgreSQL report spends its time: the report's statements timed one by one (wrapping
 * the Sql its read snapshot hands over, the report computed in this thread), then the heaviest ones
 * run again under EXPLAIN (ANALYZE, BUFFERS) with the parameters of their slowest call, in a
 * REPEATABLE READ transaction with the report's settings.
 */
export async function profileReport(
  app: PromptlineApp,
  databaseUrl: string,
  projectId: string,
  experimentId: string,
  options: Partial<ResultsOptions>,
  /** How many of the heaviest statements to EXPLAIN. */
  explain = 3,
): Promise<void> {
  const statements = new Map<string, StatementTime>();
  const timed = (sql: Sql): Sql => {
    const wrap =
      <R>(call: (text: string, params?: SqlParams) => Promise<R>) =>
      async (text: string, params?: SqlParams): Promise<R> => {
        const started = performance.now();
        try {
          return await call(text, params);
        } finally {
          const ms = performance.now() - started;
          const known = statements.get(text) ?? { sql: text, params, calls: 0, totalMs: 0, slowestMs: 0 };
          statements.set(text, known);
          known.calls++;
          known.totalMs += ms;
          if (ms >= known.slowestMs) Object.assign(known, { slowestMs: ms, params });
        }
      };
    return {
      dialect: sql.dialect,
      all: wrap((t, p) => sql.all(t, p)),
      get: wrap((t, p) => sql.get(t, p)),
      column: wrap((t, p) => sql.column(t, p)),
      value: wrap((t, p) => sql.value(t, p)),
      run: wrap((t, p) => sql.run(t, p)),
    };
  };
  const { results: service } = createReportServices({
    readSnapshot: (read) => app.store.readSnapshot((sql) => read(timed(sql))),
    clock: app.store.clock,
  });
  await service.results(projectId, experimentId, options); // warm-up, as time() does
  statements.clear();
  const started = performance.now();
  await service.results(projectId, experimentId, options);
  const reportMs = performance.now() - started;
  const all = [...statements.values()].sort((a, b) => b.totalMs - a.totalMs);
  const inSql = all.reduce((ms, s) => ms + s.totalMs, 0);
  const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();
  console.log(
    `\nPostgreSQL profile of one report (${JSON.stringify(options)}): ${reportMs.toFixed(0)} ms in all, ${inSql.toFixed(0)} ms in ${all.reduce((n, s) => n + s.calls, 0)} statements (on two connections, side by side)`,
  );
  for (const s of all.slice(0, 8))
    console.log(
      `  ${s.totalMs.toFixed(0).padStart(5)} ms  ${String(s.calls).padStart(2)}×  slowest ${s.slowestMs.toFixed(0).padStart(4)} ms  ${oneLine(s.sql).slice(0, 150)}`,
    );
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    for (const s of all.slice(0, explain)) {
      const { text } = translate(s.sql);
      const values =
        s.params === undefined ? [] : Array.isArray(s.params) ? [...s.params] : translate(s.sql).names!.map((n) => (s.params as Record<string, unknown>)[n]);
      await client.query(`${BEGIN_READ_ONLY}; ${REPORT_SETTINGS}`);
      try {
        const plan = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, values);
        console.log(`\n  EXPLAIN (ANALYZE, BUFFERS) ${oneLine(s.sql).slice(0, 110)}…  params ${JSON.stringify(s.params).slice(0, 160)}`);
        for (const row of plan.rows) console.log(`    ${row['QUERY PLAN']}`);
      } finally {
        await client.query('ROLLBACK');
      }
    }
  } finally {
    await client.end();
  }
}
