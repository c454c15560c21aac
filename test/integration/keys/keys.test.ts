import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startTestApp, type TestApp } from '../../support/harness.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.cleanup());

describe('POST /keys', () => {
  it('creates a key shown once, stored only as a hash, usable at once with its role', async () => {
    const res = await t.request('POST', '/keys', { body: { name: 'app', role: 'runtime' } });
    expect(res.status).toBe(201);
    expect(res.headers['content-type']).toBe('application/json');
    expect(Object.keys(res.json)).toEqual(['key_id', 'name', 'role', 'key_prefix', 'created_at', 'expires_at', 'revoked_at', 'rate_limit_per_minute', 'key']);
    expect(res.json.key).toMatch(/^pl_r_[A-Za-z0-9_-]{43}$/);
    expect(res.json.key_id).toMatch(/^key_[0-9a-f]{32}$/);
    const stored = (await t.store.sql.get<Record<string, string>>('SELECT * FROM api_keys WHERE id = ?', [res.json.key_id]))!;
    expect(JSON.stringify(stored)).not.toContain(res.json.key);
    expect(stored.key_hash).toMatch(/^[0-9a-f]{64}$/);
    // A runtime key reaches the runtime endpoints (404 for an unknown prompt), not management.
    expect((await t.request('POST', '/get_prompt', { key: res.json.key, body: { prompt_id: 'nope' } })).status).toBe(404);
    expect((await t.request('GET', '/keys', { key: res.json.key })).json).toEqual({ detail: 'Not allowed for this API key' });
  });

  it('uses the role letter in the key text', async () => {
    for (const [role, letter] of [
      ['read', 'v'],
      ['admin', 'a'],
    ] as const) {
      const res = await t.request('POST', '/keys', { body: { name: role, role } });
      expect(res.json.key.startsWith(`pl_${letter}_`)).toBe(true);
    }
  });

  it('rejects bad input with pydantic-style items and stores nothing', async () => {
    const before = await t.store.sql.value('SELECT count(*) FROM api_keys');
    const res = await t.request('POST', '/keys', { body: { name: '', role: 'root', extra: 1 } });
    expect(res.status).toBe(422);
    expect(res.json.detail.map((d: { type: string }) => d.type)).toEqual(['string_too_short', 'literal_error', 'extra_forbidden']);
    expect(await t.store.sql.value('SELECT count(*) FROM api_keys')).toBe(before);
  });

  it('refuses an expires_at that is not a date or not in the future, and an expired key stops working', async () => {
    const before = await t.store.sql.value('SELECT count(*) FROM api_keys');
    expect((await t.request('POST', '/keys', { body: { name: 'x', role: 'read', expires_at: 'soon' } })).status).toBe(422);
    const past = await t.request('POST', '/keys', { body: { name: 'old', role: 'read', expires_at: '2000-01-01T00:00:00Z' } });
    expect(past.status).toBe(422);
    expect(past.json.detail).toEqual([
      {
        type: 'value_error',
        loc: ['body', 'expires_at'],
        msg: 'Value error, expires_at must be in the future',
        input: '2000-01-01T00:00:00Z',
        ctx: { error: 'expires_at must be in the future' },
      },
    ]);
    expect(await t.store.sql.value('SELECT count(*) FROM api_keys')).toBe(before);
    const future = await t.request('POST', '/keys', { body: { name: 'soon', role: 'read', expires_at: '2999-01-01T01:00:00+01:00' } });
    expect(future.status).toBe(201);
    expect(future.json.expires_at).toBe('2999-01-01T00:00:00.000Z');
    expect((await t.request('GET', '/prompts', { key: await t.expiredKey('read') })).status).toBe(401);
  });

  it('needs an admin key', async () => {
    expect((await t.request('POST', '/keys', { key: await t.keyFor('runtime'), body: { name: 'x', role: 'read' } })).status).toBe(403);
    expect((await t.request('POST', '/keys', { key: 'pl_a_wrong', body: { name: 'x', role: 'read' } })).json).toEqual({ detail: 'Invalid API key' });
    const missing = await t.request('POST', '/keys', { key: null, body: { name: 'x', role: 'read' } });
    expect(missing.text).toBe('{"detail":[{"type":"missing","loc":["header","x-api-key"],"msg":"Field required","input":null}]}');
  });
});

describe('GET /keys and DELETE /keys/{key_id}', () => {
  it("lists keys of the caller's project without secrets", async () => {
    const res = await t.request('GET', '/keys');
    expect(res.status).toBe(200);
    expect(res.json.data.length).toBeGreaterThan(0);
    for (const key of res.json.data) {
      expect(key).not.toHaveProperty('key');
      expect(key).not.toHaveProperty('key_hash');
    }
    expect(res.text).not.toContain(ADMIN_KEY);
  });

  it('revokes a key, effective on the very next request', async () => {
    const created = (await t.request('POST', '/keys', { body: { name: 'temp', role: 'read' } })).json;
    expect((await t.request('GET', '/prompts', { key: created.key })).status).toBe(200);
    const del = await t.request('DELETE', `/keys/${created.key_id}`);
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expect((await t.request('GET', '/prompts', { key: created.key })).status).toBe(401);
    const listed = (await t.request('GET', '/keys')).json.data.find((k: { key_id: string }) => k.key_id === created.key_id);
    expect(listed.revoked_at).not.toBeNull();
  });

  it("answers 404 for an unknown key id and for another project's key id", async () => {
    expect((await t.request('DELETE', '/keys/key_unknown')).json).toEqual({ detail: "API key 'key_unknown' not found" });
    const otherAdmin = await t.keyFor('admin', 'other');
    const theirs = (await t.request('POST', '/keys', { key: otherAdmin, body: { name: 'theirs', role: 'read' } })).json;
    expect((await t.request('DELETE', `/keys/${theirs.key_id}`)).status).toBe(404);
    expect((await t.request('GET', '/keys')).json.data.some((k: { key_id: string }) => k.key_id === theirs.key_id)).toBe(false);
    expect((await t.request('GET', '/prompts', { key: theirs.key })).status).toBe(200);
  });
});
