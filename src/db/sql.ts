import { type Dialect, sqliteDialect } from './dialect.js';
import type { Db } from './open.js';
import { prepared } from './prepared.js';

/** Positional (`?`) or named (`@name`) parameters of one statement. */
export type SqlParams = readonly unknown[] | object;

/**
 * The one way services' repositories reach storage: async, so that the same repository runs on a
 * connection that answers at once (SQLite, in process) and on one that answers over the network
 * (PostgreSQL). A repository function takes an `Sql` — the store's for reads, or the transaction a
 * write op was handed — and is the only code that writes SQL text.
 */
export interface Sql {
  readonly dialect: Dialect;
  all<T>(sql: string, params?: SqlParams): Promise<T[]>;
  get<T>(sql: string, params?: SqlParams): Promise<T | undefined>;
  /** The first column of every row. */
  column<T>(sql: string, params?: SqlParams): Promise<T[]>;
  /** The first column of the first row, or undefined when there is no row. */
  value<T>(sql: string, params?: SqlParams): Promise<T | undefined>;
  run(sql: string, params?: SqlParams): Promise<{ changes: number }>;
}

function bound(params: SqlParams | undefined): unknown[] {
  if (params === undefined) return [];
  return Array.isArray(params) ? params : [params];
}

/**
 * `Sql` over one better-sqlite3 connection. Each call runs synchronously and hands back a settled
 * promise: a write op's statements therefore run back to back inside its transaction, with no I/O
 * between them, however many awaits the op has.
 */
export function sqliteSql(db: Db): Sql {
  return {
    dialect: sqliteDialect,
    async all<T>(sql: string, params?: SqlParams) {
      return prepared(db, sql).all(...bound(params)) as T[];
    },
    async get<T>(sql: string, params?: SqlParams) {
      return prepared(db, sql).get(...bound(params)) as T | undefined;
    },
    async column<T>(sql: string, params?: SqlParams) {
      return prepared(db, sql, true).all(...bound(params)) as T[];
    },
    async value<T>(sql: string, params?: SqlParams) {
      return prepared(db, sql, true).get(...bound(params)) as T | undefined;
    },
    async run(sql: string, params?: SqlParams) {
      return { changes: prepared(db, sql).run(...bound(params)).changes };
    },
  };
}
