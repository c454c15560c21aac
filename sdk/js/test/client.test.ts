import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Promptline, PromptlineApiError, PromptlineConnectionError, PromptlineValidationError, type PromptlineOptions } from '../src/index.js';
import { startTestApp, type TestApp } from '../../../test/support/harness.js';
import { givenExperiment, givenPrompt } from '../../../test/support/fixtures.js';
import { startTcpProxy } from '../../../test/support/tcpProxy.js';
import { startAnswerDroppingProxy } from '../../../test/support/answerDroppingProxy.js';

// The TypeScript client against the real server on a temporary SQLite file, listening on a port.
let t: TestApp;
let baseUrl: string;
let port: number;
let apiKey: string;
const clients: Promptline[] = [];

beforeAll(async () => {
  t = await startTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
  baseUrl = `http://127.0.0.1:${port}`;
  apiKey = await t.keyFor('runtime');
  await givenPrompt(t, {
    prompt_id: 'text',
    template: 'Hello {{name}}',
    labels: ['production'],
    versions: ['Hi {{name}}, {{#items}}[{{.}}]{{/items}}', 'Hey {{name}} ({{tier}})'],
  });
  await givenPrompt(t, {
    prompt_id: 'chat',
    messages: [
      { role: 'system', content: 'Be brief with {{name}}.' },
      { role: 'user', content: '{{question}}' },
    ],
    labels: ['production'],
    versions: [
      {
        messages: [
          { role: 'system', content: 'Be thorough, {{name}}.' },
          { role: 'user', content: 'Q: {{question}}' },
        ],
      },
    ],
  });
  await givenPrompt(t, { prompt_id: 'plain', template: 'Plain {{name}}' });
  await givenExperiment(t, {
    experiment_id: 'exp-text',
    prompt_id: 'text',
    variants: [
      { key: 'control', version: 1 },
      { key: 'list', version: 2 },
      { key: 'tier', version: 3 },
    ],
  });
  await t.request('PATCH', '/experiments/exp-text', { body: { coverage: 0.7 } });
  await t.request('POST', '/experiments/exp-text/start');
  await givenExperiment(t, { experiment_id: 'exp-chat', prompt_id: 'chat', variants: { brief: 1, thorough: 2 } });
  await t.request('PATCH', '/experiments/exp-chat', { body: { coverage: 0.8 } });
  await t.request('POST', '/experiments/exp-chat/start');
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});
afterAll(async () => t.cleanup());

function client(options: Partial<PromptlineOptions> = {}): Promptline {
  const made = new Promptline({ baseUrl, apiKey, ...options });
  clients.push(made);
  return made;
}

/** The client's answer written as the server writes /get_prompt's, or its error's status and detail. */
async function viaClient(c: Promptline, promptId: string, inputs: Record<string, unknown>, externalUserId?: string) {
  try {
    const r = await c.getPrompt({ promptId, inputs, externalUserId });
    const body: Record<string, unknown> = {
      prompt_text: r.promptText,
      variant_assigned: r.variantAssigned,
      experiment_id: r.experimentId,
      prompt_version: r.promptVersion,
    };
    if (r.messages) body.messages = r.messages;
    return { status: 200, body, source: r.source };
  } catch (error) {
    if (!(error instanceof PromptlineApiError)) throw error;
    return { status: error.status, body: { detail: error.detail }, source: 'error' };
  }
}

async function viaServer(promptId: string, inputs: Record<string, unknown>, externalUserId?: string) {
  const res = await t.request('POST', '/get_prompt', {
    key: apiKey,
    body: { prompt_id: promptId, inputs, ...(externalUserId === undefined ? {} : { external_user_id: externalUserId }) },
  });
  return { status: res.status, body: res.json };
}

describe('local getPrompt', () => {
  // A time limit of its own: 4 000 calls to the server take 8 s alone, and more while the other test files share the cores.
  it('answers what the server answers, from the bundle: 2 000 users × a text and a chat prompt under experiments below full coverage', async () => {
    const c = client();
    expect(await c.ready()).toBe(true);
    const seen = new Map<string, number>();
    for (let i = 0; i < 2000; i++) {
      const user = `user-${i}`;
      // Every tenth call leaves a variable out: the same 422 from the bundle as from the server.
      const text = i % 10 === 3 ? { name: 'Ada' } : { name: 'Ada', items: ['a', 'b'], tier: 'pro' };
      const chat = i % 10 === 7 ? { name: 'Ada' } : { name: 'Ada', question: 'Why?' };
      for (const [promptId, inputs] of [
        ['text', text],
        ['chat', chat],
      ] as const) {
        const local = await viaClient(c, promptId, inputs, user);
        expect(local.source === 'bundle' || local.source === 'error').toBe(true);
        const { source: _, ...answer } = local;
        expect(answer, `${promptId} for ${user}`).toEqual(await viaServer(promptId, inputs, user));
        const variant = (local.body as { variant_assigned?: string | null }).variant_assigned ?? 'none';
        seen.set(`${promptId}/${variant}`, (seen.get(`${promptId}/${variant}`) ?? 0) + 1);
      }
    }
    // Every variant and the users outside coverage occur (2 000 users make each split visible).
    for (const key of ['text/control', 'text/list', 'text/tier', 'text/none', 'chat/brief', 'chat/thorough', 'chat/none'])
      expect(seen.get(key)).toBeGreaterThan(50);
    // No user: the experiment's 422, from the bundle.
    expect(await viaClient(c, 'text', { name: 'Ada' })).toEqual({ ...(await viaServer('text', { name: 'Ada' })), source: 'error' });
    expect(c.stats()).toMatchObject({ bundleHits: 4001, serverCalls: 0, refreshFailures: 0 });
  });

  it('reports the users it assigned, so results count them as if the server had been asked', async () => {
    await givenPrompt(t, { prompt_id: 'counted', template: 'A {{x}}', versions: ['B {{x}}'] });
    await givenExperiment(t, { experiment_id: 'exp-counted', prompt_id: 'counted', start: true });
    const c = client();
    await c.ready();
    const assigned = new Map<string, number>();
    for (let i = 0; i < 300; i++) {
      const r = await c.getPrompt({ promptId: 'counted', inputs: { x: '1' }, externalUserId: `counted-${i}` });
      await c.getPrompt({ promptId: 'counted', inputs: { x: '1' }, externalUserId: `counted-${i}` });
      assigned.set(r.variantAssigned!, (assigned.get(r.variantAssigned!) ?? 0) + 1);
    }
    await c.close();
    expect(c.stats()).toMatchObject({ exposuresSent: 300, exposuresPending: 0, exposuresDropped: 0 });
    const results = await t.request('GET', '/experiments/exp-counted/results');
    expect(Object.fromEntries(results.json.variants.map((v: any) => [v.key, v.users]))).toEqual(Object.fromEntries(assigned));
    expect(await t.store.sql.value('SELECT sum(calls) FROM assignments WHERE experiment_id = ?', ['exp-counted'])).toBe(600);
  });

  it('drops, and counts, exposures the server refuses for good, instead of sending them forever', async () => {
    const created = await t.request('POST', '/keys', { body: { name: 'short-lived', role: 'runtime' } });
    const errors: unknown[] = [];
    const c = client({ apiKey: created.json.key, onError: (e) => errors.push(e) });
    await c.ready();
    for (let i = 0; i < 10; i++) await c.getPrompt({ promptId: 'text', inputs: { name: 'A', items: [], tier: 't' }, externalUserId: `revoked-${i}` });
    const assigned = c.stats().exposuresPending;
    expect(assigned).toBeGreaterThan(0);
    expect((await t.request('DELETE', `/keys/${created.json.key_id}`)).status).toBe(204);
    await c.close();
    expect(c.stats()).toMatchObject({ exposuresPending: 0, exposuresSent: 0, exposuresDropped: assigned });
    expect(errors.some((e) => e instanceof PromptlineApiError && e.status === 401)).toBe(true);
  });

  it('reports a user before tracking their outcome, so the outcome is attributed to their variant', async () => {
    const c = client();
    await c.ready();
    const served = await c.getPrompt({ promptId: 'text', inputs: { name: 'A', items: [], tier: 't' }, externalUserId: 'buyer-1' });
    expect(served.variantAssigned).not.toBeNull();
    const outcome = await c.trackOutcome({ promptId: 'text', externalUserId: 'buyer-1', eventType: 'buy', isSuccess: true });
    expect(outcome).toMatchObject({ status: 'recorded', experimentId: 'exp-text', variantAssigned: served.variantAssigned });
  });

  it('stops applying a paused experiment after the next refresh, and applies it again once resumed', async () => {
    const c = client({ refreshMs: 50 });
    await c.ready();
    const user = 'pause-0';
    const before = await c.getPrompt({ promptId: 'plain', inputs: { name: 'x' }, externalUserId: user });
    expect(before.variantAssigned).toBeNull();
    await givenExperiment(t, { experiment_id: 'exp-plain', prompt_id: 'plain', variants: { a: 1, b: 1 }, start: true });
    await expect.poll(async () => (await c.getPrompt({ promptId: 'plain', inputs: { name: 'x' }, externalUserId: user })).experimentId).toBe('exp-plain');
    expect((await t.request('POST', '/experiments/exp-plain/pause')).status).toBe(200);
    await expect.poll(async () => (await c.getPrompt({ promptId: 'plain', inputs: { name: 'x' }, externalUserId: user })).experimentId).toBeNull();
    expect(c.stats().refreshes).toBeGreaterThan(2);
  });

  it('asks the server for an experiment whose stored assignments the hash cannot reproduce (remote_only)', async () => {
    await givenPrompt(t, { prompt_id: 'moved', template: 'A', versions: ['B'] });
    await givenExperiment(t, { experiment_id: 'exp-moved', prompt_id: 'moved', start: true });
    const users = Array.from({ length: 40 }, (_, i) => `moved-${i}`);
    const stored = new Map<string, string>();
    for (const user of users) stored.set(user, (await viaServer('moved', {}, user)).body.variant_assigned);
    await t.request('POST', '/experiments/exp-moved/pause');
    await t.request('PATCH', '/experiments/exp-moved', {
      body: {
        variants: [
          { key: 'a', version: 1, weight: 1 },
          { key: 'b', version: 2, weight: 99 },
        ],
      },
    });
    await t.request('POST', '/experiments/exp-moved/start');
    const c = client();
    await c.ready();
    for (const user of users) {
      const r = await c.getPrompt({ promptId: 'moved', externalUserId: user });
      expect([user, r.source, r.variantAssigned]).toEqual([user, 'server', stored.get(user)]);
    }
    // Other prompts are still answered in-process.
    expect((await c.getPrompt({ promptId: 'plain', inputs: { name: 'x' } })).source).toBe('bundle');
  });
});

describe('when Promptline is unreachable', () => {
  it('keeps serving from the last bundle, serves the fallback of a prompt it never had, and throws for one without a fallback', async () => {
    const proxy = await startTcpProxy({ host: '127.0.0.1', port });
    const errors: unknown[] = [];
    const c = client({
      baseUrl: `http://127.0.0.1:${proxy.port}`,
      refreshMs: 50,
      timeoutMs: 500,
      fallbacks: { elsewhere: 'Fallback for {{name}}', 'chat-elsewhere': [{ role: 'system', content: 'Hi {{name}}' }] },
      onError: (error) => errors.push(error),
    });
    try {
      expect(await c.ready()).toBe(true);
      const live = await c.getPrompt({ promptId: 'text', inputs: { name: 'A', items: ['x'], tier: 't' }, externalUserId: 'offline-1' });
      await proxy.cut();
      await expect.poll(() => c.stats().refreshFailures).toBeGreaterThan(0);
      const offline = await c.getPrompt({ promptId: 'text', inputs: { name: 'A', items: ['x'], tier: 't' }, externalUserId: 'offline-1' });
      expect(offline).toEqual(live);
      expect(await c.getPrompt({ promptId: 'elsewhere', inputs: { name: 'Ada' } })).toEqual({
        promptText: 'Fallback for Ada',
        variantAssigned: null,
        experimentId: null,
        promptVersion: null,
        source: 'fallback',
      });
      expect(await c.getPrompt({ promptId: 'chat-elsewhere', inputs: { name: 'Ada' } })).toMatchObject({
        promptText: 'system: Hi Ada',
        messages: [{ role: 'system', content: 'Hi Ada' }],
        source: 'fallback',
      });
      // A fallback is a template like any other: a missing variable is the same 422.
      await expect(c.getPrompt({ promptId: 'elsewhere', inputs: {} })).rejects.toBeInstanceOf(PromptlineValidationError);
      await expect(c.getPrompt({ promptId: 'nowhere', inputs: {} })).rejects.toBeInstanceOf(PromptlineConnectionError);
      expect(c.stats()).toMatchObject({ fallbacks: 3 });
      expect(errors.some((e) => e instanceof PromptlineConnectionError)).toBe(true);
      // The exposures of offline calls wait, and reach the server once it is back.
      await proxy.restore();
      await c.close();
      expect(await t.store.sql.value("SELECT variant FROM assignments WHERE experiment_id = 'exp-text' AND external_user_id = 'offline-1'")).toBe(
        live.variantAssigned,
      );
    } finally {
      await proxy.close();
    }
  });

  it('stores an outcome once when the answer to its first attempt is lost', async () => {
    const proxy = await startAnswerDroppingProxy(baseUrl);
    try {
      const c = client({ baseUrl: proxy.url, mode: 'remote' });
      proxy.dropNextAnswer('/track_outcome');
      const answer = await c.trackOutcome({ promptId: 'plain', eventType: 'lost-answer', label: 'once' });
      expect(proxy.forwarded.filter((p) => p === '/track_outcome')).toHaveLength(2);
      const stored = await t.request('GET', '/outcomes?prompt_id=plain');
      const ours = stored.json.data.filter((o: any) => o.event_type === 'lost-answer');
      expect(ours.map((o: any) => o.outcome_id)).toEqual([answer.outcomeId]);
    } finally {
      await proxy.close();
    }
  });
});

describe('errors', () => {
  it("throws the server's errors with their status and detail, and never shows the key", async () => {
    const c = client({ mode: 'remote' });
    const notFound = await c.getPrompt({ promptId: 'nope' }).catch((e: unknown) => e);
    expect(notFound).toBeInstanceOf(PromptlineApiError);
    expect(notFound).toMatchObject({ status: 404, detail: "Prompt 'nope' not found" });

    const errors: unknown[] = [];
    const badKey = 'pl_r_this-key-does-not-exist-000000000000';
    const wrong = client({ apiKey: badKey, onError: (e) => errors.push(e) });
    expect(await wrong.ready()).toBe(false);
    const refused = await wrong.getPrompt({ promptId: 'text' }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 401, detail: 'Invalid API key' });
    for (const e of [refused, ...errors]) expect(`${String(e)} ${JSON.stringify(e)} ${(e as Error).stack}`).not.toContain(badKey);
  });

  it('gives up at once on a 429 whose Retry-After is long, and says when to come back', async () => {
    const limited = await t.request('POST', '/keys', { body: { name: 'limited', role: 'runtime', rate_limit_per_minute: 1 } });
    const c = client({ apiKey: limited.json.key, mode: 'remote' });
    await c.trackOutcome({ promptId: 'plain' });
    const started = Date.now();
    const error = await c.trackOutcome({ promptId: 'plain' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PromptlineApiError);
    expect((error as PromptlineApiError).status).toBe(429);
    expect((error as PromptlineApiError).retryAfterSeconds).toBeGreaterThan(10);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('refuses a fallback that is not a template, at construction', () => {
    expect(() => new Promptline({ baseUrl, apiKey, mode: 'remote', fallbacks: { p: 'Hi {{#open}}' } })).toThrow(/fallback of prompt 'p'/);
    expect(() => new Promptline({ baseUrl, apiKey, mode: 'remote', fallbacks: { p: '{{> partial}}' } })).toThrow(/partials/);
  });
});
