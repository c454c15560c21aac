import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp, type AppDeps, type PromptlineApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createProjectService } from '../../src/modules/projects/projects.service.js';
import type { Role } from '../../src/modules/keys/access.js';
import type { Db } from '../../src/db/open.js';
import { createTestDatabase, testBackend } from './postgres.js';

export const ADMIN_KEY = 'pl_a_test-bootstrap-admin-key-000000000000';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  text: string;
  json: any;
}

export interface TestApp extends PromptlineApp {
  dataDir: string;
  /** The SQLite connection, for tests that look at the file itself (throws on PostgreSQL). */
  readonly sqlite: Db;
  request(
    method: string,
    url: string,
    options?: { key?: string | null; body?: unknown; raw?: string | Buffer; headers?: Record<string, string>; from?: string },
  ): Promise<Answer>;
  /** A key of the given role in a project (created when missing), made through the services as the CLI does. */
  keyFor(role: Role, project?: string): Promise<string>;
  /** A key that expired (its expiry moved into the past, as time would; the API refuses a past expiry). */
  expiredKey(role: Role): Promise<string>;
  cleanup(): Promise<void>;
}

/**
 * How long a test app's close() may take. In production the process's shutdown deadline bounds it;
 * in a test nothing would, so a close that hangs fails cleanup, named, instead of a 60 s hook timeout.
 */
const CLOSE_DEADLINE_MS = 20_000;

/** The app's close(), true once it finished; false if it is still running after CLOSE_DEADLINE_MS. */
async function closeWithin(service: PromptlineApp): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(resolve, CLOSE_DEADLINE_MS, false);
  });
  const closed = service.close().then(
    () => true,
    () => true, // close() logs its failed steps and goes on: failing, it has still finished
  );
  return Promise.race([closed, late]).finally(() => clearTimeout(timer));
}

/**
 * The real app on a real temporary database: a SQLite file, or, with PROMPTLINE_TEST_BACKEND=postgres,
 * a PostgreSQL database of its own, dropped at cleanup. Only the model provider may be faked (by a
 * loopback server).
 */
export async function startTestApp(env: Record<string, string> = {}, deps: AppDeps = {}): Promise<TestApp> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'promptline-test-'));
  // A caller naming its own database (replicas sharing one) creates and drops it itself.
  const postgres = testBackend() === 'postgres' && env.PROMPTLINE_DATABASE_URL === undefined ? await createTestDatabase() : null;
  const { config, errors } = loadConfig({
    PROMPTLINE_DATA_DIR: dataDir,
    ...(postgres === null ? {} : { PROMPTLINE_DATABASE_URL: postgres.url }),
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    PROMPTLINE_BOOTSTRAP_ADMIN_KEY: ADMIN_KEY,
    ...env,
  });
  const removeStorage = async () => {
    try {
      await postgres?.drop();
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  };
  if (config === null) {
    await removeStorage();
    throw new Error(`bad test config: ${errors.join('; ')}`);
  }
  let service: PromptlineApp;
  try {
    service = await buildApp(config, deps);
  } catch (error) {
    await removeStorage();
    throw error;
  }
  try {
    await service.bootstrap();
  } catch (error) {
    await closeWithin(service);
    await removeStorage();
    throw error;
  }
  const projects = createProjectService(service.store);
  const keyCache = new Map<string, string>();

  const request: TestApp['request'] = async (method, url, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    const key = options.key === undefined ? ADMIN_KEY : options.key;
    if (key !== null) headers['x-api-key'] = key;
    let payload: string | Buffer | undefined = options.raw;
    if (options.body !== undefined) {
      payload = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await service.app.inject({
      method: method as 'GET',
      url,
      headers,
      remoteAddress: options.from ?? '127.0.0.1',
      ...(payload !== undefined ? { payload } : {}),
    });
    let json: unknown;
    try {
      json = res.body === '' ? undefined : JSON.parse(res.body);
    } catch {
      json = undefined;
    }
    return { status: res.statusCode, headers: res.headers, text: res.body, json };
  };

  return {
    ...service,
    dataDir,
    request,
    async keyFor(role, project = 'default') {
      const cacheKey = `${project}/${role}`;
      const cached = keyCache.get(cacheKey);
      if (cached) return cached;
      const row = (await projects.findByName(project)) ?? (await projects.create(project));
      const created = await service.keys.create(row.id, { name: `test-${role}`, role });
      keyCache.set(cacheKey, created.key);
      return created.key;
    },
    async expiredKey(role) {
      const created = await request('POST', '/keys', { body: { name: 'expired', role, expires_at: new Date(Date.now() + 60_000).toISOString() } });
      await service.store.writer.write((tx) => tx.run('UPDATE api_keys SET expires_at = ? WHERE id = ?', ['2000-01-01T00:00:00.000Z', created.json.key_id]));
      service.keys.invalidate();
      return created.json.key as string;
    },
    get sqlite(): Db {
      if (service.store.sqlite === null) throw new Error('this test reads the SQLite file itself: it cannot run on PostgreSQL');
      return service.store.sqlite;
    },
    async cleanup() {
      // The database and folder go even when close() hangs; the hang is then this cleanup's error.
      const closed = await closeWithin(service);
      await removeStorage();
      if (!closed) throw new Error(`the app's close() did not finish within ${CLOSE_DEADLINE_MS} ms (a pool waiting for a client never given back?)`);
    },
  };
}
