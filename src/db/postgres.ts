import pg from 'pg';
import { postgresDialect } from './dialect.js';
import type { Sql, SqlParams } from './sql.js';
import { isDatabaseUnavailable, isStorageFailure } from './storageErrors.js';
import type { TransactionalConnection } from './writer.js';

// Counts and sums of BIGINT columns arrive as text by default (they may exceed 2^53); every such
// value here is a count, a token total or nano-dollars, far below it, so they are read as numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (text) => Number(text));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (text) => Number(text));

interface Translated {
  /** The prepared statement's name: parsed and planned once per connection, not per call. */
  name: string;
  text: string;
  /** For @named parameters: the name of each $n, in order. Null for positional `?`. */
  names: string[] | null;
}

const translations = new Map<string, Translated>();

/**
 * Repository SQL is written once: `?` or `@name` placeholders, and SQLite's planner hints
 * (`INDEXED BY index`, a unary `+` that keeps a column off an index), which PostgreSQL's planner
 * does without. This turns it into PostgreSQL's text, once per statement text. Placeholders are
 * only recognised outside string literals.
 */
export function translate(sql: string): Translated {
  const known = translations.get(sql);
  if (known !== undefined) return known;
  const names: string[] = [];
  let positional = 0;
  let out = '';
  let i = 0;
  const source = sql.replace(/\s+INDEXED BY \w+/g, '').replace(/([=(,]\s*)\+(?=[@?A-Za-z_])/g, '$1');
  while (i < source.length) {
    const c = source[i]!;
    if (c === "'") {
      const end = source.indexOf("'", i + 1);
      out += source.slice(i, end + 1);
      i = end + 1;
    } else if (c === '?') {
      out += `$${++positional}`;
      i++;
    } else if (c === '@' && /[A-Za-z_]/.test(source[i + 1] ?? '')) {
      const name = /^[A-Za-z_]\w*/.exec(source.slice(i + 1))![0];
      let index = names.indexOf(name);
      if (index === -1) index = names.push(name) - 1;
      out += `$${index + 1}`;
      i += 1 + name.length;
    } else {
      out += c;
      i++;
    }
  }
  const translated = { name: `promptline_${translations.size}`, text: out, names: names.length > 0 ? names : null };
  translations.set(sql, translated);
  return translated;
}

function values(translated: Translated, params: SqlParams | undefined): unknown[] {
  if (params === undefined) return [];
  if (translated.names === null) return Array.isArray(params) ? [...params] : [params];
  const named = params as Record<string, unknown>;
  return translated.names.map((name) => {
    if (!(name in named)) throw new Error(`missing SQL parameter @${name}`);
    return named[name];
  });
}

/**
 * TCP keepalive starts after this long without traffic, so a peer that vanished (a host powered
 * off, a NAT entry dropped) is noticed in seconds rather than after the kernel's two hours. It
 * cannot notice a path that still acknowledges packets but delivers nothing: the deadlines below do.
 */
const KEEPALIVE_DELAY_MS = 10_000;
/**
 * The client's own deadline comes this long after the server's `statement_timeout`: a statement
 * that is merely slow fails with the server's clean error (its connection stays usable), and only a
 * connection that answers nothing at all (black-holed) meets the client's.
 */
const CLIENT_GRACE_MS = 1_000;
/** Connecting gives up after this long when no deadline is given (the CLI's `db copy`, migrations). */
const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;

/**
 * Every PostgreSQL connection's settings. `timeoutMs` bounds each statement on the server
 * (`statement_timeout`), the wait for its answer on the client (`query_timeout`, 1 s more), the
 * time a transaction may sit idle (`idle_in_transaction_session_timeout`: a replica cut off
 * mid-transaction does not hold its locks against the others) and a connection attempt; null
 * leaves statements unbounded (migrations may wait on another replica's lock, a copy may be long).
 */
export function connectionConfig(url: string, timeoutMs: number | null): pg.ClientConfig {
  return {
    connectionString: url,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
    connectionTimeoutMillis: timeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    ...(timeoutMs === null ? {} : { statement_timeout: timeoutMs, query_timeout: timeoutMs + CLIENT_GRACE_MS, idle_in_transaction_session_timeout: timeoutMs }),
  };
}

/**
 * A connection pool on `url`, with connectionConfig's settings (a statement deadline when
 * `timeoutMs` is given). An idle connection that breaks (the server restarted) must not crash the
 * process: the pool drops it, and the next query opens a new one. Waiting for a free connection
 * gives up as connecting does.
 */
export function openPool(url: string, max: number, options: Pick<pg.PoolConfig, 'types'> & { timeoutMs?: number | null } = {}): pg.Pool {
  const { timeoutMs = null, ...rest } = options;
  const pool = new pg.Pool({ ...connectionConfig(url, timeoutMs), max, ...rest });
  pool.on('error', () => undefined);
  // A client's connection can end while it is checked out (the server restarts, the network cuts
  // it): the statement in flight fails with that error, which its caller handles, and the client
  // also emits 'error' — which the pool listens to only while the client is idle. Unheard, that is
  // an uncaught exception: the process would crash on a database restart.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

type Queryable = Pick<pg.Pool, 'query'> | Pick<pg.PoolClient, 'query'>;

/** `Sql` over a pool (reads: each statement on whichever connection is free) or one client (a transaction). */
export function postgresSql(target: Queryable): Sql {
  async function query(sql: string, params: SqlParams | undefined, rowMode?: 'array'): Promise<pg.QueryResult> {
    const translated = translate(sql);
    const config: pg.QueryConfig = { name: translated.name, text: translated.text, values: values(translated, params) };
    return rowMode === 'array' ? target.query({ ...config, rowMode }) : target.query(config);
  }
  return {
    dialect: postgresDialect,
    async all<T>(sql: string, params?: SqlParams) {
      return (await query(sql, params)).rows as T[];
    },
    async get<T>(sql: string, params?: SqlParams) {
      return (await query(sql, params)).rows[0] as T | undefined;
    },
    async column<T>(sql: string, params?: SqlParams) {
      return (await query(sql, params, 'array')).rows.map((row: unknown[]) => row[0] as T);
    },
    async value<T>(sql: string, params?: SqlParams) {
      return (await query(sql, params, 'array')).rows[0]?.[0] as T | undefined;
    },
    async run(sql: string, params?: SqlParams) {
      return { changes: (await query(sql, params)).rowCount ?? 0 };
    },
  };
}

/**
 * The writer's transactions on PostgreSQL: each batch takes one client from the pool, and gives it
 * back after COMMIT or ROLLBACK. A broken client is destroyed rather than returned.
 */
export function postgresConnection(pool: pg.Pool): TransactionalConnection {
  let client: pg.PoolClient | null = null;
  let broken = false;
  /** Every statement of the batch: one that finds the connection gone marks the client broken. */
  async function onClient(statement: string | pg.QueryConfig): Promise<pg.QueryResult> {
    if (client === null) throw new Error('no transaction is open');
    try {
      return await client.query(statement);
    } catch (error) {
      if (isDatabaseUnavailable(error)) broken = true;
      throw error;
    }
  }
  const sql = postgresSql({ query: onClient as pg.PoolClient['query'] });
  const exec = (statement: string) => async () => {
    await onClient(statement);
  };
  const release = () => {
    client?.release(broken);
    client = null;
    broken = false;
  };
  return {
    sql,
    async begin() {
      client = await pool.connect();
      try {
        await exec('BEGIN')();
      } catch (error) {
        // No caller rolls back a transaction that never began, and the next begin() would forget
        // this client: give it back now (destroyed), or it stays checked out for good — one pool
        // slot fewer after each cut, and pool.end() waiting forever at shutdown.
        broken = true;
        release();
        throw error;
      }
    },
    async commit() {
      try {
        await exec('COMMIT')();
      } finally {
        release();
      }
    },
    async rollback() {
      if (client === null) return;
      try {
        if (!broken) await client.query('ROLLBACK');
      } finally {
        release();
      }
    },
    savepoint: exec('SAVEPOINT op'),
    release: exec('RELEASE SAVEPOINT op'),
    async rollbackToSavepoint() {
      await exec('ROLLBACK TO SAVEPOINT op')();
      await exec('RELEASE SAVEPOINT op')();
    },
    get inTransaction() {
      return client !== null && !broken;
    },
    isStorageFailure,
  };
}
