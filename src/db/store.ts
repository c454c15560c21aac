import type { Clock } from '../lib/clock.js';
import type { Db } from './open.js';
import type { GroupCommitWriter } from './writer.js';
import { openDatabase, openReadOnlyDatabase, type Durability } from './open.js';
import { defaultMigrationsDir, loadMigrations, migrate, type Migration } from './migrate.js';
import { migratePostgres, postgresMigrations } from './migratePostgres.js';
import type { ProcessLiveness } from './liveness.js';
import { openPool, postgresConnection, postgresSql } from './postgres.js';
import { postgresLiveness } from './postgresLiveness.js';
import { postgresSnapshot, type ReadSnapshot, sqliteSnapshot } from './snapshot.js';
import { type Sql, sqliteSql } from './sql.js';
import { sqliteLiveness } from './sqliteLiveness.js';
import { createGroupCommitWriter, sqliteConnection } from './writer.js';
import { systemClock } from '../lib/clock.js';
import type { Telemetry } from '../lib/telemetry.js';

/** What every service needs from storage: reads of committed data, the writer for writes, time. */
export interface Store {
  /** Reads. Never sees a batch that is still being written: only what was committed. */
  readonly sql: Sql;
  /** Reads that must all see one state of the data (reports made of many queries). */
  readonly readSnapshot: ReadSnapshot;
  readonly writer: GroupCommitWriter;
  readonly clock: Clock;
  /** The SQLite writer connection, for what only SQLite has (backup, status, the WAL); null on PostgreSQL. */
  readonly sqlite: Db | null;
  /** The migrations of this backend (readiness checks that all are applied). */
  readonly migrations: readonly Migration[];
  close(): Promise<void>;
}

export interface StoreOptions {
  dataDir: string;
  durability: Durability;
  /** A postgres:// URL: PostgreSQL; null: the SQLite file in dataDir. */
  databaseUrl?: string | null;
  /** PostgreSQL's statement deadline (`timeoutMs`); absent: none. */
  postgres?: { timeoutMs: number };
}

/**
 * Opens the SQLite file, applies pending migrations, and attaches the group-commit writer. Reads
 * go through a second connection: WAL gives it the last commit, so a read made while a batch is
 * between its statements cannot see (and answer with) rows that may yet roll back.
 */
export function openSqliteStore(dataDir: string, durability: Durability, clock: Clock = systemClock, telemetry?: Telemetry): Store & { sqlite: Db } {
  const db = openDatabase(dataDir, durability);
  const migrations = loadMigrations(defaultMigrationsDir());
  migrate(db, migrations);
  const reader = openReadOnlyDatabase(dataDir);
  return {
    sqlite: db,
    sql: sqliteSql(reader),
    readSnapshot: sqliteSnapshot(reader),
    writer: createGroupCommitWriter(sqliteConnection(db), telemetry === undefined ? {} : { telemetry }),
    clock,
    migrations,
    async close() {
      reader.close();
      db.close();
    },
  };
}

/**
 * Connects to PostgreSQL, migrates under an advisory lock, and attaches the group-commit writer:
 * each batch is one transaction on one pooled connection; reads use the rest of the pool. Every
 * statement has `timeoutMs` (openPool), except the migrations': they run on a connection of their
 * own without one, since they may wait for another replica's, or build an index on a large table.
 * Acknowledged means committed: synchronous_commit is left as the server has it (on by default).
 */
export async function openPostgresStore(url: string, clock: Clock = systemClock, telemetry?: Telemetry, timeoutMs: number | null = null): Promise<Store> {
  const migrations = postgresMigrations();
  const migrator = openPool(url, 1);
  try {
    await migratePostgres(migrator, migrations);
  } finally {
    await migrator.end();
  }
  const pool = openPool(url, 10, { timeoutMs });
  return {
    sqlite: null,
    sql: postgresSql(pool),
    readSnapshot: postgresSnapshot(pool),
    writer: createGroupCommitWriter(postgresConnection(pool), telemetry === undefined ? {} : { telemetry }),
    clock,
    migrations,
    close: () => pool.end(),
  };
}

/** The configured backend: PostgreSQL when a database URL is given, else the SQLite file. */
export async function openStore(options: StoreOptions, clock: Clock = systemClock, telemetry?: Telemetry): Promise<Store> {
  return options.databaseUrl
    ? openPostgresStore(options.databaseUrl, clock, telemetry, options.postgres?.timeoutMs ?? null)
    : openSqliteStore(options.dataDir, options.durability, clock, telemetry);
}

/**
 * How this process and the others on the same database tell who is still running (liveness.ts):
 * lock files beside the SQLite file, or advisory locks on PostgreSQL (read through `store.sql`).
 * Nothing is taken until a lease first needs this process's identity.
 */
export function openLiveness(options: Pick<StoreOptions, 'dataDir' | 'databaseUrl' | 'postgres'>, store: Store): ProcessLiveness {
  return options.databaseUrl ? postgresLiveness(options.databaseUrl, options.postgres?.timeoutMs ?? null, store.sql) : sqliteLiveness(options.dataDir);
}
