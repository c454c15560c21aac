import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COPY_TABLES } from '../../../src/db/copy.js';
import { defaultMigrationsDir, loadMigrations, migrate } from '../../../src/db/migrate.js';
import { migratePostgres, postgresMigrations } from '../../../src/db/migratePostgres.js';
import { createTestDatabase } from '../../support/postgres.js';
import { type Catalogue, postgresCatalogue, sqliteCatalogue } from '../../support/schemaCatalogue.js';
import { schemaDifferences } from '../../support/schemaParity.js';

/**
 * The two migration trees (migrations/*.sql for SQLite, migrations/postgres/*.sql for PostgreSQL;
 * migrations/README.md) are written by hand. Each is applied to a fresh database, and what each
 * database's own catalogue then says is compared: the same tables and columns, type families,
 * NOT NULL, defaults, CHECKs, keys, foreign keys and indexes (keys, order, uniqueness, WHERE).
 * It needs both backends whichever one the suite runs on.
 */
/** PostgreSQL's 0001 is SQLite's 0001–0011 in one file (migrations/README.md); every later pair is this far apart. */
const POSTGRES_OFFSET = 10;

let dir: string;
let database: { url: string; drop(): Promise<void> };
let sqlite: Catalogue;
let postgres: Catalogue;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'promptline-parity-'));
  const db = new Database(path.join(dir, 'parity.db'));
  try {
    migrate(db, loadMigrations(defaultMigrationsDir()));
    sqlite = sqliteCatalogue(db);
  } finally {
    db.close();
  }
  database = await createTestDatabase();
  const pool = new pg.Pool({ connectionString: database.url, max: 1 });
  try {
    await migratePostgres(pool, postgresMigrations());
    const client = await pool.connect();
    try {
      postgres = await postgresCatalogue(client);
    } finally {
      client.release();
    }
  } finally {
    await pool.end();
  }
});
afterAll(async () => {
  await database?.drop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('the SQLite and PostgreSQL migration trees', () => {
  // Two empty or half-read catalogues would agree too: each is checked against what the migrations say.
  it.each([
    ['SQLite', () => sqlite],
    ['PostgreSQL', () => postgres],
  ])('are read whole from %s: every table `db copy` knows, its columns, keys, CHECKs and indexes', (_, catalogue) => {
    const { tables, indexes } = catalogue();
    expect([...tables.keys()].sort()).toEqual([...COPY_TABLES].sort());
    const runs = tables.get('runs')!;
    expect(runs.columns.slice(0, 3)).toEqual([
      { name: 'id', family: 'text', notNull: expect.any(Boolean), default: null },
      { name: 'project_id', family: 'text', notNull: true, default: null },
      { name: 'prompt_id', family: 'text', notNull: true, default: null },
    ]);
    expect(runs.columns.find((c) => c.name === 'source')).toEqual({ name: 'source', family: 'text', notNull: true, default: "'api'" });
    expect(tables.get('experiments')!.columns.find((c) => c.name === 'target_mde')).toEqual({
      name: 'target_mde',
      family: 'real',
      notNull: true,
      default: '0.1',
    });
    expect(tables.get('storage_probe')!.columns.map((c) => c.family)).toEqual(['integer', 'text', 'blob']);
    expect(runs.primaryKey).toEqual(['id']);
    expect(tables.get('assignments')!.primaryKey).toEqual(['project_id', 'experiment_id', 'external_user_id']);
    expect(tables.get('api_keys')!.uniques).toEqual(['key_hash']);
    expect(runs.checks).toEqual([
      '(output_valid IN (0, 1)) [output_valid]',
      "(source IN ('api', 'playground', 'evaluation')) [source]",
      "(status IN ('ok', 'error', 'cancelled')) [status]",
    ]);
    expect(tables.get('prompt_versions')!.checks).toEqual(['((template IS NULL) <> (messages IS NULL)) [messages, template]']);
    expect(tables.get('prompt_labels')!.foreignKeys).toEqual([
      '(project_id, prompt_id, version) → prompt_versions (project_id, prompt_id, version) ON DELETE NO ACTION ON UPDATE NO ACTION',
    ]);
    expect(indexes.get('experiments_one_running')).toEqual({
      table: 'experiments',
      unique: true,
      keys: ['project_id', 'prompt_id'],
      where: "(status = 'running')",
    });
    expect(indexes.get('outcomes_person')?.keys).toEqual([
      'project_id',
      'coalesce(attributed_user, external_user_id)',
      'created_at',
      'event_type',
      'is_success',
      'numeric_value',
    ]);
    expect(indexes.get('evaluations_active')?.where).toBe("(status IN ('queued', 'running'))");
    expect(indexes.size).toBeGreaterThan(40);
  });

  it(`are numbered in pairs, SQLite N and PostgreSQL N − ${POSTGRES_OFFSET} under the same name, with no gap`, () => {
    const sqliteFiles = loadMigrations(defaultMigrationsDir());
    const postgresFiles = postgresMigrations();
    for (const files of [sqliteFiles, postgresFiles])
      expect(
        files.map((m) => m.version),
        'migration numbers run 1, 2, 3… with no gap',
      ).toEqual(files.map((_, i) => i + 1));
    const paired = sqliteFiles
      .filter((m) => m.version > POSTGRES_OFFSET + 1)
      .map((m) => `${String(m.version - POSTGRES_OFFSET).padStart(4, '0')}${m.name.slice(4)}`);
    expect(
      postgresFiles.map((m) => m.name),
      `each SQLite migration after ${String(POSTGRES_OFFSET + 1).padStart(4, '0')} has a PostgreSQL twin numbered ${POSTGRES_OFFSET} less, of the same name (migrations/README.md)`,
    ).toEqual(['0001_initial.sql', ...paired]);
  });

  it('make the same schema: tables, columns, type families, NOT NULL, defaults, CHECKs, keys and indexes', () => {
    const differences = schemaDifferences(sqlite, postgres, ['SQLite', 'PostgreSQL']);
    expect(differences, `the migration trees drift apart (migrations/README.md):\n  ${differences.join('\n  ')}\n`).toEqual([]);
  });
});
