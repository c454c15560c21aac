import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenExperiment, givenPrompt } from '../../support/fixtures.js';
import { fnv1a32 } from '../../../src/modules/experiments/assignment.js';

/**
 * A bandit end to end through the API, with the app's clock driven by the test: users served by
 * /get_prompt and their outcomes tracked, a check re-weights towards the arm that converts more
 * (new users follow, assigned users keep their variant), the results weight each period, and a
 * later check ships the winner once it stayed the likely best long enough.
 */
let now = new Date('2026-03-02T08:00:00.000Z');
const clock = { now: () => now };
const later = (minutes: number) => {
  now = new Date(now.getTime() + minutes * 60_000);
};

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({}, { clock, schedulerTimers: false, webhookTimers: false });
  await givenPrompt(t, { prompt_id: 'greet', template: 'A: hi {{name}}', labels: ['production'], versions: ['B: hello {{name}}', 'C: hey {{name}}'] });
});
afterAll(async () => t.cleanup());

/**
 * Users served through /get_prompt, each with one signup outcome: a success for c's users 60% of the
 * time, for the others' 5%, decided by a hash of the user id (the same every run, and unrelated to
 * the variant's hash). Answers how many users each variant got.
 */
async function traffic(prefix: string, users: number): Promise<Record<string, number>> {
  const byVariant: Record<string, number> = {};
  for (let i = 0; i < users; i++) {
    const user = `${prefix}-${i}`;
    const served = await t.request('POST', '/get_prompt', { body: { prompt_id: 'greet', external_user_id: user, inputs: { name: 'Ada' } } });
    const variant = served.json.variant_assigned as string;
    byVariant[variant] = (byVariant[variant] ?? 0) + 1;
    const is_success = fnv1a32(`outcome:${user}`) % 100 < (variant === 'c' ? 60 : 5);
    const tracked = await t.request('POST', '/track_outcome', { body: { prompt_id: 'greet', external_user_id: user, event_type: 'signup', is_success } });
    expect(tracked.status).toBe(200);
  }
  return byVariant;
}

const count = async (sql: string, params: unknown[] = []) => Number(await t.store.sql.value<number>(sql, params));
const BANDIT = {
  type: 'bandit',
  variants: { a: 1, b: 2, c: 3 },
  metrics: [{ event_type: 'signup', kind: 'success_rate', role: 'primary' }],
};

describe('a bandit through the API', () => {
  it('is created with its settings filled in and period 0 as its history', async () => {
    const hook = await t.request('POST', '/webhooks', { body: { url: 'https://example.com/hooks', events: ['experiment.reweighted', 'experiment.shipped'] } });
    expect(hook.status).toBe(201);
    const made = await givenExperiment(t, { experiment_id: 'bb', prompt_id: 'greet', ...BANDIT, bandit: { stop_after_minutes: 60 }, start: true });
    expect(made).toMatchObject({ type: 'bandit', bandit: { floor: null, stop_threshold: 0.95, stop_after_minutes: 60 } });
    const shown = (await t.request('GET', '/experiments/bb')).json;
    expect(shown.allocation_history).toEqual([
      { period: 0, started_at: shown.started_at, weights: { a: 1 / 3, b: 1 / 3, c: 1 / 3 }, p_best: null, dropped: [] },
    ]);
  });

  it('re-weights towards the arm that converts more: new users follow, assigned users keep their variant', async () => {
    const first = await traffic('early', 150);
    const earlyVariant = (await t.request('POST', '/get_prompt', { body: { prompt_id: 'greet', external_user_id: 'early-0', inputs: { name: 'x' } } })).json
      .variant_assigned;
    later(60);
    const check = await t.request('POST', '/experiments/bb/check');
    expect(check.status).toBe(200);
    expect(check.json).toMatchObject({ type: 'bandit', action: 'reweight', status: 'running', trigger: 'manual' });
    expect(check.json.reason).toMatch(/^Re-weighted new users: c /);
    const weights = check.json.figures.weights as Record<string, number>;
    expect(weights.c).toBeGreaterThan(0.5);
    expect(Math.min(weights.a!, weights.b!)).toBeGreaterThanOrEqual(1 / 30 - 1e-12);

    const shown = (await t.request('GET', '/experiments/bb')).json;
    expect(Object.fromEntries(shown.variants.map((v: { key: string; weight: number }) => [v.key, v.weight]))).toEqual(weights);
    expect(shown.allocation_history).toHaveLength(2);
    expect(shown.allocation_history[1]).toMatchObject({ period: 1, started_at: now.toISOString(), weights, dropped: [] });
    expect(shown.allocation_history[1].p_best.c).toBeGreaterThan(0.9);
    expect(await count("SELECT count(*) FROM audit_log WHERE action = 'experiment.reweighted'")).toBe(1);
    // The webhook event announces it, with the new weights and why.
    const payload = JSON.parse(
      (await t.store.sql.value<string>("SELECT payload FROM webhook_deliveries WHERE event_type = 'experiment.reweighted'")) ?? 'null',
    );
    expect(payload.after).toMatchObject({ check_reason: check.json.reason, p_best: check.json.figures.p_best });

    // Sticky: a user assigned before keeps their variant; new users mostly get c now.
    const again = await t.request('POST', '/get_prompt', { body: { prompt_id: 'greet', external_user_id: 'early-0', inputs: { name: 'x' } } });
    expect(again.json.variant_assigned).toBe(earlyVariant);
    const second = await traffic('late', 150);
    expect(second.c! / 150).toBeGreaterThan(0.5);
    expect(second.c! / 150).toBeGreaterThan(first.c! / 150);
  });

  it('reports period-weighted estimates, P(best) and a sample-ratio check against each period’s weights', async () => {
    const r = (await t.request('GET', '/experiments/bb/results')).json;
    expect(r.bandit.periods).toHaveLength(2);
    expect(r.bandit.periods.map((p: { users: Record<string, number> }) => Object.values(p.users).reduce((s, n) => s + n, 0))).toEqual([150, 150]);
    const c = r.bandit.arms.find((a: { variant: string }) => a.variant === 'c');
    expect(c.estimate).toBeGreaterThan(0.4);
    expect(c.ci_lower).toBeLessThan(c.estimate);
    expect(c.p_best).toBeGreaterThan(0.9);
    expect(r.bandit.srm.flagged).toBe(false);
    expect(r.health.srm).toEqual(r.bandit.srm);
    expect(r.bandit.monte_carlo_draws).toBe(10_000);
  });

  it('ships the winner once its probability of being best held above the threshold for the set time', async () => {
    later(60);
    const check = await t.request('POST', '/experiments/bb/check');
    expect(check.json).toMatchObject({ action: 'ship', status: 'shipped' });
    expect(check.json.reason).toMatch(/^Shipped c: its probability of being the best arm has stayed at or above 95% for at least 60 minutes/);
    const shown = (await t.request('GET', '/experiments/bb')).json;
    expect(shown).toMatchObject({ status: 'shipped', winner: 'c', shipped_version: 3 });
    expect((await t.request('GET', '/prompts/greet')).json.labels.production).toBe(3);
    expect(await count("SELECT count(*) FROM audit_log WHERE action = 'experiment.shipped'")).toBe(1);
    expect(await count("SELECT count(*) FROM webhook_deliveries WHERE event_type = 'experiment.shipped'")).toBe(1);
    expect((await t.request('POST', '/experiments/bb/check')).status).toBe(409);
  });
});

describe('a bandit create that cannot work', () => {
  const refused = async (body: Record<string, unknown>, loc: unknown[]) => {
    const before = await count('SELECT count(*) FROM experiments');
    const res = await t.request('POST', '/experiments', { body: { prompt_id: 'greet', ...body } });
    expect(res.status).toBe(422);
    expect(res.json.detail.map((d: { loc: unknown[] }) => d.loc)).toContainEqual(loc);
    expect(await count('SELECT count(*) FROM experiments')).toBe(before);
  };
  const variants = (n: number) => Array.from({ length: n }, (_, i) => ({ key: `v${i}`, version: (i % 3) + 1 }));
  const primary = { primary_metric: { event_type: 'signup', kind: 'success_rate' } };

  it('is refused with 422 at the field, storing nothing', async () => {
    await refused({ type: 'bandit', variants: variants(11), ...primary }, ['body', 'variants']);
    await refused({ type: 'bandit', variants: variants(2), metrics: [{ source: 'runs', kind: 'latency_ms', role: 'primary' }] }, ['body', 'metrics']);
    await refused({ type: 'bandit', variants: variants(3), ...primary, bandit: { floor: 0.4 } }, ['body', 'bandit', 'floor']);
    await refused({ type: 'bandit', variants: variants(2), ...primary, coverage: 0.5 }, ['body', 'coverage']);
    await refused({ variants: variants(2), ...primary, bandit: { stop_threshold: 0.9 } }, ['body', 'bandit']);
    await refused({ type: 'bandit', variants: variants(2), ...primary, bandit: { stop_threshold: 1 } }, ['body', 'bandit', 'stop_threshold']);
  });
});
