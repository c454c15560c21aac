import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Answer, type TestApp } from '../../support/harness.js';

// The console's sign-in (docs/console.md, "Signing in"): a read or admin key exchanged for an
// HttpOnly session cookie, which then authenticates read and admin routes, never runtime ones;
// writes with it need the server's own Origin; sign-out, revocation and expiry end it.
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.cleanup());

/** app.inject's requests come to this host, so this is the server's own origin for them. */
const ORIGIN = 'http://localhost:80';

function setCookie(res: Answer): string {
  const header = res.headers['set-cookie'];
  expect(typeof header, 'one Set-Cookie header').toBe('string');
  return header as string;
}

/** Signs in with `key`; answers the Cookie header value the browser would send back. */
async function signIn(key: string): Promise<{ cookie: string; token: string; res: Answer }> {
  const res = await t.request('POST', '/session', { key });
  expect(res.status).toBe(201);
  const token = /^promptline_session=([^;]+);/.exec(setCookie(res))![1]!;
  return { cookie: `promptline_session=${token}`, token, res };
}

const withCookie = (cookie: string, method: string, url: string, options: { body?: unknown; origin?: string | null } = {}) =>
  t.request(method, url, {
    key: null,
    body: options.body,
    headers: { cookie, ...(options.origin === null ? {} : { origin: options.origin ?? ORIGIN }) },
  });

async function newKey(role: 'read' | 'admin' | 'runtime', expiresAt?: string): Promise<{ key: string; key_id: string }> {
  const res = await t.request('POST', '/keys', { body: { name: `session-${role}`, role, ...(expiresAt ? { expires_at: expiresAt } : {}) } });
  expect(res.status).toBe(201);
  return res.json;
}

describe('signing in', () => {
  it('exchanges a read key for an HttpOnly, SameSite=Strict cookie that lasts 12 hours and reads the API', async () => {
    const read = await newKey('read');
    const before = Date.now();
    const { res, cookie } = await signIn(read.key);
    expect(setCookie(res)).toMatch(/^promptline_session=pl_s_[A-Za-z0-9_-]{43}; Path=\/; Max-Age=43200; HttpOnly; SameSite=Strict$/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.json).toMatchObject({ key_id: read.key_id, role: 'read', authenticated_by: 'session', key_name: 'session-read' });
    expect(res.json.key_prefix).toBe(`${read.key.slice(0, 10)}…`);
    const expires = Date.parse(res.json.expires_at);
    expect(expires - before).toBeGreaterThanOrEqual(12 * 3600_000 - 1000);
    expect(expires - Date.now()).toBeLessThanOrEqual(12 * 3600_000);

    const prompts = await withCookie(cookie, 'GET', '/prompts', { origin: null });
    expect(prompts.status).toBe(200);
    const me = await withCookie(cookie, 'GET', '/session', { origin: null });
    expect(me.status).toBe(200);
    expect(me.json).toEqual({ ...res.json });
  });

  it('a session never outlives its key: the cookie and the session end at the key expiry', async () => {
    const expiry = new Date(Date.now() + 3600_000).toISOString();
    const read = await newKey('read', expiry);
    const { res } = await signIn(read.key);
    expect(res.json.expires_at).toBe(expiry);
    const maxAge = Number(/Max-Age=(\d+)/.exec(setCookie(res))![1]);
    expect(maxAge).toBeGreaterThan(3500);
    expect(maxAge).toBeLessThanOrEqual(3600);
  });

  it('marks the cookie Secure when the request came over https through a trusted proxy', async () => {
    const proxied = await startTestApp({ PROMPTLINE_TRUST_PROXY: '127.0.0.1' });
    try {
      const res = await proxied.request('POST', '/session', { headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'console.example' } });
      expect(res.status).toBe(201);
      expect(setCookie(res)).toMatch(/; HttpOnly; SameSite=Strict; Secure$/);
      const cookie = setCookie(res).split(';')[0]!;
      // Its own origin is then the one the browser saw: https://console.example.
      const write = (origin: string) =>
        proxied.request('POST', '/prompts', {
          key: null,
          body: { prompt_id: `p${origin.length}`, template: 'Hi' },
          headers: { cookie, origin, 'x-forwarded-proto': 'https', 'x-forwarded-host': 'console.example' },
        });
      expect((await write('http://localhost:80')).status).toBe(403);
      expect((await write('https://console.example')).status).toBe(201);
    } finally {
      await proxied.cleanup();
    }
  });

  it('stores only the hash of the token', async () => {
    const { token } = await signIn(await t.keyFor('read'));
    const hash = createHash('sha256').update(token).digest('hex');
    const rows = await t.store.sql.all<{ token_hash: string }>('SELECT token_hash FROM console_sessions');
    expect(rows.map((r) => r.token_hash)).toContain(hash);
    expect(JSON.stringify(rows)).not.toContain(token);
  });

  it('refuses a runtime key (403), an unknown key (401) and no key (422), and sets no cookie', async () => {
    const runtime = await t.request('POST', '/session', { key: await t.keyFor('runtime') });
    expect([runtime.status, runtime.json]).toEqual([403, { detail: 'Not allowed for this API key' }]);
    const unknown = await t.request('POST', '/session', { key: 'pl_a_not-a-key', from: '198.18.1.1' });
    expect([unknown.status, unknown.json]).toEqual([401, { detail: 'Invalid API key' }]);
    const none = await t.request('POST', '/session', { key: null });
    expect(none.status).toBe(422);
    for (const res of [runtime, unknown, none]) expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('a session cannot start another: POST /session needs X-API-Key', async () => {
    const { cookie } = await signIn(await t.keyFor('admin'));
    const res = await withCookie(cookie, 'POST', '/session');
    expect(res.status).toBe(422);
    expect(res.json.detail[0].loc).toEqual(['header', 'x-api-key']);
  });
});

describe('what a session may do', () => {
  it("acts as its key: an admin session writes (with this server's Origin), a read session gets 403 on admin routes", async () => {
    const admin = await signIn(await t.keyFor('admin'));
    const created = await withCookie(admin.cookie, 'POST', '/prompts', { body: { prompt_id: 'by-session', template: 'Hi {{name}}' } });
    expect(created.status).toBe(201);
    const audit = await t.request('GET', '/audit?target_type=prompt&target_id=by-session');
    expect(audit.json.data[0].key_name).toBe('test-admin');

    const read = await signIn(await t.keyFor('read'));
    const refused = await withCookie(read.cookie, 'POST', '/prompts', { body: { prompt_id: 'by-read', template: 'Hi' } });
    expect([refused.status, refused.json]).toEqual([403, { detail: 'Not allowed for this API key' }]);
  });

  it("authenticates only the playground's runtime endpoints (get_prompt, run_prompt): the others keep needing X-API-Key", async () => {
    expect((await t.request('POST', '/prompts', { body: { prompt_id: 'served', template: 'Hi {{name}}', labels: ['production'] } })).status).toBe(201);
    const { cookie } = await signIn(await t.keyFor('read'));
    const served = await withCookie(cookie, 'POST', '/get_prompt', { body: { prompt_id: 'served', inputs: { name: 'Ada' } } });
    expect([served.status, served.json.prompt_text]).toEqual([200, 'Hi Ada']);
    const crossSite = await withCookie(cookie, 'POST', '/run_prompt', { body: { prompt_id: 'served', inputs: { name: 'Ada' } }, origin: null });
    expect(crossSite.status).toBe(403);
    const outcome = await withCookie(cookie, 'POST', '/track_outcome', { body: { prompt_id: 'served', metric: 'm', value: 1, external_user_id: 'u' } });
    expect(outcome.status).toBe(422);
    expect(outcome.json.detail[0].loc).toEqual(['header', 'x-api-key']);
  });

  it('X-API-Key wins over a cookie, whatever the cookie holds', async () => {
    const res = await t.request('GET', '/prompts', { headers: { cookie: 'promptline_session=pl_s_nonsense' } });
    expect(res.status).toBe(200);
  });

  it('an unknown token is 401, and the answer clears the cookie', async () => {
    const res = await withCookie('promptline_session=pl_s_not-a-session', 'GET', '/prompts', { origin: null });
    expect([res.status, res.json]).toEqual([401, { detail: 'Session expired or ended: sign in again' }]);
    expect(setCookie(res)).toMatch(/^promptline_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Strict$/);
  });
});

describe('cross-site requests', () => {
  it('refuses a write authenticated by the cookie without Origin, or with another origin (403)', async () => {
    const { cookie } = await signIn(await t.keyFor('admin'));
    for (const origin of [null, 'https://evil.example', 'http://localhost:8080', 'null']) {
      const res = await withCookie(cookie, 'POST', '/prompts', { body: { prompt_id: 'csrf', template: 'Hi' }, origin });
      expect([origin, res.status]).toEqual([origin, 403]);
      expect(res.json.detail).toMatch(/^Cross-site request refused/);
    }
    const signOut = await withCookie(cookie, 'DELETE', '/session', { origin: null });
    expect(signOut.status).toBe(403);
    expect((await t.request('GET', '/prompts/csrf')).status).toBe(404);
    // Reads need no Origin (a link followed, a page reloaded).
    expect((await withCookie(cookie, 'GET', '/session', { origin: null })).status).toBe(200);
  });
});

describe('how a session ends', () => {
  it('sign-out ends it server-side and clears the cookie; the old cookie no longer works', async () => {
    const { cookie } = await signIn(await t.keyFor('read'));
    const out = await withCookie(cookie, 'DELETE', '/session');
    expect(out.status).toBe(204);
    expect(setCookie(out)).toMatch(/^promptline_session=; Path=\/; Max-Age=0;/);
    const after = await withCookie(cookie, 'GET', '/prompts', { origin: null });
    expect([after.status, after.json]).toEqual([401, { detail: 'Session expired or ended: sign in again' }]);
  });

  it('sign-out with X-API-Key ends nothing and clears the cookie', async () => {
    const res = await t.request('DELETE', '/session', { key: await t.keyFor('read') });
    expect(res.status).toBe(204);
    expect(setCookie(res)).toMatch(/Max-Age=0/);
  });

  it('revoking its key ends the session on the next request', async () => {
    const read = await newKey('read');
    const { cookie } = await signIn(read.key);
    expect((await withCookie(cookie, 'GET', '/prompts', { origin: null })).status).toBe(200);
    expect((await t.request('DELETE', `/keys/${read.key_id}`)).status).toBe(204);
    expect((await withCookie(cookie, 'GET', '/prompts', { origin: null })).status).toBe(401);
  });

  it('its key expiring ends the session', async () => {
    const read = await newKey('read', new Date(Date.now() + 3600_000).toISOString());
    const { cookie } = await signIn(read.key);
    await t.store.writer.write((db) => db.run('UPDATE api_keys SET expires_at = ? WHERE id = ?', ['2000-01-01T00:00:00.000Z', read.key_id]));
    t.keys.invalidate();
    expect((await withCookie(cookie, 'GET', '/prompts', { origin: null })).status).toBe(401);
  });

  it('a session past its expiry is refused', async () => {
    const { cookie, token } = await signIn(await t.keyFor('read'));
    const hash = createHash('sha256').update(token).digest('hex');
    await t.store.writer.write((db) => db.run('UPDATE console_sessions SET expires_at = ? WHERE token_hash = ?', ['2000-01-01T00:00:00.000Z', hash]));
    const res = await withCookie(cookie, 'GET', '/session', { origin: null });
    expect([res.status, res.json]).toEqual([401, { detail: 'Session expired or ended: sign in again' }]);
  });
});

describe('GET /session with X-API-Key', () => {
  it("says who the key is, with the key's own expiry", async () => {
    const res = await t.request('GET', '/session', { key: await t.keyFor('admin') });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ role: 'admin', authenticated_by: 'api_key', expires_at: null, key_name: 'test-admin' });
  });
});
