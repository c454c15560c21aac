import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/harness.js';
import { givenPrompt } from '../support/fixtures.js';

// One client cannot take the service for itself: per-key request budgets and a per-address budget
// of failed keys, both answered 429 with Retry-After.
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ PROMPTLINE_RATE_LIMIT_PER_MINUTE: '5', PROMPTLINE_AUTH_FAILURES_PER_MINUTE: '4' });
  // The default applies to every key, the bootstrap admin key too: the test's own key is exempted.
  const admin = (await t.request('GET', '/keys')).json.data.find((k: { name: string }) => k.name === 'bootstrap');
  expect((await t.request('PATCH', `/keys/${admin.key_id}`, { body: { rate_limit_per_minute: 0 } })).status).toBe(200);
  await givenPrompt(t);
});
afterAll(async () => t.cleanup());

const get = (key: string, from = '127.0.0.1') => t.request('POST', '/get_prompt', { key, from, body: { prompt_id: 'p', inputs: { name: 'A' } } });
const statuses = async (n: number, call: () => Promise<{ status: number }>) => {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await call()).status);
  return out;
};

describe('per-key rate limits', () => {
  it('a key with its own limit gets 429 with Retry-After beyond it; other keys are unaffected', async () => {
    const created = await t.request('POST', '/keys', { body: { name: 'app', role: 'runtime', rate_limit_per_minute: 3 } });
    expect(created.json.rate_limit_per_minute).toBe(3);
    expect(await statuses(4, () => get(created.json.key))).toEqual([200, 200, 200, 429]);
    const limited = await get(created.json.key);
    expect(limited.json).toEqual({ detail: 'Rate limit exceeded: 3 requests per minute for this API key' });
    expect(limited.headers['retry-after']).toBe('20');
    const other = await t.request('POST', '/keys', { body: { name: 'other', role: 'runtime', rate_limit_per_minute: 3 } });
    expect((await get(other.json.key)).status).toBe(200);
  });

  it('follows the server default when the key has none, and PATCH changes it on the next request', async () => {
    const created = await t.request('POST', '/keys', { body: { name: 'default-limit', role: 'runtime' } });
    expect(created.json.rate_limit_per_minute).toBeNull();
    expect(await statuses(6, () => get(created.json.key))).toEqual([200, 200, 200, 200, 200, 429]);
    const unlimited = await t.request('PATCH', `/keys/${created.json.key_id}`, { body: { rate_limit_per_minute: 0 } });
    expect(unlimited.status).toBe(200);
    expect(unlimited.json).toMatchObject({ key_id: created.json.key_id, name: 'default-limit', rate_limit_per_minute: 0 });
    expect(await statuses(10, () => get(created.json.key))).toEqual(Array(10).fill(200));
    const renamed = await t.request('PATCH', `/keys/${created.json.key_id}`, { body: { name: 'renamed' } });
    expect(renamed.json).toMatchObject({ name: 'renamed', rate_limit_per_minute: 0 });
    expect((await t.request('GET', '/keys')).json.data.find((k: { key_id: string }) => k.key_id === created.json.key_id).name).toBe('renamed');
  });
});

describe('PATCH /keys/{key_id}', () => {
  let target: string;
  beforeAll(async () => {
    target = (await t.request('POST', '/keys', { body: { name: 'target', role: 'read' } })).json.key_id;
  });

  it('rejects bad input with pydantic items and changes nothing', async () => {
    const res = await t.request('PATCH', `/keys/${target}`, { body: { rate_limit_per_minute: -1, role: 'admin' } });
    expect(res.status).toBe(422);
    expect(res.json.detail.map((d: { type: string; loc: string[] }) => [d.type, d.loc.join('.')])).toEqual([
      ['greater_than_equal', 'body.rate_limit_per_minute'],
      ['extra_forbidden', 'body.role'],
    ]);
    expect((await t.request('GET', '/keys')).json.data.find((k: { key_id: string }) => k.key_id === target)).toMatchObject({
      name: 'target',
      rate_limit_per_minute: null,
      role: 'read',
    });
  });

  it('needs a key (422), a valid one (401), the admin role (403), and a key of this project (404)', async () => {
    expect((await t.request('PATCH', `/keys/${target}`, { key: null, body: { name: 'x' } })).status).toBe(422);
    expect((await t.request('PATCH', `/keys/${target}`, { key: 'pl_a_wrong', from: '10.9.9.9', body: { name: 'x' } })).status).toBe(401);
    expect((await t.request('PATCH', `/keys/${target}`, { key: await t.keyFor('read'), body: { name: 'x' } })).status).toBe(403);
    const other = await t.request('PATCH', `/keys/${target}`, { key: await t.keyFor('admin', 'other'), body: { name: 'x' } });
    expect(other.status).toBe(404);
    expect(other.json).toEqual({ detail: `API key '${target}' not found` });
  });
});

describe('failed keys are throttled per client address', () => {
  it('after the budget of invalid keys an address gets 429 for invalid keys, and 200 for valid ones', async () => {
    const from = '198.51.100.7';
    expect(await statuses(4, () => get('pl_r_guess', from))).toEqual([401, 401, 401, 401]);
    const throttled = await get('pl_r_guess-again', from);
    expect(throttled.status).toBe(429);
    expect(throttled.json.detail).toMatch(/^Too many invalid API keys from this address: try again in \d+ s$/);
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
    // Another address is not affected; nor is an application behind the same address, whether this
    // server has seen its key before or not (a cache drop must not lock it out).
    expect((await get('pl_r_guess', '198.51.100.8')).status).toBe(401);
    const app = await t.keyFor('runtime');
    expect((await get(app)).status).toBe(200);
    expect((await get(app, from)).status).toBe(200);
    const unseen = (await t.request('POST', '/keys', { body: { name: 'behind-the-guesser', role: 'runtime', rate_limit_per_minute: 0 } })).json.key;
    expect((await get(unseen, from)).status).toBe(200);
    t.keys.invalidate(); // what another process's commit does on SQLite
    expect((await get(app, from)).status).toBe(200);
    expect((await get('pl_r_guess-once-more', from)).status).toBe(429);
  });

  it('counts an IPv6 client by its /64', async () => {
    expect(await statuses(4, () => get('pl_r_guess', '2001:db8:77:1::1'))).toEqual([401, 401, 401, 401]);
    expect((await get('pl_r_guess', '2001:db8:77:1::ffff')).status).toBe(429);
    expect((await get('pl_r_guess', '2001:db8:77:2::1')).status).toBe(401);
  });
});
