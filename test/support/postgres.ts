import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The server the tests use: the machine's PostgreSQL (trust auth for `postgres` on loopback). */
export const TEST_POSTGRES_URL = process.env.PROMPTLINE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Which backend the integration and contract suites run on: PROMPTLINE_TEST_BACKEND=postgres, else SQLite. */
export function testBackend(): 'sqlite' | 'postgres' {
  return process.env.PROMPTLINE_TEST_BACKEND === 'postgres' ? 'postgres' : 'sqlite';
}

/** A database of its own for one test app, so tests never see each other's data; `drop` removes it. */
export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `promptline_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
