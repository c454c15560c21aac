import fs from 'node:fs';
import path from 'node:path';
import { latestVersion, type Migration } from './migrate.js';
import { databasePath, type Db } from './open.js';

/** Tables whose row counts tell an operator what a database holds, in the order they are shown. */
const COUNTED = ['projects', 'api_keys', 'prompts', 'prompt_versions', 'experiments', 'assignments', 'runs', 'outcomes'] as const;

/** What `promptline status` prints: which file, how big, which schema, how many of each thing. */
export function databaseStatus(db: Db, dataDir: string, migrations: readonly Migration[]): Array<[string, string]> {
  const file = path.resolve(databasePath(dataDir));
  const bytes = ['', '-wal'].reduce((sum, suffix) => sum + (fs.existsSync(file + suffix) ? fs.statSync(file + suffix).size : 0), 0);
  const applied = (db.prepare('SELECT max(version) FROM schema_migrations').pluck().get() as number | null) ?? 0;
  const known = latestVersion(migrations);
  const rows: Array<[string, string]> = [
    ['database', file],
    ['size', `${bytes} bytes (with its write-ahead log)`],
    ['schema version', applied === known ? String(applied) : `${applied} (this Promptline knows ${known})`],
  ];
  for (const table of COUNTED) rows.push([table, String(db.prepare(`SELECT count(*) FROM ${table}`).pluck().get())]);
  return rows;
}
