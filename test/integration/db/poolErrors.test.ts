import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPool } from '../../../src/db/postgres.js';
import { createTestDatabase } from '../../support/postgres.js';
import { startTcpProxy } from '../../support/tcpProxy.js';

/** PostgreSQL pools (always: this is about that backend's connections). */
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let proxy: Awaited<ReturnType<typeof startTcpProxy>>;

beforeAll(async () => {
  database = await createTestDatabase();
  proxy = await startTcpProxy({ host: '127.0.0.1', port: 5432 });
});
afterAll(async () => {
  await proxy.close();
  await database.drop();
});

describe('a pooled connection cut while checked out', () => {
  it('fails the statement in flight, and its error event is heard (no uncaught exception)', async () => {
    const url = new URL(database.url);
    url.port = String(proxy.port);
    const pool = openPool(url.toString(), 1);
    const client = await pool.connect();
    // The pool itself listens only to idle clients; without a listener of ours, the 'error' the
    // client emits when its connection ends would be an uncaught exception.
    expect(client.listenerCount('error')).toBeGreaterThan(0);
    const inFlight = client.query('SELECT pg_sleep(5)');
    await new Promise((resolve) => setTimeout(resolve, 100));
    await proxy.cut();
    await expect(inFlight).rejects.toThrow(/Connection terminated/);
    client.release(true);
    await proxy.restore();
    expect(await pool.query('SELECT 1 AS one').then((r) => r.rows[0])).toEqual({ one: 1 });
    await pool.end();
  });
});
