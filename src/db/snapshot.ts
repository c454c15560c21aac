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
  let queue: Promise<unknown> = Promise.resolve();
  return (read) => {
    const run = queue.then(async () => {
      db.exec('BEGIN');
      try {
        return await read(sql);
      } finally {
        db.exec('COMMIT');
      }
    });
    queue = run.catch(() => undefined);
    return run;
  };
}

/**
 * On PostgreSQL: one pooled connection for the whole read, in a REPEATABLE READ transaction (one
 * snapshot for all its statements), released when done. A connection that broke is not returned.
 */
export function postgresSnapshot(pool: pg.Pool): ReadSnapshot {
  return async (read) => {
    const client = await pool.connect();
    let broken = false;
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const result = await read(postgresSql(client));
      await client.query('COMMIT');
      return result;
    } catch (error) {
      broken = !(await client.query('ROLLBACK').then(
        () => true,
        () => false,
      ));
      throw error;
    } finally {
      client.release(broken);
    }
  };
}
