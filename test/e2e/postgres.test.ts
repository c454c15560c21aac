import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runToExit, tempDataDir } from '../support/processes.js';
import { startTestApp, type TestApp } from '../support/harness.js';
import { createTestDatabase } from '../support/postgres.js';
import { startTcpProxy } from '../support/tcpProxy.js';
import { STEP_MS } from '../support/timeLimits.js';

/** Starts the built server with a database URL; it must stop at once with one line. */
function start(databaseUrl: string) {
  return runToExit(['dist/src/server.js'], { PROMPTLINE_DATABASE_URL: databaseUrl, PROMPTLINE_DATA_DIR: tempDataDir(), PORT: '0', LOG_LEVEL: 'info' });
}

describe('PostgreSQL at start', () => {
  it.each([
    ['postgres://postgres:s3cret@127.0.0.1:1/promptline', 'nothing accepts connections at that host and port'],
    ['postgres://postgres:s3cret@127.0.0.1:5432/promptline_no_such_database', 'that database does not exist'],
    ['postgres://no_such_role:s3cret@127.0.0.1:5432/postgres', 'the server refused this user'],
    ['postgres://postgres:s3cret@no-such-host.invalid/promptline', 'the host name does not resolve'],
    ['mysql://postgres:s3cret@127.0.0.1/promptline', 'is invalid: expected a postgres://'],
    ['s3cret', 'PROMPTLINE_DATABASE_URL=(value not shown) is invalid'],
  ])('%s: one line, exit 1, the password never shown', async (url, reason) => {
    const result = await start(url);
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(reason);
    expect(result.stderr).not.toContain('s3cret');
  });
});

describe('PostgreSQL going away and coming back', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let proxy: Awaited<ReturnType<typeof startTcpProxy>>;
  let t: TestApp;

  beforeAll(async () => {
    database = await createTestDatabase();
    proxy = await startTcpProxy({ host: '127.0.0.1', port: 5432 });
    const url = new URL(database.url);
    url.port = String(proxy.port);
    t = await startTestApp({ PROMPTLINE_DATABASE_URL: url.toString() });
  });
  afterAll(async () => {
    try {
      await t?.cleanup();
    } finally {
      await proxy?.close();
      await database?.drop();
    }
  });

  const track = () => t.request('POST', '/track_outcome', { body: { prompt_id: 'greet', event_type: 'click', is_success: true } });

  it('answers 503 while the database is unreachable, and recovers by itself when it is back', async () => {
    expect((await t.request('POST', '/prompts', { body: { prompt_id: 'greet', template: 'Hello' } })).status).toBe(201);
    expect((await track()).status).toBe(200);

    await proxy.cut();
    const refused = await track();
    expect(refused.status).toBe(503);
    expect(refused.json).toEqual({ detail: 'Database unavailable: try again (a write cut off during its commit may still have been stored)' });
    expect((await t.request('GET', '/runs')).status).toBe(503);
    // Results are computed in a worker thread on a connection of its own: the same 503.
    expect((await t.request('GET', '/experiments/nope/results')).status).toBe(503);
    expect((await t.request('GET', '/readyz', { key: null })).status).toBe(503);

    await proxy.restore();
    const started = performance.now();
    let status = 0;
    while (status !== 200 && performance.now() - started < STEP_MS) {
      status = (await track()).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status, `a write accepted within ${STEP_MS} ms of the database coming back`).toBe(200);
    expect((await t.request('GET', '/readyz', { key: null })).status).toBe(200);
    expect((await t.request('GET', '/experiments/nope/results')).json).toEqual({ detail: "Experiment 'nope' not found" });
    // The outcome refused while the database was away was not stored; the two acknowledged ones were.
    expect(await t.store.sql.value<number>('SELECT count(*) FROM outcomes')).toBe(2);
  });
});
