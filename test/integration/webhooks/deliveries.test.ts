import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { verifySignature } from '../../../src/modules/webhooks/signature.js';
import { EVENT_TYPES } from '../../../src/modules/webhooks/webhooks.schemas.js';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenExperiment, givenPrompt } from '../../support/fixtures.js';
import { startReceiver, type Receiver } from '../../support/webhookReceiver.js';

/** Deliveries end to end: events from real changes, signed, to a real loopback receiver that fails, goes down and comes back. */
const START = Date.parse('2026-03-01T12:00:00.000Z');
let now = new Date(START);
const clock = { now: () => now };
const advance = (ms: number) => {
  now = new Date(now.getTime() + ms);
};
const ALL_EVENTS = [...EVENT_TYPES];

let t: TestApp;
let receiver: Receiver;
let webhook: { webhook_id: string; secret: string };
let promptN = 0;

async function register(events = ALL_EVENTS, path = '/hook') {
  const res = await t.request('POST', '/webhooks', { body: { url: receiver.url(path), events } });
  expect(res.status).toBe(201);
  return res.json as { webhook_id: string; secret: string };
}
async function deliveries(id = webhook.webhook_id, query = '') {
  const res = await t.request('GET', `/webhooks/${id}/deliveries${query}`);
  expect(res.status).toBe(200);
  return res.json.data as any[];
}
/** A new prompt (with versions 1 and 2) and a label move: one version_created per version, one label_moved. */
async function promptWithTwoVersions() {
  const id = `p${++promptN}`;
  await givenPrompt(t, { prompt_id: id, template: 'one', versions: ['two'] });
  return id;
}

beforeAll(async () => {
  t = await startTestApp({ PROMPTLINE_WEBHOOKS_ALLOW_PRIVATE: 'on' }, { clock, webhookTimers: false });
});
afterAll(async () => t.cleanup());
beforeEach(async () => {
  receiver = await startReceiver();
  webhook = await register();
});
afterEach(async () => {
  await t.request('DELETE', `/webhooks/${webhook.webhook_id}`);
  await receiver.close();
});

describe('webhook deliveries', () => {
  it('sends each subscribed event once, signed, with headers that name it, in the order the changes committed', async () => {
    const prompt = await promptWithTwoVersions();
    await t.request('PUT', `/prompts/${prompt}/labels/production`, { body: { version: 2 } });
    await givenExperiment(t, { experiment_id: `${prompt}-x`, prompt_id: prompt });
    for (const action of ['start', 'pause', 'start']) await t.request('POST', `/experiments/${prompt}-x/${action}`);
    const override = { override: true, reason: 'the webhook test ships without traffic' };
    await t.request('POST', `/experiments/${prompt}-x/stop`, { body: { winner: 'b', ship: true, ...override } });
    expect(receiver.received).toEqual([]); // queued, not sent in the request

    await t.webhooks.dispatcher.deliverDue();
    const types = receiver.received.map((r) => r.json.type);
    expect(types).toEqual([
      'prompt.version_created',
      'prompt.label_moved',
      'experiment.started',
      'experiment.paused',
      'experiment.started',
      'prompt.label_moved', // the ship moved production...
      'experiment.stopped', // ...in the stop's transaction
    ]);
    const seconds = Math.floor(now.getTime() / 1000);
    for (const r of receiver.received) {
      expect(verifySignature(webhook.secret, String(r.headers['promptline-signature']), r.body, seconds)).toBe(true);
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['promptline-event']).toBe(r.json.type);
      expect(r.headers['promptline-event-id']).toBe(r.json.id);
      expect(r.headers['user-agent']).toMatch(/^Promptline-Webhooks\//);
    }
    expect(receiver.received[0]!.json).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: 'prompt.version_created',
      created_at: now.toISOString(),
      project_id: expect.stringMatching(/^prj_/),
      actor: { key_id: expect.stringMatching(/^key_/), key_name: 'bootstrap' },
      target: { type: 'prompt', id: prompt },
      before: null,
      after: expect.objectContaining({ version: 2, template: 'two' }),
    });
    expect(receiver.received[5]!.json).toMatchObject({
      before: { label: 'production', version: 2 },
      after: { label: 'production', version: 2, experiment_id: `${prompt}-x`, ...override },
    });
    // The override and its reason travel with the events, as in the audit log.
    expect(receiver.received[6]!.json).toMatchObject({ before: { status: 'running' }, after: { status: 'stopped', winner: 'b', ...override } });

    const listed = await deliveries();
    expect(listed).toHaveLength(7);
    expect(listed.map((d) => d.status)).toEqual(Array(7).fill('delivered'));
    expect(listed[0]).toMatchObject({
      event_type: 'experiment.stopped',
      attempts: 1,
      last_status_code: 204,
      last_error: null,
      next_attempt_at: null,
      finished_at: now.toISOString(),
    });
    expect(listed[0].payload).toEqual(receiver.received[6]!.json);

    await t.webhooks.dispatcher.deliverDue();
    expect(receiver.received).toHaveLength(7); // delivered means never again

    // The history pages like every list, and its filters are checked.
    const page = (await t.request('GET', `/webhooks/${webhook.webhook_id}/deliveries?limit=4`)).json;
    const rest = (await t.request('GET', `/webhooks/${webhook.webhook_id}/deliveries?limit=4&cursor=${page.next_cursor}`)).json;
    expect([...page.data, ...rest.data].map((d: { delivery_id: string }) => d.delivery_id)).toEqual(listed.map((d) => d.delivery_id));
    expect(rest.next_cursor).toBeNull();
    const bad = await t.request('GET', `/webhooks/${webhook.webhook_id}/deliveries?status=lost`);
    expect([bad.status, bad.json.detail[0].loc]).toEqual([422, ['query', 'status']]);
  });

  it('sends only what an endpoint subscribed to, to every endpoint that did, under one event id', async () => {
    const second = await register(['prompt.label_moved'], '/second');
    const prompt = await promptWithTwoVersions();
    await t.request('PUT', `/prompts/${prompt}/labels/staging`, { body: { version: 1 } });
    await t.webhooks.dispatcher.deliverDue();
    const to = (path: string) => receiver.received.filter((r) => r.path === path);
    expect(to('/hook').map((r) => r.json.type)).toEqual(['prompt.version_created', 'prompt.label_moved']);
    expect(to('/second').map((r) => r.json.type)).toEqual(['prompt.label_moved']);
    const [moved] = await deliveries(second.webhook_id);
    expect(moved.event_id).toBe(to('/hook')[1]!.json.id);
    // Each endpoint signs with its own secret.
    const forSecond = to('/second')[0]!;
    const seconds = Math.floor(now.getTime() / 1000);
    expect(verifySignature(second.secret, String(forSecond.headers['promptline-signature']), forSecond.body, seconds)).toBe(true);
    expect(verifySignature(webhook.secret, String(forSecond.headers['promptline-signature']), forSecond.body, seconds)).toBe(false);
    await t.request('DELETE', `/webhooks/${second.webhook_id}`);
  });

  it('retries a receiver that fails or is down on the backoff schedule, and delivers once it is back', async () => {
    receiver.mode = { answer: 503 };
    const prompt = await promptWithTwoVersions();
    await t.webhooks.dispatcher.deliverDue();
    let [d] = await deliveries();
    expect(d).toMatchObject({
      status: 'pending',
      attempts: 1,
      last_status_code: 503,
      last_error: 'HTTP 503: receiver says 503',
      next_attempt_at: new Date(now.getTime() + 30_000).toISOString(),
    });

    await receiver.down();
    advance(29_999);
    await t.webhooks.dispatcher.deliverDue(); // not due yet: nothing tried
    expect((await deliveries())[0].attempts).toBe(1);
    advance(1);
    await t.webhooks.dispatcher.deliverDue();
    [d] = await deliveries();
    expect(d).toMatchObject({
      status: 'pending',
      attempts: 2,
      last_status_code: null,
      last_error: 'connection refused',
      next_attempt_at: new Date(now.getTime() + 60_000).toISOString(),
    });

    await receiver.up();
    receiver.mode = { answer: 204 };
    advance(60_000);
    await t.webhooks.dispatcher.deliverDue();
    [d] = await deliveries();
    expect(d).toMatchObject({ status: 'delivered', attempts: 3, last_status_code: 204, last_error: null, finished_at: now.toISOString() });
    expect(receiver.received.map((r) => r.json.target.id)).toEqual([prompt, prompt]); // the 503, then the delivery
    expect(receiver.received[1]!.json).toEqual(receiver.received[0]!.json); // the same event each time
    expect(receiver.received[1]!.headers['promptline-signature']).not.toBe(receiver.received[0]!.headers['promptline-signature']); // signed when sent
    expect(await deliveries(webhook.webhook_id, '?status=pending')).toEqual([]);
  });

  it('gives up 24 hours after the event, with the last error kept', async () => {
    await receiver.down();
    await promptWithTwoVersions();
    const created = now.getTime();
    await t.webhooks.dispatcher.deliverDue();
    let attempts = 1;
    for (let d = (await deliveries())[0]; d.status === 'pending'; d = (await deliveries())[0]) {
      now = new Date(d.next_attempt_at);
      await t.webhooks.dispatcher.deliverDue();
      attempts++;
    }
    const [d] = await deliveries();
    expect(d).toMatchObject({
      status: 'failed',
      attempts,
      last_error: 'connection refused',
      next_attempt_at: null,
      finished_at: new Date(created + 86_400_000).toISOString(),
    });
    expect(attempts).toBe(31);
    await receiver.up();
    advance(3_600_000);
    await t.webhooks.dispatcher.deliverDue();
    expect(receiver.received).toEqual([]);
  });

  it('keeps a disabled endpoint quiet: nothing is queued for it while disabled', async () => {
    await t.request('PATCH', `/webhooks/${webhook.webhook_id}`, { body: { enabled: false } });
    await promptWithTwoVersions();
    await t.webhooks.dispatcher.deliverDue();
    expect(await deliveries()).toEqual([]);
    await t.request('PATCH', `/webhooks/${webhook.webhook_id}`, { body: { enabled: true } });
    await promptWithTwoVersions();
    await t.webhooks.dispatcher.deliverDue();
    expect(receiver.received.map((r) => r.json.type)).toEqual(['prompt.version_created']);
  });

  it('a test event reaches this endpoint alone, signed like any other', async () => {
    const res = await t.request('POST', `/webhooks/${webhook.webhook_id}/test`);
    expect(res.status).toBe(202);
    expect(res.json).toMatchObject({
      event_type: 'webhook.test',
      status: 'pending',
      attempts: 0,
      payload: { type: 'webhook.test', target: { type: 'webhook', id: webhook.webhook_id } },
    });
    await t.webhooks.dispatcher.deliverDue();
    expect(receiver.received.map((r) => [r.json.type, r.json.id])).toEqual([['webhook.test', res.json.event_id]]);
    // After a rotation, deliveries are signed with the new secret only.
    const rotated = (await t.request('POST', `/webhooks/${webhook.webhook_id}/rotate_secret`)).json.secret;
    await t.request('POST', `/webhooks/${webhook.webhook_id}/test`);
    await t.webhooks.dispatcher.deliverDue();
    const last = receiver.received[1]!;
    const seconds = Math.floor(now.getTime() / 1000);
    expect(verifySignature(rotated, String(last.headers['promptline-signature']), last.body, seconds)).toBe(true);
    expect(verifySignature(webhook.secret, String(last.headers['promptline-signature']), last.body, seconds)).toBe(false);
  });

  it('a receiver that never answers holds a delivery slot, never an API call', async () => {
    receiver.mode = 'hang';
    await promptWithTwoVersions();
    const pass = t.webhooks.dispatcher.deliverDue();
    while (receiver.heldCount === 0) await new Promise((r) => setTimeout(r, 10));
    // The receiver holds the request open; the API goes on answering and queueing.
    const prompt = await promptWithTwoVersions();
    expect((await t.request('PUT', `/prompts/${prompt}/labels/production`, { body: { version: 1 } })).status).toBe(200);
    expect((await deliveries()).map((d) => d.status)).toEqual(['pending', 'pending', 'pending']);
    receiver.mode = { answer: 204 };
    receiver.release();
    await pass;
    await t.webhooks.dispatcher.deliverDue();
    expect((await deliveries()).map((d) => d.status)).toEqual(['delivered', 'delivered', 'delivered']);
  });
});

// The watcher reads each running experiment's results to find its decisions.
describe('srm_detected and decision_changed', () => {
  it('announces a broken split once, with the variant it makes unhealthy', async () => {
    const prompt = await promptWithTwoVersions();
    const experiment = `${prompt}-srm`;
    await givenExperiment(t, { experiment_id: experiment, prompt_id: prompt, start: true });
    await t.webhooks.signals.checkOnce();
    await t.webhooks.dispatcher.deliverDue();
    const before = receiver.received.length; // version_created, started; the first look decides nothing
    expect(receiver.received.map((r) => r.json.type)).toEqual(['prompt.version_created', 'experiment.started']);

    // 60 users in a and 10 in b against 50/50 weights: the sample-ratio check fails.
    const projectId = receiver.received[0]!.json.project_id as string;
    await t.store.writer.write(async (tx) => {
      for (let i = 0; i < 70; i++) {
        await tx.run(
          `INSERT INTO assignments (project_id, experiment_id, external_user_id, variant, first_seen, last_seen, calls) VALUES (?, ?, ?, ?, ?, ?, 1)`,
          [projectId, experiment, `u${i}`, i < 60 ? 'a' : 'b', now.toISOString(), now.toISOString()],
        );
      }
    });
    expect(await t.webhooks.signals.checkOnce()).toBe(2);
    expect(await t.webhooks.signals.checkOnce()).toBe(0); // still broken: said once
    await t.webhooks.dispatcher.deliverDue();
    const [srm, decision] = receiver.received.slice(before).map((r) => r.json);
    expect(srm).toMatchObject({
      type: 'experiment.srm_detected',
      actor: { key_id: null, key_name: 'system' },
      target: { type: 'experiment', id: experiment },
      after: { prompt_id: prompt, srm: { flagged: true, checked: true }, users: { a: 60, b: 10 }, weights: { a: 0.5, b: 0.5 } },
    });
    expect(decision).toMatchObject({
      type: 'experiment.decision_changed',
      target: { type: 'experiment', id: experiment },
      before: { variant: 'b', decision: 'keep_running' },
      after: { variant: 'b', decision: 'unhealthy', reason: expect.any(String) },
    });
    expect(receiver.received).toHaveLength(before + 2);
    await t.request('POST', `/experiments/${experiment}/stop`);
  });
});
