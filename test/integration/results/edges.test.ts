import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenExperiment, givenPrompt } from '../../support/fixtures.js';

/**
 * Results at the edges (issue 40), through the API: 0 conversions among the control's users against
 * every treatment user converting is decided (ship), not "not enough data"; and a declared guardrail
 * that cannot be checked keeps the same experiment running instead of letting it ship.
 */
let t: TestApp;
let runtime: string;

beforeAll(async () => {
  t = await startTestApp();
  runtime = await t.keyFor('runtime');
});
afterAll(async () => t.cleanup());

/** 400 users through /get_prompt; every treatment user converts, no control user does. */
async function allOrNothing(promptId: string): Promise<Record<string, number>> {
  const users: Record<string, number> = {};
  for (let i = 0; i < 400; i++) {
    const user = `${promptId}-${i}`;
    const served = await t.request('POST', '/get_prompt', { key: runtime, body: { prompt_id: promptId, inputs: { name: 'x' }, external_user_id: user } });
    expect(served.status).toBe(200);
    const variant = served.json.variant_assigned as string;
    users[variant] = (users[variant] ?? 0) + 1;
    const body = { prompt_id: promptId, external_user_id: user, event_type: 'convert', is_success: variant === 'b' };
    expect((await t.request('POST', '/track_outcome', { key: runtime, body })).status).toBeLessThan(300);
  }
  return users;
}

describe('results at the edges', () => {
  it('0 of the control users converted, all of the treatment users did: better, and the decision is ship', async () => {
    await givenPrompt(t, { prompt_id: 'edge', versions: ['Hello {{name}}'] });
    await givenExperiment(t, {
      experiment_id: 'edge',
      prompt_id: 'edge',
      metrics: [{ event_type: 'convert', kind: 'success_rate', role: 'primary' }],
      start: true,
    });
    const users = await allOrNothing('edge');
    const report = (await t.request('GET', '/experiments/edge/results')).json;
    const c = report.metrics[0].comparisons[0];
    expect(c).toMatchObject({ enough_data: true, verdict: 'better', absolute: { lift: 1 } });
    expect(c.absolute.ci[1]).toBe(1);
    expect(c.absolute.ci[0]).toBeGreaterThan(0.9);
    expect(c.p_value_adjusted).toBeLessThan(0.001);
    expect(c.bayes.chance_to_win).toBeGreaterThan(0.999);
    expect(report.decisions[0]).toMatchObject({ variant: 'b', decision: 'ship' });
    expect(report.decisions[0].reason).toMatch(
      /^Ship: on the primary metric convert:success_rate, variant b is better than control a \(\+1 absolute, Holm-adjusted p<0\.001\)/,
    );
    const sequential = (await t.request('GET', '/experiments/edge/results?sequential=true')).json;
    expect(sequential.metrics[0].comparisons[0]).toMatchObject({ enough_data: true, verdict: 'better' });
    expect(users.a! + users.b!).toBe(400);
    // The ship guard reads the same decision: no override needed.
    const stop = await t.request('POST', '/experiments/edge/stop', { body: { winner: 'b', ship: true } });
    expect(stop.status).toBe(200);
  });

  it('a guardrail that cannot be checked (a mean nobody sends) is no sign of safety: keep running, saying which', async () => {
    await givenPrompt(t, { prompt_id: 'guarded', versions: ['Hello {{name}}'] });
    const metrics = [
      { event_type: 'convert', kind: 'success_rate', role: 'primary' },
      { event_type: 'refund', kind: 'mean', role: 'guardrail', direction: 'lower' },
    ];
    await givenExperiment(t, { experiment_id: 'guarded', prompt_id: 'guarded', metrics, start: true });
    await allOrNothing('guarded');
    const report = (await t.request('GET', '/experiments/guarded/results')).json;
    expect(report.metrics[0].comparisons[0].verdict).toBe('better');
    expect(report.guardrails[0].comparisons[0].verdict).toBe('not_enough_data');
    expect(report.decisions[0]).toMatchObject({ variant: 'b', decision: 'keep_running' });
    expect(report.decisions[0].reason).toMatch(
      /^Keep running: on the primary metric convert:success_rate, variant b is better .* but the guardrail refund:mean cannot be checked yet/,
    );
    const stop = await t.request('POST', '/experiments/guarded/stop', { body: { winner: 'b', ship: true } });
    expect(stop.status).toBe(409);
  });
});
