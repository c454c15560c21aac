/** The PostgreSQL server the benchmarks use, and a database of their own on it. */
import pg from 'pg';

const SERVER_URL = process.env.PROMPTLINE_BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A fresh database `name` for `use`, dropped afterwards whatever happens (a crashed earlier run's included). */
export async function withDatabase<T>(name: string, use: (url: string) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: SERVER_URL });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}`);
    try {
      const url = new URL(SERVER_URL);
      url.pathname = `/${name}`;
      return await use(url.toString());
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    }
  } finally {
    await admin.end();
  }
}
