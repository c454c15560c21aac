import path from 'node:path';
import type pg from 'pg';
import { defaultMigrationsDir, loadMigrations, type Migration } from './migrate.js';

/** PostgreSQL's migrations: numbered files like SQLite's, in their own folder (the dialects differ). */
export function postgresMigrations(): Migration[] {
  return loadMigrations(path.join(defaultMigrationsDir(), 'postgres'));
}

/** The advisory lock every replica takes to migrate: any 64-bit number no other tool uses. */
const MIGRATION_LOCK = 0x70726f6d70746cn; // "promptl"

/**
 * Applies every migration not yet recorded, each in its own transaction, under a session-level
 * advisory lock: ten replicas starting together wait for the first, then find nothing to do, so
 * each migration runs exactly once.
 */
export async function migratePostgres(pool: pg.Pool, migrations: readonly Migration[]): Promise<number[]> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK.toString()]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
    const applied = new Set((await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => Number(r.version)));
    const done: number[] = [];
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      await client.query('BEGIN');
      try {
        await client.query(migration.sql);
        await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
          migration.version,
          migration.name,
          new Date().toISOString(),
        ]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
      done.push(migration.version);
    }
    return done;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK.toString()]).catch(() => undefined);
    client.release();
  }
}
