import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from './open.js';
import type { Sql } from './sql.js';

const MIGRATION_FILE = /^(\d{4})_[a-z0-9_]+\.sql$/;

/** The migrations folder sits at the package root, both from `src/` (tests) and `dist/src/` (build). */
export function defaultMigrationsDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'migrations', '0001_initial.sql'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('migrations folder not found');
    dir = parent;
  }
  return path.join(dir, 'migrations');
}

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export function loadMigrations(dir: string): Migration[] {
  return fs
    .readdirSync(dir)
    .filter((file) => MIGRATION_FILE.test(file))
    .sort()
    .map((file) => ({
      version: Number(file.slice(0, 4)),
      name: file,
      sql: fs.readFileSync(path.join(dir, file), 'utf8'),
    }));
}

/** Applies every migration not yet recorded, each in its own transaction, in numeric order. */
export function migrate(db: Db, migrations: Migration[]): number[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  const applied = new Set(db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[]);
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  const done: number[] = [];
  for (const migration of migrations) {
    if (applied.has(migration.version)) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      record.run(migration.version, migration.name, new Date().toISOString());
    })();
    done.push(migration.version);
  }
  return done;
}

/** The schema version a set of migrations brings a database to. */
export function latestVersion(migrations: readonly Migration[]): number {
  return Math.max(0, ...migrations.map((m) => m.version));
}

export async function pendingMigrations(db: Sql, migrations: readonly Migration[]): Promise<number> {
  const applied = new Set(await db.column<number>('SELECT version FROM schema_migrations'));
  return migrations.filter((m) => !applied.has(m.version)).length;
}
