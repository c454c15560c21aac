import type { Statement } from 'better-sqlite3';
import type { Db } from './open.js';

const cache = new WeakMap<Db, Map<string, Statement>>();

/**
 * Prepared statements are compiled once per connection, SQL text and mode (whole rows, or the
 * first column only: `pluck`); preparing costs more than running.
 */
export function prepared(db: Db, sql: string, pluck = false): Statement {
  let statements = cache.get(db);
  if (statements === undefined) {
    statements = new Map();
    cache.set(db, statements);
  }
  const key = pluck ? `\u0000${sql}` : sql;
  let statement = statements.get(key);
  if (statement === undefined) {
    statement = db.prepare(sql);
    if (pluck) statement.pluck();
    statements.set(key, statement);
  }
  return statement;
}
