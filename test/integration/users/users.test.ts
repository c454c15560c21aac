import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenExperiment, givenPrompt } from '../../support/fixtures.js';

/** DELETE /users/{external_user_id}: erasure of one user, with experiment counts kept right. */
let t: TestApp;
let runtime: string;
let aliceRun: string;
const SECRETS = ['Alice Liddell', 'call me on 555-0100', 'alice@example.com'];

const everyText = async () =>
  JSON.stringify([
    await t.store.sql.all('SELECT * FROM runs'),
    await t.store.sql.all('SELECT * FROM outcomes'),
    await t.store.sql.all('SELECT * FROM assignments'),
    await t.store.sql.all('SELECT * FROM idempotency_keys'),
  ]);
/** The experiment's report, but for when it was made. */
const results = async () => {
  const { generated_at: _, ...rest } = (await t.request('GET', '/experiments/ux/results?explore=true')).json;
  return rest;
};

beforeAll(async () => {
  t = await startTestApp();
  runtime = await t.keyFor('runtime');
  await givenPrompt(t, { prompt_id: 'up', template: 'Hello {{name}}', versions: ['Hi {{name}}'] });
  await givenExperiment(t, { experiment_id: 'ux', prompt_id: 'up', metrics: [{ event_type: 'rate', kind: 'mean', role: 'primary' }], start: true });
  for (const [user, name] of [
    ['alice', SECRETS[0]],
    ['bob', 'Bob'],
  ] as const) {
    const run = await t.request('POST', '/run_prompt', {
      key: runtime,
      headers: { 'idempotency-key': `run-${user}` },
      body: { prompt_id: 'up', inputs: { name }, external_user_id: user },
    });
    expect(run.status).toBe(200);
    if (user === 'alice') aliceRun = run.json.run_id;
    const metadata = user === 'alice' ? { email: SECRETS[2] } : { email: 'bob@example.com' };
    const value = user === 'alice' ? SECRETS[1] : 'fine';
    await t.request('POST', '/track_outcome', {
      key: runtime,
      body: { prompt_id: 'up', external_user_id: user, event_type: 'rate', numeric_value: 4, is_success: true, value, metadata },
    });
    // Attributed through the run alone: no user id on the outcome itself.
    await t.request('POST', '/track_outcome', {
      key: runtime,
      body: { prompt_id: 'up', prompt_run_id: run.json.run_id, event_type: 'note', value: `${value} again` },
    });
  }
});
afterAll(async () => t.cleanup());

describe('DELETE /users/{external_user_id}', () => {
  it("answers 404 to another project's admin, and leaves this project's user as they were", async () => {
    const other = await t.keyFor('admin', 'elsewhere');
    const res = await t.request('DELETE', '/users/alice', { key: other });
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ detail: "User 'alice' not found" });
    for (const secret of SECRETS) expect(await everyText()).toContain(secret);
  });

  it('erases the text, files the numbers under a random alias, and keeps experiment results the same', async () => {
    const before = await results();
    const res = await t.request('DELETE', '/users/alice');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      external_user_id: 'alice',
      alias: expect.stringMatching(/^forgotten_[0-9a-f]{32}$/),
      runs: 1,
      outcomes: 2,
      assignments: 1,
      idempotency_records: 1,
    });
    const dump = await everyText();
    for (const secret of SECRETS) expect(dump).not.toContain(secret);
    expect(dump).not.toContain('"alice"');
    expect(dump).toContain(res.json.alias);
    expect(dump).toContain('bob@example.com'); // nobody else is touched

    const run = (await t.request('GET', `/runs/${aliceRun}`)).json;
    expect(run).toMatchObject({ inputs: {}, output: null, external_user_id: res.json.alias, status: 'ok' });
    expect(run.total_tokens).toBeGreaterThan(0);
    expect((await t.request('GET', '/runs?external_user_id=alice')).json.data).toEqual([]);
    expect((await t.request('GET', '/outcomes?external_user_id=alice')).json.data).toEqual([]);
    expect(await results()).toEqual(before);
  });

  it('finds nothing the second time: 404, as for any user the project holds nothing about', async () => {
    const res = await t.request('DELETE', '/users/alice');
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ detail: "User 'alice' not found" });
  });

  it('a user who comes back is a new user', async () => {
    const again = await t.request('POST', '/get_prompt', { key: runtime, body: { prompt_id: 'up', inputs: { name: 'x' }, external_user_id: 'alice' } });
    expect(again.status).toBe(200);
    expect(await t.store.sql.value(`SELECT count(*) FROM assignments WHERE external_user_id = 'alice'`)).toBe(1);
  });

  it('rejects an id longer than the runtime endpoints accept, and changes nothing', async () => {
    const before = await everyText();
    const res = await t.request('DELETE', `/users/${'x'.repeat(300)}`);
    expect(res.status).toBe(422);
    expect(res.json.detail[0].loc).toEqual(['path', 'external_user_id']);
    expect(await everyText()).toBe(before);
  });

  it.each([
    ['no key', null, 422],
    ['an unknown key', 'pl_a_unknown-key-0000000000000000000000', 401],
  ] as const)('needs a valid key: %s', async (_name, key, status) => {
    expect((await t.request('DELETE', '/users/bob', { key })).status).toBe(status);
    expect(await everyText()).toContain('bob@example.com');
  });

  it.each(['runtime', 'read'] as const)('needs an admin key: %s gets 403', async (role) => {
    const res = await t.request('DELETE', '/users/bob', { key: await t.keyFor(role) });
    expect(res.status).toBe(403);
    expect(await everyText()).toContain('bob@example.com');
  });
});
