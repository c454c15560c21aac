import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { behave, FakeOpenAI } from '../../support/fakeOpenAI.js';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenPrompt } from '../../support/fixtures.js';

/**
 * Issue 40's table, rerun through the API as a prompt owner would: a fake model that fails a chosen
 * share of each version's calls (spread evenly, so the shares are exact), a safe rollout with two
 * steps of 50% and 100% (min_users 20, min_minutes 0), 300 users through /run_prompt, then one check.
 * Before the fix the three bold rows advanced to 100%; now they roll back or hold, and 5% against 5%
 * still advances. And a rollout whose guardrails never get data (the application only calls
 * /get_prompt) holds, then pauses for a person after 24 hours, with a webhook event and an audit entry.
 */
let t: TestApp;
let fake: FakeOpenAI;
let runtime: string;
let webhookId: string;
let now = Date.parse('2026-03-02T09:00:00.000Z');
const clock = { now: () => new Date(now) };
const HOUR = 3_600_000;

/** Share of calls each template fails, and how many of its calls came so far. */
const failShare = new Map<string, number>();
const calls = new Map<string, number>();
function fails(body: unknown): boolean {
  const text = JSON.stringify((body as { messages?: unknown }).messages ?? '');
  const template = [...failShare.keys()].find((k) => text.includes(k));
  if (template === undefined) return false;
  const k = calls.get(template) ?? 0;
  calls.set(template, k + 1);
  const share = failShare.get(template)!;
  return Math.floor((k + 1) * share) > Math.floor(k * share);
}

beforeAll(async () => {
  fake = new FakeOpenAI();
  const { baseURL } = await fake.start();
  fake.respondBy((body) => (fails(body) ? behave.badRequest('the model refused') : behave.ok()));
  t = await startTestApp(
    { PROMPTLINE_PROVIDER_FAKE_BASE_URL: baseURL, PROMPTLINE_WEBHOOKS_ALLOW_PRIVATE: 'on' },
    { clock, schedulerTimers: false, webhookTimers: false },
  );
  runtime = await t.keyFor('runtime');
  webhookId = (await t.request('POST', '/webhooks', { body: { url: 'http://127.0.0.1:9/hook', events: ['experiment.paused'] } })).json.webhook_id;
});
afterAll(async () => {
  await t.cleanup();
  await fake.close();
});

async function rolloutOf(name: string, production: number, candidate: number) {
  failShare.set(`${name} production`, production);
  failShare.set(`${name} candidate`, candidate);
  await givenPrompt(t, {
    prompt_id: name,
    template: `${name} production {{q}}`,
    model: 'fake/m',
    labels: ['production'],
    versions: [{ template: `${name} candidate {{q}}`, model: 'fake/m' }],
  });
  const steps = [
    { percent: 50, min_users: 20, min_minutes: 0 },
    { percent: 100, min_users: 20, min_minutes: 0 },
  ];
  expect(
    (await t.request('POST', '/experiments', { body: { experiment_id: name, prompt_id: name, type: 'rollout', candidate_version: 2, steps } })).status,
  ).toBe(201);
  expect((await t.request('POST', `/experiments/${name}/start`)).status).toBe(200);
}

async function users(promptId: string, count: number, path = '/run_prompt'): Promise<void> {
  for (let i = 0; i < count; i++) {
    const res = await t.request('POST', path, { key: runtime, body: { prompt_id: promptId, inputs: { q: 'x' }, external_user_id: `${promptId}-u${i}` } });
    expect([200, 502]).toContain(res.status);
  }
}

interface Figure {
  name: string;
  control: { users: number };
  candidate: { users: number };
  interval: [number, number] | null;
  worse: boolean;
  safe: boolean;
}

describe("issue 40's table: a safe rollout at the edges, through the API", () => {
  // production's error rate, the candidate's, what the check may do
  it.each<[string, number, number, string[]]>([
    ['all-fail', 0, 1, ['rollback']],
    ['all-fail-vs-5', 0.05, 1, ['rollback']],
    ['thirty-vs-0', 0, 0.3, ['rollback', 'hold']],
    ['thirty-vs-5', 0.05, 0.3, ['rollback', 'hold']],
    ['same-5', 0.05, 0.05, ['advance']],
  ])('%s: production fails %f of calls, the candidate %f → %j', async (name, production, candidate, allowed) => {
    await rolloutOf(name, production, candidate);
    await users(name, 300);
    const check = await t.request('POST', `/experiments/${name}/check`);
    expect(check.status).toBe(200);
    expect(allowed).toContain(check.json.action);
    const errorRate = (check.json.figures.guardrails as Figure[]).find((g) => g.name === 'runs:error_rate')!;
    // Every arm had users, and the interval is a real one, inside [−1, 1], never null.
    expect(errorRate.control.users).toBeGreaterThan(40);
    expect(errorRate.candidate.users).toBeGreaterThan(40);
    expect(errorRate.interval).not.toBeNull();
    expect(errorRate.interval![0]).toBeGreaterThanOrEqual(-1);
    expect(errorRate.interval![1]).toBeLessThanOrEqual(1);
    const status = (await t.request('GET', `/experiments/${name}`)).json;
    if (check.json.action === 'rollback') expect(status).toMatchObject({ status: 'rolled_back', shipped_version: null });
    if (check.json.action === 'hold') expect(status).toMatchObject({ status: 'running', rollout: { step: 0 } });
    if (check.json.action === 'advance') {
      expect(errorRate.safe).toBe(true);
      expect(status).toMatchObject({ status: 'running', rollout: { step: 1, current_percent: 100 } });
    }
    console.info(
      `${name}: ${production} vs ${candidate}, users ${errorRate.control.users} / ${errorRate.candidate.users} → ${check.json.action}, interval [${errorRate.interval!.map((x) => x.toFixed(2)).join(', ')}]`,
    );
  });

  it('a candidate whose every call fails is rolled back at the first check with 10 users per arm, whatever the minimums', async () => {
    failShare.set('early production', 0);
    failShare.set('early candidate', 1);
    await givenPrompt(t, {
      prompt_id: 'early',
      template: 'early production {{q}}',
      model: 'fake/m',
      labels: ['production'],
      versions: [{ template: 'early candidate {{q}}', model: 'fake/m' }],
    });
    const steps = [{ percent: 100, min_users: 10_000, min_minutes: 600 }];
    await t.request('POST', '/experiments', { body: { experiment_id: 'early', prompt_id: 'early', type: 'rollout', candidate_version: 2, steps } });
    await t.request('POST', '/experiments/early/start');
    await users('early', 40);
    const check = (await t.request('POST', '/experiments/early/check')).json;
    expect(check.action).toBe('rollback');
    expect(check.reason).toMatch(/^Rolled back at step 1 of 1 \(100%\): every call of the candidate failed \(\d+ of \d+ users on runs:error_rate/);
  });

  it('a rollout whose guardrails never get data (only /get_prompt) holds, then pauses for a person after 24 hours', async () => {
    await givenPrompt(t, {
      prompt_id: 'silent',
      template: 'silent production {{q}}',
      model: 'fake/m',
      labels: ['production'],
      versions: [{ template: 'silent candidate {{q}}', model: 'fake/m' }],
    });
    const steps = [
      { percent: 50, min_users: 20, min_minutes: 0 },
      { percent: 100, min_users: 20, min_minutes: 0 },
    ];
    await t.request('POST', '/experiments', { body: { experiment_id: 'silent', prompt_id: 'silent', type: 'rollout', candidate_version: 2, steps } });
    await t.request('POST', '/experiments/silent/start');
    await users('silent', 100, '/get_prompt');
    const first = (await t.request('POST', '/experiments/silent/check')).json;
    expect(first.action).toBe('hold');
    expect(first.reason).toMatch(
      /not every one is shown within its tolerance yet \(runs:error_rate: no data yet in both variants; runs:latency_ms: no data yet/,
    );
    for (let h = 0; h < 23; h++) {
      now += HOUR;
      await t.scheduler.runDue();
    }
    expect((await t.request('GET', '/experiments/silent')).json.status).toBe('running');
    now += HOUR;
    await t.scheduler.runDue();
    const paused = (await t.request('GET', '/experiments/silent')).json;
    expect(paused.status).toBe('paused');
    const checks = (await t.request('GET', '/experiments/silent/checks')).json.data;
    expect(checks.at(-1)).toMatchObject({ action: 'pause', trigger: 'scheduled' });
    expect(checks.at(-1).reason).toMatch(
      /^Paused at step 1 of 2 \(50%\) for a person: none of its guardrails \(runs:error_rate, runs:latency_ms\) has data after 24 hours/,
    );
    expect(checks.filter((c: { action: string }) => c.action !== 'hold' && c.action !== 'pause')).toEqual([]);
    const audit = (await t.request('GET', '/audit?target_id=silent&limit=1')).json.data[0];
    expect(audit).toMatchObject({ action: 'experiment.paused', key_name: 'scheduler', after: { status: 'paused', check_reason: checks.at(-1).reason } });
    const deliveries = (await t.request('GET', `/webhooks/${webhookId}/deliveries?limit=50`)).json.data as Array<{
      event_type: string;
      payload: { target: { id: string } };
    }>;
    expect(deliveries.map((d) => [d.event_type, d.payload.target.id])).toContainEqual(['experiment.paused', 'silent']);
    // Paused: no longer checked; a person's start resumes it, and the 24 hours count again from there.
    now += HOUR;
    await t.scheduler.runDue();
    expect((await t.request('GET', '/experiments/silent/checks')).json.data).toHaveLength(checks.length);
    expect((await t.request('POST', '/experiments/silent/start')).status).toBe(200);
    expect((await t.request('POST', '/experiments/silent/check')).json.action).toBe('hold');
    expect((await t.request('GET', '/prompts/silent')).json.labels.production).toBe(1);
  });
});
