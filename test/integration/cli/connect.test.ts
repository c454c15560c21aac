import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/cli/api/client.js';
import { connect } from '../../../src/cli/api/connect.js';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { testBackend } from '../../support/postgres.js';

/**
 * The CLI's way in: connect() picks HTTP or the local database from PROMPTLINE_URL and
 * PROMPTLINE_API_KEY, and the local one is the app in-process as the database's operator, which
 * only an app built for the CLI accepts.
 */
const apps: TestApp[] = [];
const saved = { ...process.env };
afterEach(async () => {
  for (const name of ['PROMPTLINE_URL', 'PROMPTLINE_API_KEY', 'PROMPTLINE_DATA_DIR']) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  for (const app of apps.splice(0)) await app.cleanup();
});

async function app(deps: Parameters<typeof startTestApp>[1] = {}): Promise<TestApp> {
  const started = await startTestApp({}, deps);
  apps.push(started);
  return started;
}

const TOKEN = 'a'.repeat(64);

describe('the operator caller', () => {
  it('means nothing to the server: without a key the headers are a 422 for the missing key', async () => {
    const server = await app();
    const projectId = (await server.request('GET', '/session')).json.project_id as string;
    const res = await server.request('GET', '/keys', { key: null, headers: { 'x-promptline-operator': TOKEN, 'x-promptline-project': projectId } });
    expect(res.status).toBe(422);
    expect(res.json.detail[0].loc).toEqual(['header', 'x-api-key']);
  });

  it("in the CLI's app: the right token acts as the CLI in the project; a wrong or missing one is no key at all", async () => {
    const cliApp = await app({ operatorToken: TOKEN });
    const projectId = (await cliApp.request('GET', '/session')).json.project_id as string;
    const refused: Record<string, string>[] = [
      { 'x-promptline-operator': 'b'.repeat(64), 'x-promptline-project': projectId },
      { 'x-promptline-operator': TOKEN },
      {},
    ];
    for (const headers of refused) {
      expect((await cliApp.request('GET', '/keys', { key: null, headers })).status).toBe(422);
    }
    const operator = { 'x-promptline-operator': TOKEN, 'x-promptline-project': projectId };
    const created = await cliApp.request('POST', '/keys', { key: null, headers: operator, body: { name: 'from-cli', role: 'read' } });
    expect(created.status).toBe(201);
    // Attributed to the CLI, which uses no key, as the CLI's changes always were.
    const audit = await cliApp.request('GET', '/audit?action=key.created&limit=1');
    expect(audit.json.data[0]).toMatchObject({ key_id: null, key_name: 'cli', target_id: created.json.key_id });
    // A session is a key's: the keyless caller has none.
    expect((await cliApp.request('GET', '/session', { key: null, headers: operator })).status).toBe(409);
  });
});

describe('connect', () => {
  it.each([
    [{ PROMPTLINE_URL: 'http://127.0.0.1:1' }, {}, '--url (PROMPTLINE_URL) needs --api-key (PROMPTLINE_API_KEY): the key to call it with'],
    [{ PROMPTLINE_API_KEY: 'pl_a_x' }, {}, '--api-key (PROMPTLINE_API_KEY) needs --url (PROMPTLINE_URL): the server to call'],
    [{ PROMPTLINE_URL: 'localhost:8000', PROMPTLINE_API_KEY: 'pl_a_x' }, {}, '--url (PROMPTLINE_URL) must be an http:// or https:// URL, not "localhost:8000"'],
    [
      { PROMPTLINE_URL: 'http://127.0.0.1:1', PROMPTLINE_API_KEY: 'pl_a_x' },
      { project: 'acme' },
      "--project is for the local database: over HTTP the project is the API key's (leave --project out)",
    ],
  ])('refuses %j with %j', async (env, options, message) => {
    Object.assign(process.env, env);
    await expect(connect(options)).rejects.toThrow(message);
  });

  it('over HTTP: the answers of the server, its errors as ApiError', async () => {
    Object.assign(process.env, { PROMPTLINE_URL: 'http://127.0.0.1:1', PROMPTLINE_API_KEY: 'pl_a_x' });
    const { api } = await connect();
    expect(api.target).toBe('http://127.0.0.1:1');
    await expect(api.request('GET', '/keys')).rejects.toThrow(/^cannot reach http:\/\/127\.0\.0\.1:1: /);
  });

  // The local database through the environment: a SQLite folder (the PostgreSQL suite reaches it the same way, by URL).
  it.skipIf(testBackend() === 'postgres')('locally: the app in-process on the database, with the errors the services throw', async () => {
    const server = await app();
    process.env.PROMPTLINE_DATA_DIR = server.dataDir;
    await expect(connect({ project: 'nope' })).rejects.toThrow('project "nope" not found');
    const connection = await connect();
    try {
      const created = await connection.api.request<{ key_id: string }>('POST', '/keys', { body: { name: 'local', role: 'runtime' } });
      const listed = await connection.api.request<{ data: { key_id: string }[] }>('GET', '/keys');
      expect(listed.data.map((k) => k.key_id)).toContain(created.key_id);
      // An ApiError with the answer's status, worded as the service's own error (the CLI prints it as it always has).
      const missing = connection.api.request('GET', '/experiments/nope');
      await expect(missing).rejects.toMatchObject({ name: 'ApiError', status: 404, message: "Experiment 'nope' not found" });
      // What the edge refuses before any service is an ApiError with the API's detail.
      await expect(connection.api.request('GET', '/experiments', { query: { status: 'bogus' } })).rejects.toBeInstanceOf(ApiError);
    } finally {
      await connection.close();
    }
  });
});
