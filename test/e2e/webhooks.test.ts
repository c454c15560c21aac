import { afterEach, describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/modules/webhooks/signature.js';
import { processFixtures } from '../support/processes.js';
import { startReceiver, type Receiver } from '../support/webhookReceiver.js';
import { STEP_MS, timeLimit } from '../support/timeLimits.js';

const ADMIN = 'pl_a_e2e-webhooks-admin-key-0000000000000';
const fx = processFixtures(ADMIN);
let receiver: Receiver | null = null;
afterEach(async () => receiver?.close());

const call = async (origin: string, method: string, path: string, body?: unknown) => {
  const res = await fetch(`${origin}${path}`, {
    method,
    headers: { 'x-api-key': ADMIN, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json().catch(() => null)) as any };
};
/** How long a delivery's lease outlives a killed process: the delivery's 10 s timeout and 5 s. */
const LEASE_MS = 15_000;
const until = async (what: string, ok: () => boolean | Promise<boolean>, ms = STEP_MS) => {
  const deadline = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe('webhook deliveries across a crash', () => {
  // two starts, and three waits for deliveries, one after the dead process's lease
  it('a delivery in flight when the server is killed (kill -9) is sent again after a restart, under the same event id', {
    timeout: timeLimit({ starts: 2, steps: 3, ms: LEASE_MS }),
  }, async () => {
    receiver = await startReceiver();
    receiver.mode = 'hang';
    const dir = fx.dataDir();
    const env = { PROMPTLINE_WEBHOOKS_ALLOW_PRIVATE: 'on' };
    let server = await fx.serve(dir, env);
    const hook = await call(server.origin, 'POST', '/webhooks', { url: receiver.url(), events: ['prompt.version_created'] });
    expect(hook.status).toBe(201);
    await call(server.origin, 'POST', '/prompts', { prompt_id: 'crash', template: 'one' });
    expect((await call(server.origin, 'POST', '/prompts/crash/versions', { template: 'two' })).status).toBe(201);
    // Sent within a second of the change; the receiver holds it, then the server dies mid-request.
    await until('the first attempt', () => receiver!.heldCount === 1);
    await server.stop('SIGKILL');
    receiver.mode = { answer: 204 };
    receiver.release(); // the connection is gone anyway

    server = await fx.serve(dir, env);
    // The dead process's lease (the 10 s timeout + 5 s) runs out, then the new one sends it.
    await until('the redelivery', () => receiver!.received.length === 2, LEASE_MS + STEP_MS);
    const [first, again] = receiver.received;
    expect(again!.json).toEqual(first!.json);
    expect(verifySignature(hook.json.secret, String(again!.headers['promptline-signature']), again!.body, Math.floor(Date.now() / 1000))).toBe(true);
    await until(
      'the record of it',
      async () => (await call(server.origin, 'GET', `/webhooks/${hook.json.webhook_id}/deliveries`)).json.data[0].status === 'delivered',
    );
    const [d] = (await call(server.origin, 'GET', `/webhooks/${hook.json.webhook_id}/deliveries`)).json.data;
    expect(d).toMatchObject({ event_type: 'prompt.version_created', status: 'delivered', attempts: 2, last_status_code: 204 });
  });
});
