import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { behave, FakeOpenAI } from '../support/fakeOpenAI.js';
import { createTestDatabase } from '../support/postgres.js';
import { callServer, processFixtures, type RunningServer } from '../support/processes.js';
import { DATABASE_MS, STEP_MS, timeLimit } from '../support/timeLimits.js';

/**
 * A write done in slices (src/db/slices.ts) survives kill -9 half-way: the built server is killed
 * while it commits a 60 000-item upload, then while it creates an evaluation on those items, each
 * time with part of the rows already committed. Restarted, it shows nothing of either; once the
 * dead writer's hold has ended, housekeeping deletes the rows, and the same upload commits whole.
 */
const ADMIN = 'pl_a_e2e-sliced-writes-crash-key-0000000';
const ITEMS = 60_000;
const PER_REQUEST = 10_000;
const HOLD_MS = 1_000;
const fx = processFixtures(ADMIN);
const fake = new FakeOpenAI();
let env: Record<string, string>;

beforeAll(async () => {
  const { baseURL } = await fake.start();
  fake.setDefault(behave.slow(60_000, { content: 'x' }));
  env = {
    PROMPTLINE_PROVIDER_FAKE_BASE_URL: baseURL,
    PROMPTLINE_PROVIDER_FAKE_API_KEY: 'sk-test',
    PROMPTLINE_MAX_RETRIES: '0',
    PROMPTLINE_SLICED_WRITE_HOLD_MS: String(HOLD_MS),
  };
});
afterAll(async () => fake.close());

/** A count from the server's own database, read beside it (SQLite: a read-only connection; WAL lets it read while the server writes). */
interface Peek {
  count(sql: string): Promise<number>;
  close(): Promise<void>;
}

function peekSqlite(dir: string): Peek {
  const db = new Database(path.join(dir, 'promptline.db'), { readonly: true, fileMustExist: true });
  return {
    count: async (sql) => Number(db.prepare(sql).pluck().get()),
    close: async () => {
      db.close();
    },
  };
}

async function peekPostgres(url: string): Promise<Peek> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return { count: async (sql) => Number((await client.query(sql)).rows[0].count), close: () => client.end() };
}

async function until(what: string, ok: () => Promise<boolean>, ms = STEP_MS): Promise<void> {
  for (const deadline = Date.now() + ms; !(await ok()); ) {
    if (Date.now() > deadline) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Sends `request` and kills the server with -9 once `halfWay` says part of its rows are committed; the request must not have been answered. */
async function killHalfWay(server: RunningServer, request: () => Promise<unknown>, halfWay: () => Promise<boolean>): Promise<void> {
  let answered = false;
  const sent = request().then(
    () => {
      answered = true;
    },
    () => undefined, // the connection dies with the server
  );
  await until('part of the rows committed', halfWay);
  await server.stop('SIGKILL');
  await sent;
  expect(answered).toBe(false);
  // The dead writer's hold ends before the next start: its housekeeping at start may take the rows back.
  await new Promise((r) => setTimeout(r, HOLD_MS * 2));
}

async function crashesTwice(serve: () => Promise<RunningServer>, peek: Peek): Promise<void> {
  let server = await serve();
  const api = (p: string, body?: unknown, method = 'POST') => callServer(server.origin, p, ADMIN, body, method);
  expect((await api('/prompts', { prompt_id: 'p', template: '{{q}}', model: 'fake/gpt-4o-mini' })).status).toBe(201);
  expect((await api('/prompts/p/versions', { template: '{{q}}!', model: 'fake/gpt-4o-mini' })).status).toBe(201);
  expect((await api('/evaluators', { evaluator_id: 'exact', kind: 'exact_match' })).status).toBe(201);
  expect((await api('/datasets', { dataset_id: 'd' })).status).toBe(201);
  expect((await api('/datasets/d/items', { items: [{ inputs: { q: 'first' } }] })).status).toBe(201);
  const upload = (await api('/datasets/d/uploads')).json.upload_id as string;
  for (let from = 0; from < ITEMS; from += PER_REQUEST) {
    const items = Array.from({ length: PER_REQUEST }, (_, i) => ({ inputs: { q: `q${from + i}` }, expected: `q${from + i}` }));
    expect((await api(`/datasets/d/uploads/${upload}/items`, { items })).status).toBe(200);
  }

  // 1. Killed while committing the upload.
  await killHalfWay(
    server,
    () => api(`/datasets/d/uploads/${upload}/commit`),
    async () => (await peek.count('SELECT count(*) FROM dataset_items WHERE added_in = 2')) > 0,
  );
  server = await serve();
  expect((await api('/datasets/d', undefined, 'GET')).json).toMatchObject({ latest_version: 1, item_count: 1 });
  expect((await api('/datasets/d/items?limit=10', undefined, 'GET')).json.data).toHaveLength(1);
  // Its rows go first, then the dataset's staging: the version's number is free again.
  await until('the half-made version taken back', async () => (await peek.count('SELECT count(*) FROM datasets WHERE staged_until IS NOT NULL')) === 0);
  expect(await peek.count('SELECT count(*) FROM dataset_items WHERE added_in = 2')).toBe(0);
  // The upload was never taken: it commits whole now.
  const committed = await api(`/datasets/d/uploads/${upload}/commit`);
  expect(committed.status).toBe(201);
  expect(committed.json).toMatchObject({ version: 2, item_count: ITEMS + 1, added: ITEMS });

  // 2. Killed while creating an evaluation on those items.
  await killHalfWay(
    server,
    () => api('/evaluations', { prompt_id: 'p', versions: [2, 1], dataset_id: 'd', evaluators: ['exact'], concurrency: 1 }),
    async () => (await peek.count('SELECT count(*) FROM evaluation_items')) > 0,
  );
  server = await serve();
  expect((await api('/evaluations', undefined, 'GET')).json.data).toEqual([]);
  await until('the half-made evaluation deleted', async () => (await peek.count('SELECT count(*) FROM evaluations')) === 0);
  expect(await peek.count('SELECT count(*) FROM evaluation_items')).toBe(0);
  await server.stop('SIGKILL');
  fx.forget(server);
}

describe('a write done in slices, killed half-way', () => {
  // three starts; six uploads, two kills and three waits
  it('leaves nothing visible after a restart, and its rows are deleted (SQLite)', { timeout: timeLimit({ starts: 3, steps: 12 }) }, async () => {
    const dir = fx.dataDir();
    const serve = () => fx.serve(dir, env);
    // The file exists once the first server has started.
    const peeks: Peek[] = [];
    try {
      await crashesTwice(
        async () => {
          const server = await serve();
          if (peeks.length === 0) peeks.push(peekSqlite(dir));
          return server;
        },
        { count: (sql) => peeks[0]!.count(sql), close: async () => undefined },
      );
    } finally {
      for (const peek of peeks) await peek.close();
    }
  });

  it('the same on PostgreSQL', { timeout: timeLimit({ starts: 3, steps: 12, ms: 2 * DATABASE_MS }) }, async () => {
    const database = await createTestDatabase();
    const peek = await peekPostgres(database.url);
    try {
      await crashesTwice(() => fx.serve(undefined, { ...env, PROMPTLINE_DATABASE_URL: database.url }), peek);
    } finally {
      await peek.close();
      await database.drop();
    }
  });
});
