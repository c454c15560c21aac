import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { redactPassword } from './databaseUrl.js';
import { defaultMigrationsDir, latestVersion, loadMigrations, migrate } from './migrate.js';
import { migratePostgres, postgresMigrations } from './migratePostgres.js';
import { openPool } from './postgres.js';

/**
 * The two kinds of database `promptline db copy` reads and writes, behind one small interface, so
 * the copy itself (copy.ts) is the same code for every direction.
 */
export class CopyError extends Error {}

/** Column names in schema order, and the primary key the rows are read back in. */
export interface TableShape {
  columns: string[];
  primaryKey: string[];
}

export interface Endpoint {
  /** What the user gave, with any password replaced: safe to print. */
  readonly label: string;
  readonly kind: 'sqlite' | 'postgres';
  /** The highest migration applied (0: none), and the highest this Promptline has for this backend. */
  schemaVersion(): Promise<{ version: number; known: number }>;
  /** Every table but schema_migrations, with its shape. */
  tables(): Promise<Map<string, TableShape>>;
  /** The first table (schema_migrations aside) that holds a row, or null. */
  firstNonEmptyTable(): Promise<string | null>;
  /** Creates or completes the schema (targets only). */
  migrate(): Promise<void>;
  /** Source: one read-only snapshot for all tables. Target: one write transaction, holding the write lock. */
  begin(mode: 'read' | 'write'): Promise<void>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
  /** Rows as value arrays in `columns` order, sorted by `orderBy`, `batch` at a time. */
  rows(table: string, columns: string[], orderBy: string[], batch: number): AsyncIterable<unknown[][]>;
  insert(table: string, columns: string[], rows: unknown[][]): Promise<void>;
  close(): Promise<void>;
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
const list = (names: string[]) => names.map(quote).join(', ');

function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/** A connection error says which database, never with its password, in one line. */
function unreachable(label: string, error: unknown): CopyError {
  const message = error instanceof Error ? error.message : String(error);
  return new CopyError(`cannot open ${label}: ${redactPassword(message.split('\n')[0] ?? '')}`);
}

/**
 * A SQLite file at an exact path (any name: it need not be a data directory's promptline.db). A
 * source is opened read-only and never migrated; a target gets the pragmas the server uses
 * (src/db/open.ts) and this Promptline's migrations.
 */
function sqliteEndpoint(file: string, role: 'source' | 'target'): Endpoint {
  const label = path.resolve(file);
  if (role === 'source' && !fs.existsSync(file)) throw new CopyError(`no SQLite database at ${label}`);
  let db: Database.Database;
  try {
    // A target that exists is first opened read-only: refusing a non-empty one must not touch it.
    if (role === 'target') fs.mkdirSync(path.dirname(label), { recursive: true });
    db = new Database(file, { readonly: fs.existsSync(file), fileMustExist: role === 'source' });
    db.prepare('SELECT count(*) FROM sqlite_master').get();
  } catch (error) {
    throw unreachable(label, error);
  }
  const userTables = () =>
    db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name <> 'schema_migrations'")
      .pluck()
      .all() as string[];
  const inserts = new Map<string, Database.Statement>();
  return {
    label,
    kind: 'sqlite',
    async schemaVersion() {
      const known = latestVersion(loadMigrations(defaultMigrationsDir()));
      const has = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get() !== undefined;
      const version = has ? ((db.prepare('SELECT max(version) FROM schema_migrations').pluck().get() as number | null) ?? 0) : 0;
      return { version, known };
    },
    async tables() {
      const shapes = new Map<string, TableShape>();
      for (const name of userTables()) {
        const info = db.pragma(`table_info(${quote(name)})`) as { name: string; pk: number }[];
        const primaryKey = info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
        shapes.set(name, { columns: info.map((c) => c.name), primaryKey: primaryKey.map((c) => c.name) });
      }
      return shapes;
    },
    async firstNonEmptyTable() {
      return userTables().find((name) => db.prepare(`SELECT 1 FROM ${quote(name)} LIMIT 1`).get() !== undefined) ?? null;
    },
    async migrate() {
      db.close();
      db = new Database(file);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      db.pragma('foreign_keys = ON');
      db.pragma('busy_timeout = 5000');
      migrate(db, loadMigrations(defaultMigrationsDir()));
    },
    async begin(mode) {
      // IMMEDIATE takes the write lock now, so no server can write between the empty check and COMMIT.
      db.exec(mode === 'write' ? 'BEGIN IMMEDIATE' : 'BEGIN');
    },
    async commit() {
      db.exec('COMMIT');
    },
    async rollback() {
      if (db.inTransaction) db.exec('ROLLBACK');
    },
    async *rows(table, columns, orderBy, batch) {
      const statement = db.prepare(`SELECT ${list(columns)} FROM ${quote(table)} ORDER BY ${list(orderBy)}`).raw(true);
      let rows: unknown[][] = [];
      for (const row of statement.iterate() as IterableIterator<unknown[]>) {
        rows.push(row);
        if (rows.length === batch) {
          yield rows;
          rows = [];
        }
      }
      if (rows.length > 0) yield rows;
    },
    async insert(table, columns, rows) {
      // Row by row inside the one transaction: with a prepared statement that is SQLite's fastest way.
      let statement = inserts.get(table);
      if (statement === undefined) {
        statement = db.prepare(`INSERT INTO ${quote(table)} (${list(columns)}) VALUES (${columns.map(() => '?').join(', ')})`);
        inserts.set(table, statement);
      }
      for (const row of rows) statement.run(row);
    },
    async close() {
      if (db.open) db.close();
    },
  };
}

/** BIGINT as a number, as the app reads it (src/db/postgres.ts), without relying on its global parser. */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.INT8 ? Number : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/**
 * A PostgreSQL database, on one connection: a source's reads all come from one REPEATABLE READ
 * snapshot (a live server may keep writing), a target's writes are one transaction.
 */
async function postgresEndpoint(url: string, role: 'source' | 'target'): Promise<Endpoint> {
  const label = redactPassword(url);
  const pool = openPool(url, 1, { types });
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    await pool.end();
    throw unreachable(label, error);
  }
  client.on('error', () => undefined);
  const query = async <T extends pg.QueryResultRow>(text: string, values?: unknown[]) => (await client.query<T>(text, values)).rows;
  const userTables = async () =>
    (
      await query<{ name: string }>(
        "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> 'schema_migrations' ORDER BY 1",
      )
    ).map((r) => r.name);
  let statements = 0;
  const insertTexts = new Map<string, string>();
  return {
    label,
    kind: 'postgres',
    async schemaVersion() {
      const known = latestVersion(postgresMigrations());
      const [has] = await query<{ t: string | null }>("SELECT to_regclass('schema_migrations')::text AS t");
      const version = has?.t ? Number((await query<{ v: string | null }>('SELECT max(version) AS v FROM schema_migrations'))[0]?.v ?? 0) : 0;
      return { version, known };
    },
    async tables() {
      const shapes = new Map<string, TableShape>();
      for (const name of await userTables()) {
        const columns = await query<{ c: string }>(
          'SELECT column_name AS c FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position',
          [name],
        );
        const primaryKey = await query<{ c: string }>(
          `SELECT a.attname AS c FROM pg_index i CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, n)
           JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
           WHERE i.indrelid = to_regclass(quote_ident($1)) AND i.indisprimary ORDER BY k.n`,
          [name],
        );
        shapes.set(name, { columns: columns.map((r) => r.c), primaryKey: primaryKey.map((r) => r.c) });
      }
      return shapes;
    },
    async firstNonEmptyTable() {
      for (const name of await userTables()) if ((await query(`SELECT 1 FROM ${quote(name)} LIMIT 1`)).length > 0) return name;
      return null;
    },
    async migrate() {
      // The migrator takes a pool (it holds an advisory lock on one of its connections): a second, short-lived one.
      const migrator = openPool(url, 1);
      try {
        await migratePostgres(migrator, postgresMigrations());
      } finally {
        await migrator.end();
      }
    },
    async begin(mode) {
      if (mode === 'read') await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      else {
        await client.query('BEGIN');
        // EXCLUSIVE blocks every writer (readers go on) until COMMIT: nothing lands beside the copy.
        const names = await userTables();
        if (names.length > 0) await client.query(`LOCK TABLE ${list(names)} IN EXCLUSIVE MODE`);
      }
    },
    async commit() {
      await client.query('COMMIT');
    },
    async rollback() {
      await client.query('ROLLBACK').catch(() => undefined);
    },
    async *rows(table, columns, orderBy, batch) {
      // A server-side cursor: one batch in memory at a time, however big the table.
      const cursor = `copy_cursor_${++statements}`;
      await client.query(`DECLARE ${cursor} NO SCROLL CURSOR FOR SELECT ${list(columns)} FROM ${quote(table)} ORDER BY ${list(orderBy)}`);
      for (;;) {
        const result = await client.query<unknown[]>({ text: `FETCH ${batch} FROM ${cursor}`, rowMode: 'array' });
        if (result.rows.length === 0) break;
        yield result.rows;
      }
      await client.query(`CLOSE ${cursor}`);
    },
    async insert(table, columns, rows) {
      // One multi-row INSERT per batch; the full-size statement is prepared once per table (named).
      const name = `copy_${table}_${rows.length}`;
      let text = insertTexts.get(name);
      if (text === undefined) {
        const width = columns.length;
        const tuples = rows.map((_, r) => `(${columns.map((_, c) => `$${r * width + c + 1}`).join(', ')})`);
        text = `INSERT INTO ${quote(table)} (${list(columns)}) VALUES ${tuples.join(', ')}`;
        insertTexts.set(name, text);
      }
      await client.query({ name, text, values: rows.flat() });
    },
    async close() {
      client.release();
      await pool.end();
    },
  };
}

export function openEndpoint(location: string, role: 'source' | 'target'): Promise<Endpoint> {
  return isPostgresUrl(location) ? postgresEndpoint(location, role) : Promise.resolve().then(() => sqliteEndpoint(location, role));
}
