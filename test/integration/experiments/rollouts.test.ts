import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashV2 } from '../../../src/modules/experiments/assignment.js';
import { behave, FakeOpenAI } from '../../support/fakeOpenAI.js';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenPrompt } from '../../support/fixtures.js';
import { mulberry32 } from '../../support/prng.js';
import { rolloutTimeline } from '../../../src/cli/rolloutTimeline.js';

/**
 * Safe rollouts end to end, through the API, with the app clock and the traffic driven by the test:
 * each simulated hour users call /run_prompt (the fake provider fails a known share of each
 * version's calls), then the clock moves an hour and the scheduler's pass runs, as its timer would.
 * A candidate with three times the errors rolls back on its first step with production untouched;
 * a harmless one advances step by step, keeps every user in their variant and ships.
 */
let t: TestApp;
let fake: FakeOpenAI;
let runtime: string;
let webhookId: string;
let now = Date.parse('2026-03-02T09:00:00.000Z');
const clock = { now: () => new Date(now) };
const HOUR = 3_600_000;

/**
 * Which calls fail: the risky candidate's template fails 60% of its calls against its production's
 * 20%; the harmless prompts fail 2% of calls in both versions (a candidate advances only once its
 * interval shows it within the tolerance, which at 20% errors would take far more users than here).
 */
const random = mulberry32(7);
const failsOf = (body: unknown) => {
  const text = JSON.stringify((body as { messages?: unknown }).messages ?? '');
  return random() < (text.includes('risky two') ? 0.6 : text.includes('risky') ? 0.2 : 0.02);
};

/** One simulated hour of `users` new users, one call each; answers who was served which variant. */
async function hourOfTraffic(promptId: string, users: number, hour: number): Promise<Map<string, string | null>> {
  const served = new Map<string, string | null>();
  for (let i = 0; i < users; i++) {
    const user = `${promptId}-h${hour}-u${i}`;
    const res = await t.request('POST', '/run_prompt', { key: runtime, body: { prompt_id: promptId, inputs: { q: 'x' }, external_user_id: user } });
    expect([200, 502]).toContain(res.status);
    served.set(user, res.status === 200 ? res.json.variant_assigned : null);
  }
  return served;
}

const experiment = async (id: string) => (await t.request('GET', `/experiments/${id}`)).json;
const production = async (promptId: string) => ((await t.request('GET', `/prompts/${promptId}`)).json.labels as Record<string, number>).production;
const events = async () =>
  ((await t.request('GET', `/webhooks/${webhookId}/deliveries?limit=200`)).json.data as Array<{ event_type: string; payload: { target: { id: string } } }>).map(
    (d) => ({ type: d.event_type, target: d.payload.target.id }),
  );

async function rollout(id: string, promptId: string, steps: unknown[], extra: Record<string, unknown> = {}) {
  const made = await t.request('POST', '/experiments', {
    body: { experiment_id: id, prompt_id: promptId, type: 'rollout', candidate_version: 2, steps, ...extra },
  });
  expect(made.status).toBe(201);
  expect((await t.request('POST', `/experiments/${id}/start`)).status).toBe(200);
  return made.json;
}

beforeAll(async () => {
  fake = new FakeOpenAI();
  const { baseURL } = await fake.start();
  fake.respondBy((body) => (failsOf(body) ? behave.badRequest('the model refused') : behave.ok()));
  t = await startTestApp(
    { PROMPTLINE_PROVIDER_FAKE_BASE_URL: baseURL, PROMPTLINE_WEBHOOKS_ALLOW_PRIVATE: 'on' },
    { clock, schedulerTimers: false, webhookTimers: false },
  );
  runtime = await t.keyFor('runtime');
  const events = ['experiment.advanced', 'experiment.rolled_back', 'experiment.shipped', 'prompt.label_moved'];
  webhookId = (await t.request('POST', '/webhooks', { body: { url: 'http://127.0.0.1:9/hook', events } })).json.webhook_id;
  for (const name of ['risky', 'harmless', 'approved']) {
    await givenPrompt(t, {
      prompt_id: name,
      template: `${name} one {{q}}`,
      model: 'fake/m',
      labels: ['production'],
      versions: [{ template: `${name} two {{q}}`, model: 'fake/m' }],
    });
  }
});
afterAll(async () => {
  await t.cleanup();
  await fake.close();
});

describe('a safe rollout', () => {
  it('is created with control serving production, the candidate, its ramp, coverage at the first step and the built-in guardrails', async () => {
    const made = await t.request('POST', '/experiments', {
      body: {
        experiment_id: 'shape',
        prompt_id: 'risky',
        type: 'rollout',
        candidate_version: 2,
        metrics: [{ event_type: 'thumbs', kind: 'success_rate', role: 'guardrail' }],
      },
    });
    expect(made.status).toBe(201);
    expect(made.json).toMatchObject({
      type: 'rollout',
      status: 'draft',
      control: 'control',
      coverage: 0.05,
      variants: [
        { key: 'control', version: 1, weight: 0.5 },
        { key: 'candidate', version: 2, weight: 0.5 },
      ],
      rollout: { candidate: 'candidate', step: 0, current_percent: 5, auto_ship: true, awaiting_approval: false, step_started_at: null },
    });
    expect(made.json.rollout.steps.map((s: { percent: number }) => s.percent)).toEqual([5, 25, 50, 100]);
    expect(made.json.metrics.map((m: { name: string }) => m.name)).toEqual(['thumbs:success_rate', 'runs:error_rate', 'runs:latency_ms']);
  });

  it.each([
    ['no candidate', { prompt_id: 'risky', type: 'rollout' }, ['body', 'candidate_version']],
    ['the version production already serves', { prompt_id: 'risky', type: 'rollout', candidate_version: 1 }, ['body', 'candidate_version']],
    ['an unknown version', { prompt_id: 'risky', type: 'rollout', candidate_version: 9 }, ['body', 'candidate_version']],
    [
      'its own variants',
      {
        prompt_id: 'risky',
        type: 'rollout',
        candidate_version: 2,
        variants: [
          { key: 'a', version: 1 },
          { key: 'b', version: 2 },
        ],
      },
      ['body', 'variants'],
    ],
    [
      'a ramp that goes down',
      { prompt_id: 'risky', type: 'rollout', candidate_version: 2, steps: [{ percent: 50 }, { percent: 10 }] },
      ['body', 'steps', 1, 'percent'],
    ],
    ['a step over 100%', { prompt_id: 'risky', type: 'rollout', candidate_version: 2, steps: [{ percent: 150 }] }, ['body', 'steps', 0, 'percent']],
  ])('refuses %s (422) and stores nothing', async (_name, body, loc) => {
    const before = (await t.request('GET', '/experiments?limit=200')).json.data.length;
    const res = await t.request('POST', '/experiments', { body });
    expect(res.status).toBe(422);
    expect(res.json.detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(loc);
    expect((await t.request('GET', '/experiments?limit=200')).json.data.length).toBe(before);
  });

  it('whose candidate has three times the errors rolls back before its second step; production stays where it was', async () => {
    await rollout('bad', 'risky', [{ percent: 40, min_users: 2000, min_minutes: 60 }, { percent: 70 }, { percent: 100 }]);
    let hours = 0;
    while ((await experiment('bad')).status === 'running' && hours < 12) {
      await hourOfTraffic('risky', 100, hours++);
      now += HOUR;
      await t.scheduler.runDue();
    }
    const ended = await experiment('bad');
    expect(ended).toMatchObject({ status: 'rolled_back', rollout: { step: 0, current_percent: 40 }, shipped_version: null });
    expect(ended.reason).toMatch(
      /^Rolled back at step 1 of 3 \(40%\): on the guardrail runs:error_rate the candidate measured 0\.[4-8]\d* against production's 0\.[0-3]/,
    );
    expect(await production('risky')).toBe(1);
    // Everyone is served production again, and nothing is checked any more.
    const after = await t.request('POST', '/get_prompt', { key: runtime, body: { prompt_id: 'risky', inputs: { q: 'x' }, external_user_id: 'risky-h0-u1' } });
    expect(after.json).toMatchObject({ prompt_version: 1, variant_assigned: null });
    now += HOUR;
    expect(await t.scheduler.runDue()).toBe(0);

    const { data: checks } = (await t.request('GET', '/experiments/bad/checks')).json;
    expect(checks.at(-1)).toMatchObject({ action: 'rollback', trigger: 'scheduled', step: 0, percent: 40, reason: ended.reason });
    expect(checks.slice(0, -1).every((c: { action: string }) => c.action === 'hold')).toBe(true);
    const errorRate = checks.at(-1).figures.guardrails.find((g: { name: string }) => g.name === 'runs:error_rate');
    expect(errorRate).toMatchObject({ worse: true, direction: 'lower' });
    expect(errorRate.interval[0]).toBeGreaterThan(0);
    // What `promptline experiments show bad` prints of it.
    const printed = rolloutTimeline(ended, checks);
    expect(printed).toMatch(/^rollout: step 1 of 3 \(40% of users, half of them on the candidate\); ships by itself/);
    expect(printed).toContain(`\nROLLED BACK: ${ended.reason}\n`);
    expect(printed).toMatch(/\n\S+\s+scheduled\s+rollback\s+1 \(40%\)\s+\d+\s+runs:error_rate 0\.\d+ vs 0\.\d+ \[\+[\d.]+, \+[\d.]+\] WORSE; runs:latency_ms /);
    const audit = (await t.request('GET', '/audit?target_id=bad&limit=1')).json.data[0];
    expect(audit).toMatchObject({ action: 'experiment.rolled_back', key_name: 'scheduler', after: { status: 'rolled_back', reason: ended.reason } });
    expect(await events()).toContainEqual({ type: 'experiment.rolled_back', target: 'bad' });
    expect((await events()).filter((e) => e.target === 'risky')).toEqual([]); // no label moved
  });

  it('whose candidate does no harm advances step by step, keeps every user in their variant, and ships', async () => {
    await rollout('good', 'harmless', [
      { percent: 20, min_users: 20, min_minutes: 60 },
      { percent: 50, min_users: 50, min_minutes: 60 },
      { percent: 100, min_users: 80, min_minutes: 60 },
    ]);
    // A check asked for before any traffic: it holds, and says why.
    const first = await t.request('POST', '/experiments/good/check');
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ type: 'rollout', status: 'running', trigger: 'manual', scheduled_at: null, action: 'hold', step: 0, percent: 20 });
    expect(first.json.reason).toBe('Holding at step 1 of 3 (20%): 0 of 20 users, 0 of 60 minutes so far; no guardrail got worse.');

    const candidates = new Set<string>();
    const bundleRanges: Array<[number, number]> = [];
    let hours = 0;
    while ((await experiment('good')).status === 'running' && hours < 12) {
      for (const [user, variant] of await hourOfTraffic('harmless', 150, hours++)) if (variant === 'candidate') candidates.add(user);
      const bundle = (await t.request('GET', '/sdk/bundle', { key: runtime })).json;
      const running = bundle.experiments.find((e: { experiment_id: string }) => e.experiment_id === 'good');
      if (running !== undefined) {
        expect(running.remote_only).toBe(false); // the hash alone still places every user
        bundleRanges.push(running.variants[1].range);
      }
      // Everyone served the candidate so far still is, by the server and by the bundle's ranges.
      for (const user of candidates) {
        const again = await t.request('POST', '/get_prompt', { key: runtime, body: { prompt_id: 'harmless', inputs: { q: 'x' }, external_user_id: user } });
        expect(again.json.prompt_version).toBe(2);
        if (running !== undefined) {
          const h = hashV2('good', user);
          expect(h >= running.variants[1].range[0] && h < running.variants[1].range[1]).toBe(true);
        }
      }
      now += HOUR;
      await t.scheduler.runDue();
    }
    const ended = await experiment('good');
    expect(ended).toMatchObject({ status: 'shipped', winner: 'candidate', shipped_version: 2, rollout: { step: 2, current_percent: 100 } });
    expect(ended.reason).toMatch(/^Shipped: the last step \(100%\) met its minimums and every guardrail is shown within its tolerance/);
    expect(await production('harmless')).toBe(2);
    expect(candidates.size).toBeGreaterThan(10);
    // The candidate's range only grew: [0.5, 0.6) → [0.5, 0.75) → [0.5, 1).
    for (let i = 1; i < bundleRanges.length; i++) {
      expect(bundleRanges[i]![0]).toBe(bundleRanges[i - 1]![0]);
      expect(bundleRanges[i]![1]).toBeGreaterThanOrEqual(bundleRanges[i - 1]![1]);
    }
    const { data: checks } = (await t.request('GET', '/experiments/good/checks')).json;
    const steps = rolloutTimeline(ended, checks).split('\n\n')[1]!.split('\n');
    expect(steps.slice(1).map((line) => line.split(/\s+/)[4])).toEqual([
      ended.started_at,
      ...checks.filter((c: { action: string }) => c.action === 'advance').map((c: { checked_at: string }) => c.checked_at),
    ]);
    expect(checks.map((c: { action: string }) => c.action).filter((a: string) => a !== 'hold')).toEqual(['advance', 'advance', 'ship']);
    expect(await events()).toEqual(
      expect.arrayContaining([
        { type: 'experiment.advanced', target: 'good' },
        { type: 'experiment.shipped', target: 'good' },
        { type: 'prompt.label_moved', target: 'harmless' },
      ]),
    );
    expect((await events()).filter((e) => e.type === 'experiment.advanced' && e.target === 'good')).toHaveLength(2);
  });

  it('with auto_ship false waits for a person at the end, says so, and ships on their stop with ship', async () => {
    await rollout('ask', 'approved', [{ percent: 50, min_users: 10, min_minutes: 0 }], { auto_ship: false });
    await hourOfTraffic('approved', 300, 0);
    const waiting = await t.request('POST', '/experiments/ask/check');
    expect(waiting.json).toMatchObject({ action: 'await_approval', status: 'running' });
    expect(waiting.json.reason).toMatch(/^Waiting for approval/);
    expect((await experiment('ask')).rollout.awaiting_approval).toBe(true);
    expect((await t.request('POST', '/experiments/ask/check')).json).toMatchObject({ action: 'hold', reason: waiting.json.reason });
    expect(await production('approved')).toBe(1);
    const shipped = await t.request('POST', '/experiments/ask/stop', { body: { winner: 'candidate', ship: true } });
    expect(shipped.status).toBe(200);
    expect(shipped.json).toMatchObject({ status: 'shipped', shipped_version: 2 });
    expect(shipped.json.reason).toMatch(/^Shipped on approval/);
    expect(await production('approved')).toBe(2);
    expect(await events()).toContainEqual({ type: 'experiment.shipped', target: 'ask' });
  });

  it('can be listed by how it ended, and refuses edits of what its type sets', async () => {
    const list = async (status: string) =>
      (await t.request('GET', `/experiments?status=${status}`)).json.data.map((e: { experiment_id: string }) => e.experiment_id);
    expect(await list('rolled_back')).toEqual(['bad']);
    expect((await list('shipped')).sort()).toEqual(['ask', 'good']);
    const patched = await t.request('PATCH', '/experiments/shape', { body: { coverage: 0.5 } });
    expect(patched.status).toBe(422);
    expect(patched.json.detail[0].loc).toEqual(['body', 'coverage']);
  });
});
