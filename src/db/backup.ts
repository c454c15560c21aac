import fs from 'node:fs';
import Database from 'better-sqlite3';
import { defaultMigrationsDir, latestVersion, loadMigrations } from './migrate.js';
import { databasePath } from './open.js';

/**
 * Online backup and restore with SQLite's backup API: the copy is one consistent snapshot even
 * while the server writes (it copies pages under SQLite's own locks, restarting if a write lands
 * mid-copy), and a restore writes into the live file the same way, so a running server sees the
 * restored data on its next request (its caches follow `PRAGMA data_version`).
 */
class BackupError extends Error {}

export interface BackupFacts {
  bytes: number;
  /** The highest migration applied in the copy. */
  schemaVersion: number;
}

/** Opens a copy and checks it is a sound Promptline database: integrity, and a schema this build knows. */
function checkBackup(file: string): BackupFacts {
  if (!fs.existsSync(file)) throw new BackupError(`${file} does not exist`);
  let db: Database.Database;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new BackupError(`${file} is not a SQLite database: ${(error as Error).message}`);
  }
  try {
    const integrity = db.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') throw new BackupError(`${file} failed SQLite's integrity check: ${String(integrity)}`);
    const hasSchema = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get() !== undefined;
    if (!hasSchema) throw new BackupError(`${file} is not a Promptline database (no schema_migrations table)`);
    const schemaVersion = (db.prepare('SELECT max(version) FROM schema_migrations').pluck().get() as number | null) ?? 0;
    const known = latestVersion(loadMigrations(defaultMigrationsDir()));
    if (schemaVersion > known) throw new BackupError(`${file} has schema version ${schemaVersion}, newer than this Promptline knows (${known})`);
    return { bytes: fs.statSync(file).size, schemaVersion };
  } catch (error) {
    if (error instanceof BackupError) throw error;
    throw new BackupError(`${file} cannot be read as a database: ${(error as Error).message}`);
  } finally {
    db.close();
  }
}

/** Copies the data directory's database to `file` while it is in use, then checks the copy. */
export async function backupDatabase(dataDir: string, file: string, options: { force: boolean }): Promise<BackupFacts> {
  const source = databasePath(dataDir);
  if (!fs.existsSync(source)) throw new BackupError(`no database at ${source}`);
  if (fs.existsSync(file) && !options.force) throw new BackupError(`${file} exists: give --force to overwrite it`);
  await copyPages(source, file);
  return checkBackup(file);
}

/**
 * Restores a checked copy into the data directory. An existing database, live or not, is only
 * overwritten with `force`; the caller then opens the store, which applies any newer migrations.
 */
export async function restoreDatabase(file: string, dataDir: string, options: { force: boolean }): Promise<BackupFacts> {
  const facts = checkBackup(file);
  const target = databasePath(dataDir);
  if (fs.existsSync(target) && !options.force) {
    throw new BackupError(`${target} exists (and may be serving): give --force to replace its content with ${file}`);
  }
  fs.mkdirSync(dataDir, { recursive: true });
  await copyPages(file, target);
  return facts;
}

/** SQLite's backup API, page by page under its locks: safe while either side is in use. */
async function copyPages(source: string, target: string): Promise<void> {
  const db = new Database(source, { readonly: true, fileMustExist: true });
  try {
    await db.backup(target);
  } finally {
    db.close();
  }
}
