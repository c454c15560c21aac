import type { Command } from 'commander';
import { databasePath } from '../db/open.js';
import type { Config } from '../config.js';
import { formatTable } from './table.js';

const COPY_HELP = `
Each of --from and --to is a SQLite file path or a postgres:// URL, so data moves either way:
  promptline db copy --from data/promptline.db --to postgres://user:pass@host/promptline
  promptline db copy --from postgres://user:pass@host/promptline --to ./local/promptline.db

The source is only read, in one snapshot: a server may keep using it. The target must be new or
empty (no row in any table); it is migrated to this Promptline's schema, filled in one transaction,
and read back: row counts and a checksum of every table must match the source, or the whole copy
is rolled back and the target is left empty. A SQLite target may have any file name; for a server
to use it, it must be promptline.db in the server's data directory. Start no server on the target
until the copy has finished. Passwords in URLs are never printed.`;

/** `promptline db backup|restore`: online copies of the database the server uses. */
export function addDbCommands(program: Command, config: () => Config): Command {
  /** backup and restore work on the SQLite file: with PostgreSQL configured, they would silently copy the wrong database. */
  const sqliteConfig = (): Config => {
    const current = config();
    if (current.databaseUrl !== null) {
      throw new Error('db backup and db restore work on the SQLite file, but PROMPTLINE_DATABASE_URL is set: use pg_dump and pg_restore, or db copy');
    }
    return current;
  };
  const db = program.command('db').description('back up, restore and copy the database (safe while the server runs; local database only: no API equivalent)');
  db.command('backup <file>')
    .description('write a consistent copy of the database to FILE, while the server keeps running, and check it')
    .option('--force', 'overwrite FILE if it exists')
    .action(async (file: string, opts: { force?: boolean }) => {
      const { dataDir } = sqliteConfig();
      const { backupDatabase } = await import('../db/backup.js');
      const facts = await backupDatabase(dataDir, file, { force: opts.force ?? false });
      console.log(`backed up ${databasePath(dataDir)} to ${file}: ${facts.bytes} bytes, schema version ${facts.schemaVersion}, integrity ok`);
    });
  db.command('restore <file>')
    .description("check FILE, then replace the database's content with it (an existing database needs --force)")
    .option('--force', 'replace an existing database, even one a running server uses (it sees the restored data on its next request)')
    .action(async (file: string, opts: { force?: boolean }) => {
      const { dataDir, durability } = sqliteConfig();
      const { restoreDatabase } = await import('../db/backup.js');
      const { openSqliteStore } = await import('../db/store.js');
      const facts = await restoreDatabase(file, dataDir, { force: opts.force ?? false });
      // Opening the store applies the migrations a copy from an older Promptline lacks.
      await openSqliteStore(dataDir, durability).close();
      console.log(`restored ${file} (schema version ${facts.schemaVersion}) into ${databasePath(dataDir)}`);
    });
  db.command('copy')
    .description('copy every row from one database into a new, empty one (SQLite file or PostgreSQL, either way), then verify it')
    .requiredOption('--from <source>', 'the database to copy: a SQLite file path or a postgres:// URL (only read)')
    .requiredOption('--to <target>', 'a new or empty database: a SQLite file path (created if missing) or a postgres:// URL')
    .addHelpText('after', COPY_HELP)
    .action(async (opts: { from: string; to: string }) => {
      // Progress goes to stderr, and only on a terminal: a big copy takes minutes, scripts want quiet.
      const progress = process.stderr.isTTY ? (table: string, rows: number) => process.stderr.write(`copied ${table}: ${rows} rows\n`) : undefined;
      const { copyDatabase } = await import('../db/copy.js');
      const result = await copyDatabase(opts.from, opts.to, progress === undefined ? {} : { onTable: progress });
      const rows = result.tables.map((t) => ({
        table: t.table,
        rows: t.rows,
        checksum: t.checksum.slice(0, 16),
        ok: t.ok ? 'ok' : `MISMATCH: target has ${t.targetRows} rows, checksum ${t.targetChecksum.slice(0, 16)}`,
      }));
      console.log(formatTable(rows, ['table', 'rows', 'checksum', 'ok']));
      const total = result.tables.reduce((n, t) => n + t.rows, 0);
      if (!result.ok) throw new Error(`verification failed: the copy into ${result.to} was rolled back (the target is left empty)`);
      console.log(`copied ${total} rows from ${result.from} to ${result.to} in ${(result.milliseconds / 1000).toFixed(1)} s, verified`);
    });
  return db;
}
