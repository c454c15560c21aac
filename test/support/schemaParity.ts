import type { Catalogue, ColumnShape, IndexShape, TableShape } from './schemaCatalogue.js';

/**
 * Where two catalogues (./schemaCatalogue.ts) of the same schema disagree, one line each, naming the
 * table or index, the property and both sides; empty when they agree.
 */

/**
 * The legitimate differences between the two trees, beyond the spelling of expressions
 * (./sqlExpression.ts's header) and of types (TYPE_FAMILIES in ./schemaCatalogue.ts); nothing else
 * is forgiven:
 *   - nullability of a primary key column: PostgreSQL makes every PRIMARY KEY column NOT NULL; SQLite
 *     does too for an INTEGER PRIMARY KEY (the rowid) and in a WITHOUT ROWID table, but otherwise
 *     accepts NULL in a primary key unless the column says NOT NULL (a quirk SQLite keeps for
 *     compatibility: projects.id, runs.id… say only PRIMARY KEY). The code never writes NULL into a
 *     key, so a key column counts as NOT NULL on both.
 *   - physical storage: WITHOUT ROWID (assignments) and rowid aliases have no PostgreSQL
 *     counterpart; the catalogues do not describe them.
 * A difference in what the schema means (a table, a column, its type family, NOT NULL, its default, a
 * CHECK, a key, a UNIQUE, a foreign key, an index's keys, their order, uniqueness or WHERE, a view or
 * a trigger) is drift.
 */
function withKeyColumnsNotNull(table: TableShape): ColumnShape[] {
  return table.columns.map((c) => (table.primaryKey.includes(c.name) ? { ...c, notNull: true } : c));
}

const show = (value: unknown) => (value === null ? 'none' : Array.isArray(value) ? `[${value.join('; ')}]` : String(value));

function differ<T>(out: string[], where: string, what: string, a: T, b: T, names: [string, string]): void {
  if (JSON.stringify(a) !== JSON.stringify(b)) out.push(`${where}: ${what} is ${show(a)} on ${names[0]}, ${show(b)} on ${names[1]}`);
}

/** Items of two lists present in one only, each reported once with the side that has it. */
function onlyIn(out: string[], where: string, what: string, a: readonly string[], b: readonly string[], names: [string, string]): void {
  for (const item of a.filter((x) => !b.includes(x))) out.push(`${where}: ${what} ${item} only on ${names[0]}`);
  for (const item of b.filter((x) => !a.includes(x))) out.push(`${where}: ${what} ${item} only on ${names[1]}`);
}

function compareTables(out: string[], name: string, a: TableShape, b: TableShape, names: [string, string]): void {
  const where = `table ${name}`;
  const columnsA = withKeyColumnsNotNull(a);
  const columnsB = withKeyColumnsNotNull(b);
  onlyIn(
    out,
    where,
    'column',
    columnsA.map((c) => c.name),
    columnsB.map((c) => c.name),
    names,
  );
  for (const column of columnsA) {
    const other = columnsB.find((c) => c.name === column.name);
    if (other === undefined) continue;
    const at = `${where}, column ${column.name}`;
    differ(out, at, 'the type family', column.family, other.family, names);
    differ(out, at, 'NOT NULL', column.notNull, other.notNull, names);
    differ(out, at, 'the default', column.default, other.default, names);
  }
  // Order matters too: `db copy` names its columns, but the trees promise the same order (SQLite's).
  const shared = (columns: ColumnShape[], other: ColumnShape[]) => columns.map((c) => c.name).filter((n) => other.some((o) => o.name === n));
  differ(out, where, 'the column order', shared(columnsA, columnsB), shared(columnsB, columnsA), names);
  differ(out, where, 'the primary key', a.primaryKey, b.primaryKey, names);
  onlyIn(out, where, 'UNIQUE', a.uniques, b.uniques, names);
  onlyIn(out, where, 'CHECK', a.checks, b.checks, names);
  onlyIn(out, where, 'FOREIGN KEY', a.foreignKeys, b.foreignKeys, names);
}

function compareIndexes(out: string[], name: string, a: IndexShape, b: IndexShape, names: [string, string]): void {
  const where = `index ${name}`;
  differ(out, where, 'the table', a.table, b.table, names);
  differ(out, where, 'UNIQUE', a.unique, b.unique, names);
  differ(out, where, 'the key list', a.keys, b.keys, names);
  differ(out, where, 'WHERE', a.where, b.where, names);
}

export function schemaDifferences(a: Catalogue, b: Catalogue, names: [string, string]): string[] {
  const out: string[] = [];
  onlyIn(out, 'schema', 'table', [...a.tables.keys()].sort(), [...b.tables.keys()].sort(), names);
  for (const [name, table] of a.tables) {
    const other = b.tables.get(name);
    if (other !== undefined) compareTables(out, name, table, other, names);
  }
  onlyIn(out, 'schema', 'object', a.others, b.others, names);
  onlyIn(out, 'schema', 'index', [...a.indexes.keys()].sort(), [...b.indexes.keys()].sort(), names);
  for (const [name, index] of a.indexes) {
    const other = b.indexes.get(name);
    if (other !== undefined) compareIndexes(out, name, index, other, names);
  }
  return out;
}
