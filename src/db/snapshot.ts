import type pg from 'pg';
import type { Db } from './open.js';
import { postgresSql } from './postgres.js';
import { type Sql, sqliteSql } from './sql.js';

/**
 * Runs `read` in one read-only transaction: every statement it makes sees the same committed state,
 * however long it takes and whatever is written meanwhile. For reports made of many queries.
 */
export type ReadSnapshot = <T>(read: (sql: Sql) => Promise<T>) => Promise<T>;

/**
 * On a SQLite connection (a read-only one: WAL lets it read while the writer goes on). One snapshot
 * at a time per connection, so a second waits for the first instead of joining its transaction.
 */
export function sqliteSnapshot(db: Db): ReadSnapshot {
  const sql = sqliteSql(db);
  return oneAtATime(async (read) => {
    db.exec('BEGIN');
    try {
      return await read(sql);
    } finally {
      db.exec('COMMIT');
    }
  });
}

/** A ReadSnapshot whose calls run one after the other, each once the one before has settled. */
function oneAtATime(snapshot: ReadSnapshot): ReadSnapshot {
  let queue: Promise<unknown> = Promise.resolve();
  return (read) => {
    const run = queue.then(() => snapshot(read));
    queue = run.catch(() => undefined);
    return run;
  };
}

/**
 * Settings of a snapshot's transactions on PostgreSQL, for reports of many large aggregates
 * (measured with `npm run bench -- results-postgres`, 100 000 users and 1 000 000 outcomes):
 * - jit off: the planner prices CUPED's covariate subquery per assignment, so compiling the scan
 *   of 100 000 assignments cost ~0.35 s to save nothing (captured covariates never run it);
 * - no parallel workers: a report already runs on two connections, and helpers beside them cost
 *   more than they saved on two cores, and took them from the runtime endpoints;
 * - work_mem 64 MB: the per-user joins of ~50 000 users per variant sort in memory, not on disk.
 */
export const REPORT_SETTINGS = "SET LOCAL jit = off; SET LOCAL max_parallel_workers_per_gather = 0; SET LOCAL work_mem = '64MB'";
export const BEGIN_READ_ONLY = 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY';

/**
 * On PostgreSQL: a REPEATABLE READ transaction (one snapshot for all its statements) on
 * `connections` pooled connections that share it (the first exports its snapshot, the others
 * import it), so the statements of one read can run side by side and still see one state of the
 * data. Each statement goes to the connection with the fewest statements in flight. Connections
 * are released when done; one that broke is not returned to the pool. One snapshot at a time: two
 * that each held one connection while waiting for a second would wait for each other.
 */
export function postgresSnapshot(pool: pg.Pool, connections = 2): ReadSnapshot {
  return oneAtATime(async (read) => {
    const clients: pg.PoolClient[] = [];
    try {
      const first = await pool.connect();
      clients.push(first);
      await first.query(`${BEGIN_READ_ONLY}; ${REPORT_SETTINGS}`);
      if (connections > 1) {
        const { rows } = await first.query<{ id: string }>('SELECT pg_export_snapshot() AS id');
        for (let i = 1; i < connections; i++) {
          const other = await pool.connect();
          clients.push(other);
          await other.query(`${BEGIN_READ_ONLY}; SET TRANSACTION SNAPSHOT '${rows[0]!.id}'; ${REPORT_SETTINGS}`);
        }
      }
      const result = await read(postgresSql(leastBusy(clients)));
      for (const client of clients) await client.query('COMMIT');
      for (const client of clients.splice(0)) client.release();
      return result;
    } finally {
      // Only on failure are clients left: roll back each, and drop the ones that cannot.
      for (const client of clients) {
        const rolledBack = await client.query('ROLLBACK').then(
          () => true,
          () => false,
        );
        client.release(!rolledBack);
      }
    }
  });
}

/** One query target over several clients: each statement goes to the one with the fewest in flight (a client runs its own one at a time). */
function leastBusy(clients: readonly pg.PoolClient[]): Pick<pg.PoolClient, 'query'> {
  if (clients.length === 1) return clients[0]!;
  const inFlight = clients.map(() => 0);
  const query = async (config: pg.QueryConfig) => {
    let i = 0;
    for (let j = 1; j < clients.length; j++) if (inFlight[j]! < inFlight[i]!) i = j;
    inFlight[i]!++;
    try {
      return await clients[i]!.query(config);
    } finally {
      inFlight[i]!--;
    }
  };
  return { query: query as pg.PoolClient['query'] };
}
