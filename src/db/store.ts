import type { Clock } from '../lib/clock.js';
import type { Db } from './open.js';
import type { GroupCommitWriter } from './writer.js';
import { openDatabase, type Durability } from './open.js';
import { defaultMigrationsDir, loadMigrations, migrate, type Migration } from './migrate.js';
import { createGroupCommitWriter } from './writer.js';
import { systemClock } from '../lib/clock.js';
import type { Telemetry } from '../lib/telemetry.js';
/** What every service needs from storage: the connection for reads, the writer for writes, time. */
export interface Store {
  readonly db: Db;
  readonly writer: GroupCommitWriter;
  readonly clock: Clock;
}

/** Opens the database file, applies pending migrations, and attaches the group-commit writer. */
export function openStore(dataDir: string, durability: Durability, clock: Clock = systemClock, telemetry?: Telemetry): Store & { migrations: Migration[] } {
  const db = openDatabase(dataDir, durability);
  const migrations = loadMigrations(defaultMigrationsDir());
  migrate(db, migrations);
  return { db, writer: createGroupCommitWriter(db, telemetry === undefined ? {} : { telemetry }), clock, migrations };
}
