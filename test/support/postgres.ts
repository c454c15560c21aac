import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The server the tests use: the machine's PostgreSQL (trust auth for `postgres` on loopback). */
const TEST_POSTGRES_URL = process.env.PROMPTLINE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Which backend the integration and contract suites run on: PROMPTLINE_TEST_BACKEND=postgres, else SQLite. */
export function testBackend(): 'sqlite' | 'postgres' {
  return process.env.PROMPTLINE_TEST_BACKEND === 'postgres' ? 'postgres' : 'sqlite';
}

/**
 * Bounds of the administrative statements, generous for a loaded 2-core machine (CREATE DATABASE
 * copies the template and checkpoints): past them the statement fails instead of hanging a hook.
 */
const CONNECT_TIMEOUT_MS = 10_000;
const STATEMENT_TIMEOUT_MS = 30_000;
/** How long `end()` may wait for the server's goodbye before the socket is simply dropped. */
const END_TIMEOUT_MS = 5_000;

/**
 * Runs `statement` on a connection of its own to the maintenance database, and closes it whatever
 * happens (a failed connect or statement included), each step within its bound.
 */
async function adminStatement(statement: string): Promise<void> {
  const client = new pg.Client({
    connectionString: TEST_POSTGRES_URL,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    query_timeout: STATEMENT_TIMEOUT_MS,
    statement_timeout: STATEMENT_TIMEOUT_MS,
  });
  // A connection ended by the server later (a restart) must not be an uncaught 'error'.
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query(statement);
  } finally {
    await endWithin(client, END_TIMEOUT_MS);
  }
}

/** `client.end()`, given up on after `ms`: a teardown never waits on a socket that will not close. */
async function endWithin(client: { end(): Promise<void> }, ms: number = END_TIMEOUT_MS): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    timer.unref();
  });
  await Promise.race([client.end().catch(() => undefined), late]).finally(() => clearTimeout(timer));
}

/** A database of its own for one test app, so tests never see each other's data; `drop` removes it. */
export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `promptline_test_${randomBytes(6).toString('hex')}`;
  await adminStatement(`CREATE DATABASE ${name}`);
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    // FORCE ends the sessions still connected (a server killed mid-test, a pool not yet ended).
    drop: () => adminStatement(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}
