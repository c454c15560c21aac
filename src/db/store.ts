import type { Clock } from '../lib/clock.js';
import type { Db } from './open.js';
import type { GroupCommitWriter } from './writer.js';
import { openDatabase, openReadOnlyDatabase, type Durability } from './open.js';
import { defaultMigrationsDir, loadMigrations, migrate, type Migration } from './migrate.js';
import { type Sql, sqliteSql } from './sql.js';
import { createGroupCommitWriter, sqliteConnection } from './writer.js';
import { systemClock } from '../lib/clock.js';
import type { Telemetry } from '../lib/telemetry.js';

/** What every service needs from storage: reads of committed data, the writer for writes, time. */
export interface Store {
  /** Reads. Never sees a batch that is still being written: only what was committed. */
  readonly sql: Sql;
  readonly writer: GroupCommitWriter;
  readonly clock: Clock;
  /** The SQLite writer connection itself, for what only SQLite has (backup, status, WAL checkpoint). */
  readonly db: Db;
}

/**
 * Opens the database file, applies pending migrations, and attaches the group-commit writer. Reads
 * go through a second connection: WAL gives it the last commit, so a read made while a batch is
 * between its statements cannot see (and answer with) rows that may yet roll back.
 */
export function openStore(
  dataDir: string,
  durability: Durability,
  clock: Clock = systemClock,
  telemetry?: Telemetry,
): Store & { migrations: Migration[]; close(): void } {
  const db = openDatabase(dataDir, durability);
  const migrations = loadMigrations(defaultMigrationsDir());
  migrate(db, migrations);
  const reader = openReadOnlyDatabase(dataDir);
  return {
    db,
    sql: sqliteSql(reader),
    writer: createGroupCommitWriter(sqliteConnection(db), telemetry === undefined ? {} : { telemetry }),
    clock,
    migrations,
    close() {
      reader.close();
      db.close();
    },
  };
}
