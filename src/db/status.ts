import fs from 'node:fs';
import path from 'node:path';
import { redactPassword } from './databaseUrl.js';
import { latestVersion } from './migrate.js';
import { databasePath } from './open.js';
import type { Store } from './store.js';

/** Tables whose row counts tell an operator what a database holds, in the order they are shown. */
const COUNTED = ['projects', 'api_keys', 'prompts', 'prompt_versions', 'experiments', 'assignments', 'runs', 'outcomes'] as const;

/** Where the data lives: the SQLite file and its size, or the PostgreSQL URL (its password hidden). */
function location(store: Store, where: { dataDir: string; databaseUrl: string | null }): Array<[string, string]> {
  if (store.sqlite === null) return [['database', `PostgreSQL ${redactPassword(where.databaseUrl ?? '')}`]];
  const file = path.resolve(databasePath(where.dataDir));
  const bytes = ['', '-wal'].reduce((sum, suffix) => sum + (fs.existsSync(file + suffix) ? fs.statSync(file + suffix).size : 0), 0);
  return [
    ['database', file],
    ['size', `${bytes} bytes (with its write-ahead log)`],
  ];
}

/** What `promptline status` prints: which database, how big, which schema, how many of each thing. */
export async function databaseStatus(store: Store, where: { dataDir: string; databaseUrl: string | null }): Promise<Array<[string, string]>> {
  const applied = (await store.sql.value<number | null>('SELECT max(version) FROM schema_migrations')) ?? 0;
  const known = latestVersion(store.migrations);
  const rows: Array<[string, string]> = [
    ...location(store, where),
    ['schema version', applied === known ? String(applied) : `${applied} (this Promptline knows ${known})`],
  ];
  for (const table of COUNTED) rows.push([table, String(await store.sql.value<number>(`SELECT count(*) FROM ${table}`))]);
  return rows;
}
