import type Database from 'better-sqlite3';
import type pg from 'pg';
import { canonicalExpression } from './sqlExpression.js';
import { checkExpressions, indexParts, type Token } from './sqlTokens.js';

/**
 * What a migrated database's own catalogue says about its schema, in one shape for both backends,
 * every expression in its canonical spelling (./sqlExpression.ts), so that the two migration trees
 * can be compared (./schemaParity.ts). Types are reduced to families: see TYPE_FAMILIES.
 */
export interface Catalogue {
  tables: Map<string, TableShape>;
  /** The indexes made by CREATE INDEX, by name (the ones behind PRIMARY KEY and UNIQUE are in their table). */
  indexes: Map<string, IndexShape>;
  /** Anything else the schema holds (`view name`, `trigger name`…): none today, so any is compared by name. */
  others: string[];
}

/**
 * Not compared: the migrators' own bookkeeping, made by src/db/migrate.ts and migratePostgres.ts
 * rather than by the trees, and numbered differently on each backend on purpose (never copied).
 */
const BOOKKEEPING = 'schema_migrations';

export interface ColumnShape {
  name: string;
  family: string;
  notNull: boolean;
  default: string | null;
}

export interface TableShape {
  /** In the table's order. */
  columns: ColumnShape[];
  primaryKey: string[];
  /** Each UNIQUE constraint's columns, in their order. */
  uniques: string[];
  /** `expression [columns]`. */
  checks: string[];
  /** `(columns) → table (columns) ON DELETE … ON UPDATE …`. */
  foreignKeys: string[];
}

export interface IndexShape {
  table: string;
  unique: boolean;
  /** Each key's expression (a column name for a plain column), ` DESC` when descending. */
  keys: string[];
  where: string | null;
}

/**
 * The type families, and the one declared type each backend spells each of them with in this
 * schema. Exact on purpose: a type outside it (PostgreSQL's integer, boolean, jsonb, timestamptz or a
 * text of another collation; SQLite's NUMERIC or an untyped column) fails the comparison until it is
 * added here deliberately, which is when whoever adds it decides what it pairs with.
 *   - integer: booleans are integers 0/1 on both (so that `db copy` moves them as they are);
 *     PostgreSQL's BIGINT holds every SQLite INTEGER.
 *   - text: PostgreSQL's TEXT COLLATE "C" sorts bytes as SQLite's default BINARY collation does
 *     (ids and ISO-8601 timestamps are compared and ordered as strings); JSON is stored as text.
 *   - real: both are IEEE doubles.
 *   - blob: bytes.
 */
const TYPE_FAMILIES = {
  sqlite: { INTEGER: 'integer', TEXT: 'text', REAL: 'real', BLOB: 'blob' } as Record<string, string>,
  postgres: { bigint: 'integer', 'text COLLATE "C"': 'text', 'double precision': 'real', bytea: 'blob' } as Record<string, string>,
};
const family = (backend: keyof typeof TYPE_FAMILIES, declared: string) => TYPE_FAMILIES[backend][declared] ?? `unmapped ${backend} type ${declared}`;

const ACTIONS: Record<string, string> = { a: 'NO ACTION', r: 'RESTRICT', c: 'CASCADE', n: 'SET NULL', d: 'SET DEFAULT' };
const foreignKey = (from: string[], table: string, to: string[], onDelete: string, onUpdate: string) =>
  `(${from.join(', ')}) → ${table} (${to.join(', ')}) ON DELETE ${onDelete} ON UPDATE ${onUpdate}`;
/** A CHECK as `expression [columns]`. */
const check = (expression: string | readonly Token[], columns: (canonicalColumns: string[]) => string[]) => {
  const canonical = canonicalExpression(expression);
  return `${canonical.text} [${columns(canonical.columns).join(', ')}]`;
};

type SqliteColumn = { name: string; type: string; notnull: number; dflt_value: string | null; pk: number };
const sqlitePrimaryKey = (columns: SqliteColumn[]) =>
  columns
    .filter((c) => c.pk > 0)
    .sort((a, b) => a.pk - b.pk)
    .map((c) => c.name);

function sqliteTable(db: Database.Database, name: string, sql: string): TableShape {
  const info = db.pragma(`table_info("${name}")`) as SqliteColumn[];
  const uniques: string[] = [];
  for (const index of db.pragma(`index_list("${name}")`) as { name: string; origin: string }[]) {
    if (index.origin !== 'u') continue;
    const columns = (db.pragma(`index_info("${index.name}")`) as { seqno: number; name: string }[]).sort((a, b) => a.seqno - b.seqno);
    uniques.push(columns.map((c) => c.name).join(', '));
  }
  type SqliteForeignKey = { id: number; table: string; from: string; to: string | null; on_update: string; on_delete: string };
  const fks = new Map<number, SqliteForeignKey[]>();
  for (const fk of db.pragma(`foreign_key_list("${name}")`) as SqliteForeignKey[]) fks.set(fk.id, [...(fks.get(fk.id) ?? []), fk]);
  const names = new Set(info.map((c) => c.name));
  return {
    columns: info.map((c) => ({
      name: c.name,
      family: family('sqlite', c.type),
      notNull: c.notnull === 1,
      default: c.dflt_value === null ? null : canonicalExpression(c.dflt_value).text,
    })),
    primaryKey: sqlitePrimaryKey(info),
    uniques: uniques.sort(),
    // SQLite keeps no list of a CHECK's columns: they are the table's columns its expression names.
    checks: checkExpressions(sql)
      .map((tokens) => check(tokens, (columns) => columns.filter((c) => names.has(c))))
      .sort(),
    foreignKeys: [...fks.values()]
      .map((parts) => {
        const { table, on_delete, on_update } = parts[0]!;
        // REFERENCES t without columns means t's primary key.
        const to = parts.some((p) => p.to === null) ? sqlitePrimaryKey(db.pragma(`table_info("${table}")`) as SqliteColumn[]) : parts.map((p) => p.to!);
        return foreignKey(
          parts.map((p) => p.from),
          table,
          to,
          on_delete,
          on_update,
        );
      })
      .sort(),
  };
}

function sqliteIndex(db: Database.Database, name: string, table: string, sql: string): IndexShape {
  const parts = indexParts(sql);
  const xinfo = (db.pragma(`index_xinfo("${name}")`) as { seqno: number; cid: number; name: string | null; desc: number; key: number }[])
    .filter((k) => k.key === 1)
    .sort((a, b) => a.seqno - b.seqno);
  if (xinfo.length !== parts.keys.length) throw new Error(`index ${name}: ${xinfo.length} keys in index_xinfo, ${parts.keys.length} in its SQL`);
  const listed = (db.pragma(`index_list("${table}")`) as { name: string; unique: number }[]).find((i) => i.name === name)!;
  return {
    table,
    unique: listed.unique === 1,
    // A plain column by its name; an expression (cid -2) as the statement writes it.
    keys: xinfo.map((k, i) => `${k.cid === -2 ? canonicalExpression(parts.keys[i]!.expression).text : k.name!.toLowerCase()}${k.desc === 1 ? ' DESC' : ''}`),
    where: parts.where === null ? null : canonicalExpression(parts.where).text,
  };
}

export function sqliteCatalogue(db: Database.Database): Catalogue {
  const objects = db
    .prepare("SELECT type, name, tbl_name AS tableName, sql FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' AND tbl_name <> ? ORDER BY name")
    .all(BOOKKEEPING) as { type: string; name: string; tableName: string; sql: string | null }[];
  const tables = new Map<string, TableShape>();
  const indexes = new Map<string, IndexShape>();
  const others: string[] = [];
  for (const o of objects) {
    if (o.type === 'table') tables.set(o.name, sqliteTable(db, o.name, o.sql!));
    // An index without SQL is SQLite's own, behind a PRIMARY KEY or UNIQUE: its table describes it.
    else if (o.type === 'index' && o.sql !== null) indexes.set(o.name, sqliteIndex(db, o.name, o.tableName, o.sql));
    else if (o.type !== 'index') others.push(`${o.type} ${o.name}`);
  }
  return { tables, indexes, others };
}

export async function postgresCatalogue(client: pg.ClientBase): Promise<Catalogue> {
  const query = async <T extends pg.QueryResultRow>(text: string, values: unknown[] = []) => (await client.query<T>(text, values)).rows;
  const columns = await query<{ table: string; name: string; type: string; collation: string | null; nullable: string; default: string | null }>(
    `SELECT table_name AS table, column_name AS name, data_type AS type, collation_name AS collation, is_nullable AS nullable, column_default AS default
     FROM information_schema.columns c JOIN information_schema.tables t USING (table_schema, table_name)
     WHERE table_schema = current_schema() AND t.table_type = 'BASE TABLE' AND table_name <> $1 ORDER BY table_name, ordinal_position`,
    [BOOKKEEPING],
  );
  // Every constraint with its columns in their order (conkey), the referenced ones for a foreign key.
  const constraints = await query<{
    table: string;
    type: string;
    definition: string;
    columns: string[];
    parent: string | null;
    parentColumns: string[] | null;
    onDelete: string;
    onUpdate: string;
  }>(
    `SELECT r.relname AS table, k.contype AS type, pg_get_constraintdef(k.oid, true) AS definition,
       ARRAY(SELECT a.attname FROM unnest(k.conkey) WITH ORDINALITY u(n, o) JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.n ORDER BY u.o)::text[] AS columns,
       p.relname AS parent,
       ARRAY(SELECT a.attname FROM unnest(k.confkey) WITH ORDINALITY u(n, o) JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = u.n ORDER BY u.o)::text[] AS "parentColumns",
       k.confdeltype AS "onDelete", k.confupdtype AS "onUpdate"
     FROM pg_constraint k JOIN pg_class r ON r.oid = k.conrelid LEFT JOIN pg_class p ON p.oid = k.confrelid
     WHERE r.relnamespace = current_schema()::regnamespace AND r.relname <> $1`,
    [BOOKKEEPING],
  );
  // The indexes made by CREATE INDEX: not those behind a PRIMARY KEY or UNIQUE constraint (conindid).
  const indexRows = await query<{ name: string; table: string; unique: boolean; keys: string[]; where: string | null }>(
    `SELECT c.relname AS name, r.relname AS table, i.indisunique AS unique,
       ARRAY(SELECT pg_get_indexdef(i.indexrelid, k, true) || CASE WHEN i.indoption[k - 1] & 1 = 1 THEN ' DESC' ELSE '' END
             FROM generate_series(1, i.indnkeyatts) k ORDER BY k)::text[] AS keys,
       pg_get_expr(i.indpred, i.indrelid, true) AS where
     FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_class r ON r.oid = i.indrelid
     WHERE r.relnamespace = current_schema()::regnamespace AND r.relname <> $1
       AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid AND k.contype IN ('p', 'u'))
     ORDER BY c.relname`,
    [BOOKKEEPING],
  );
  // Cross-checked against pg_indexes, the view over the same catalogue: the same set of index names.
  const viewed = new Set((await query<{ name: string }>('SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema()')).map((r) => r.name));
  for (const row of indexRows) if (!viewed.has(row.name)) throw new Error(`index ${row.name} is not in pg_indexes`);

  // Views, sequences (an identity or serial column would make one), triggers and functions of the schema.
  const others = (
    await query<{ object: string }>(
      `SELECT CASE c.relkind WHEN 'v' THEN 'view ' WHEN 'm' THEN 'materialized view ' ELSE 'sequence ' END || c.relname AS object
       FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('v', 'm', 'S')
       UNION ALL SELECT 'trigger ' || t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
       WHERE c.relnamespace = current_schema()::regnamespace AND NOT t.tgisinternal
       UNION ALL SELECT 'function ' || p.proname FROM pg_proc p WHERE p.pronamespace = current_schema()::regnamespace`,
    )
  ).map((r) => r.object);

  const tables = new Map<string, TableShape>();
  for (const c of columns) {
    const table = tables.get(c.table) ?? { columns: [], primaryKey: [], uniques: [], checks: [], foreignKeys: [] };
    table.columns.push({
      name: c.name,
      family: family('postgres', c.collation === null ? c.type : `${c.type} COLLATE "${c.collation}"`),
      notNull: c.nullable === 'NO',
      default: c.default === null ? null : canonicalExpression(c.default).text,
    });
    tables.set(c.table, table);
  }
  for (const k of constraints) {
    const table = tables.get(k.table)!;
    if (k.type === 'p') table.primaryKey = k.columns;
    else if (k.type === 'u') table.uniques.push(k.columns.join(', '));
    else if (k.type === 'c') table.checks.push(check(k.definition.replace(/^CHECK /, ''), () => [...k.columns].sort()));
    else if (k.type === 'f') table.foreignKeys.push(foreignKey(k.columns, k.parent!, k.parentColumns!, ACTIONS[k.onDelete]!, ACTIONS[k.onUpdate]!));
    else throw new Error(`constraint of type ${k.type} on ${k.table} is not compared yet: ${k.definition}`);
  }
  for (const table of tables.values()) for (const list of [table.uniques, table.checks, table.foreignKeys]) list.sort();
  const indexes = new Map<string, IndexShape>();
  for (const row of indexRows) {
    indexes.set(row.name, {
      table: row.table,
      unique: row.unique,
      keys: row.keys.map((key) => {
        const descending = key.endsWith(' DESC');
        return `${canonicalExpression(descending ? key.slice(0, -5) : key).text}${descending ? ' DESC' : ''}`;
      }),
      where: row.where === null ? null : canonicalExpression(row.where).text,
    });
  }
  return { tables, indexes, others: others.sort() };
}
