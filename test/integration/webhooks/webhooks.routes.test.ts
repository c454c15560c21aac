import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenPrompt } from '../../support/fixtures.js';
import { startReceiver } from '../../support/webhookReceiver.js';

/** /webhooks: registering endpoints (admin), their validation, the destination check, roles and projects. */
let t: TestApp;
const HOOK = 'http://127.0.0.1:9/hook';
const count = async (table: string) => (await t.store.sql.value<number>(`SELECT count(*) FROM ${table}`)) as number;

beforeAll(async () => {
  t = await startTestApp({ PROMPTLINE_WEBHOOKS_ALLOW_PRIVATE: 'on' });
});
afterAll(async () => t.cleanup());

describe('managing webhook endpoints', () => {
  it('creates one with its secret shown once, then lists, reads, changes and deletes it, each audited', async () => {
    const created = await t.request('POST', '/webhooks', {
      body: { url: HOOK, events: ['prompt.label_moved', 'experiment.stopped', 'prompt.label_moved'], description: 'deploy bot' },
    });
    expect(created.status).toBe(201);
    const id = created.json.webhook_id as string;
    expect(created.json).toEqual({
      webhook_id: expect.stringMatching(/^whk_[0-9a-f]{32}$/),
      url: HOOK,
      events: ['prompt.label_moved', 'experiment.stopped'], // a repeated event means once
      description: 'deploy bot',
      enabled: true,
      created_at: expect.any(String),
      updated_at: created.json.created_at,
      secret: expect.stringMatching(/^whsec_/),
    });
    const { secret, ...view } = created.json;
    expect((await t.request('GET', `/webhooks/${id}`)).json).toEqual(view);
    expect((await t.request('GET', '/webhooks')).json).toEqual({ data: [view] });
    expect(JSON.stringify((await t.request('GET', '/webhooks')).json)).not.toContain(secret);

    const patched = await t.request('PATCH', `/webhooks/${id}`, { body: { events: ['experiment.srm_detected'], enabled: false } });
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({ events: ['experiment.srm_detected'], enabled: false, url: HOOK, description: 'deploy bot' });

    const rotated = await t.request('POST', `/webhooks/${id}/rotate_secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.json.secret).toMatch(/^whsec_/);
    expect(rotated.json.secret).not.toBe(secret);

    expect((await t.request('DELETE', `/webhooks/${id}`)).status).toBe(204);
    expect((await t.request('GET', `/webhooks/${id}`)).status).toBe(404);
    expect((await t.request('DELETE', `/webhooks/${id}`)).json).toEqual({ detail: `Webhook '${id}' not found` });

    const audit = (await t.request('GET', `/audit?target_type=webhook&target_id=${id}`)).json.data;
    expect(audit.map((e: { action: string }) => e.action)).toEqual(['webhook.deleted', 'webhook.secret_rotated', 'webhook.updated', 'webhook.created']);
    expect(JSON.stringify(audit)).not.toMatch(/whsec_/); // the secret is never in the log
  });

  it('answers bad input with one 422 listing every problem, and stores nothing', async () => {
    const before = [await count('webhooks'), await count('audit_log')];
    const cases: Array<[unknown, unknown[][]]> = [
      [{ events: ['prompt.label_moved'] }, [['body', 'url']]],
      [{ url: HOOK, events: [] }, [['body', 'events']]],
      [{ url: HOOK, events: ['prompt.deleted'] }, [['body', 'events', 0]]],
      [{ url: HOOK, events: ['prompt.label_moved'], secret: 'mine' }, [['body', 'secret']]],
      [{ url: 'ftp://example.com/x', events: ['prompt.label_moved'] }, [['body', 'url']]],
      [{ url: 'https://u:p@example.com/x', events: ['prompt.label_moved'] }, [['body', 'url']]],
      [{ url: 'not a url', events: ['prompt.label_moved'] }, [['body', 'url']]],
    ];
    for (const [body, locs] of cases) {
      const res = await t.request('POST', '/webhooks', { body });
      expect([body, res.status]).toEqual([body, 422]);
      expect(res.json.detail.map((d: { loc: unknown[] }) => d.loc.slice(0, locs[0]!.length))).toEqual(locs);
    }
    const bad = await t.request('POST', '/webhooks', { body: { url: 'ftp://example.com/x', events: ['prompt.label_moved'] } });
    expect(bad.json.detail[0].msg).toContain('the scheme must be https or http, not ftp');
    expect([await count('webhooks'), await count('audit_log')]).toEqual(before);
  });

  it('an unknown or empty change to an existing endpoint is refused the same way', async () => {
    const id = (await t.request('POST', '/webhooks', { body: { url: HOOK, events: ['prompt.label_moved'] } })).json.webhook_id;
    const res = await t.request('PATCH', `/webhooks/${id}`, { body: { url: 'gopher://x', events: [] } });
    expect(res.status).toBe(422);
    expect((await t.request('GET', `/webhooks/${id}`)).json).toMatchObject({ url: HOOK, events: ['prompt.label_moved'] });
  });

  it('is for admins only, and another project never sees an endpoint', async () => {
    const id = (await t.request('POST', '/webhooks', { body: { url: HOOK, events: ['prompt.label_moved'] } })).json.webhook_id;
    // A read key is the authorization matrix's case; a runtime key, two roles below, is refused too.
    const runtime = await t.keyFor('runtime');
    expect((await t.request('GET', '/webhooks', { key: runtime })).status).toBe(403);
    expect((await t.request('POST', '/webhooks', { key: runtime, body: { url: HOOK, events: ['prompt.label_moved'] } })).status).toBe(403);
    expect((await t.request('GET', '/webhooks', { key: 'pl_a_nope' })).status).toBe(401);
    const other = await t.keyFor('admin', 'other');
    expect((await t.request('GET', '/webhooks', { key: other })).json).toEqual({ data: [] });
    for (const [method, path] of [
      ['GET', ''],
      ['PATCH', ''],
      ['DELETE', ''],
      ['POST', '/rotate_secret'],
      ['POST', '/test'],
      ['GET', '/deliveries'],
    ] as const) {
      const res = await t.request(method, `/webhooks/${id}${path}`, { key: other, ...(method === 'PATCH' ? { body: { enabled: false } } : {}) });
      expect([method, path, res.status]).toEqual([method, path, 404]);
    }
    expect((await t.request('GET', `/webhooks/${id}`)).json.enabled).toBe(true);
  });
});

describe('destinations (server-side request forgery)', () => {
  let strict: TestApp;
  beforeAll(async () => {
    strict = await startTestApp({}, { webhookTimers: false });
  });
  afterAll(async () => strict.cleanup());

  it.each([
    ['http://127.0.0.1:8080/hook', '127.0.0.1 is a loopback address'],
    ['http://localhost:8080/hook', 'localhost resolves to'],
    ['http://[::1]/hook', '::1 is a loopback address'],
    ['http://10.0.0.5/hook', '10.0.0.5 is a private address'],
    ['http://169.254.169.254/latest/meta-data/', '169.254.169.254 is a linkLocal address'],
    ['http://[::ffff:192.168.0.1]/hook', 'is a private address'],
  ])('refuses %s unless PROMPTLINE_WEBHOOKS_ALLOW_PRIVATE=on', async (url, reason) => {
    const res = await strict.request('POST', '/webhooks', { body: { url, events: ['prompt.label_moved'] } });
    expect(res.status).toBe(422);
    expect(res.json.detail).toEqual([expect.objectContaining({ loc: ['body', 'url'], msg: expect.stringContaining(reason), input: url })]);
    expect(res.json.detail[0].msg).toContain('PROMPTLINE_WEBHOOKS_ALLOW_PRIVATE=on allows it');
    expect(await strict.store.sql.value('SELECT count(*) FROM webhooks')).toBe(0);
  });

  it('checks every delivery again: a destination that became private is refused without a request', async () => {
    const receiver = await startReceiver();
    try {
      // As if the URL had been registered where it was allowed, or its name re-pointed since.
      const id = (await strict.request('POST', '/webhooks', { body: { url: 'https://8.8.8.8/hook', events: ['prompt.version_created'] } })).json.webhook_id;
      for (const [i, url] of [receiver.url(), `http://localhost:${receiver.port}/hook`].entries()) {
        await strict.store.writer.write((tx) => tx.run('UPDATE webhooks SET url = ? WHERE id = ?', [url, id]));
        await givenPrompt(strict, { prompt_id: `ssrf${i}`, template: 'one', versions: ['two'] });
        await strict.webhooks.dispatcher.deliverDue();
        const [latest] = (await strict.request('GET', `/webhooks/${id}/deliveries`)).json.data;
        expect(latest).toMatchObject({ status: 'pending', attempts: 1, last_status_code: null });
        expect(latest.last_error).toMatch(/^refused: (127\.0\.0\.1 is|localhost resolves to .*,) a loopback address/);
      }
      expect(receiver.received).toEqual([]);
      await strict.request('DELETE', `/webhooks/${id}`);
    } finally {
      await receiver.close();
    }
  });

  it('accepts a public address', async () => {
    expect((await strict.request('POST', '/webhooks', { body: { url: 'https://8.8.8.8/hook', events: ['prompt.label_moved'], enabled: false } })).status).toBe(
      201,
    );
  });
});
