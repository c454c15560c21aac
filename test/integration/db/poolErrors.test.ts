import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPool, postgresConnection } from '../../../src/db/postgres.js';
import { createGroupCommitWriter } from '../../../src/db/writer.js';
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

describe('a pooled connection cut while idle, then taken by the writer', () => {
  it('fails the write, and the client goes back to the pool: none stays checked out, so the pool can end', async () => {
    const url = new URL(database.url);
    url.port = String(proxy.port);
    const pool = openPool(url.toString(), 2);
    const writer = createGroupCommitWriter(postgresConnection(pool));
    let failedWrites = 0;
    // Whether BEGIN meets the dead connection or the pool has already dropped it is a race (the
    // socket's close arrives in a later turn): repeated, at least one round takes the dead client.
    for (let round = 0; round < 10; round++) {
      await writer.write((tx) => tx.value('SELECT 1'));
      expect(pool.idleCount).toBeGreaterThan(0);
      await proxy.cut();
      await writer.write((tx) => tx.value('SELECT 1')).catch(() => (failedWrites += 1));
      expect({ round, checkedOut: pool.totalCount - pool.idleCount }).toEqual({ round, checkedOut: 0 });
      await proxy.restore();
    }
    console.log(`writes that failed on a cut connection: ${failedWrites} of 10`);
    expect(failedWrites).toBeGreaterThan(0);
    const ended = await Promise.race([pool.end().then(() => 'ended'), new Promise((resolve) => setTimeout(resolve, 5_000, 'still waiting'))]);
    expect(ended).toBe('ended');
  });
});
