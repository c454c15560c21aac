import type { Command } from 'commander';
import { backupDatabase, restoreDatabase } from '../db/backup.js';
import { databasePath } from '../db/open.js';
import { openSqliteStore } from '../db/store.js';
import type { Config } from '../config.js';

/** `promptline db backup|restore`: online copies of the database the server uses. */
export function addDbCommands(program: Command, config: () => Config): void {
  const db = program.command('db').description('back up and restore the database (safe while the server runs)');
  db.command('backup <file>')
    .description('write a consistent copy of the database to FILE, while the server keeps running, and check it')
    .option('--force', 'overwrite FILE if it exists')
    .action(async (file: string, opts: { force?: boolean }) => {
      const { dataDir } = config();
      const facts = await backupDatabase(dataDir, file, { force: opts.force ?? false });
      console.log(`backed up ${databasePath(dataDir)} to ${file}: ${facts.bytes} bytes, schema version ${facts.schemaVersion}, integrity ok`);
    });
  db.command('restore <file>')
    .description("check FILE, then replace the database's content with it (an existing database needs --force)")
    .option('--force', 'replace an existing database, even one a running server uses (it sees the restored data on its next request)')
    .action(async (file: string, opts: { force?: boolean }) => {
      const { dataDir, durability } = config();
      const facts = await restoreDatabase(file, dataDir, { force: opts.force ?? false });
      // Opening the store applies the migrations a copy from an older Promptline lacks.
      await openSqliteStore(dataDir, durability).close();
      console.log(`restored ${file} (schema version ${facts.schemaVersion}) into ${databasePath(dataDir)}`);
    });
}
