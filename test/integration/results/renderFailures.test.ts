import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenExperiment, givenPrompt } from '../../support/fixtures.js';
import { behave, FakeOpenAI } from '../../support/fakeOpenAI.js';

/**
 * A variant whose version needs a variable its callers do not send: every call of its users fails
 * to render (422, as the runtime contract says) after the user was assigned. Those failures are
 * errors of the variant: its render_failures and its error_rate show them, so a broken variant
 * reads as broken instead of "no detectable difference".
 */
let t: TestApp;
let fake: FakeOpenAI;
const USERS = 120;
const served: Record<string, number> = {};
const statuses: Record<string, number[]> = { current: [], agent: [] };
const agentUsers: string[] = [];

beforeAll(async () => {
  fake = new FakeOpenAI();
  t = await startTestApp({ PROMPTLINE_PROVIDER_FAKE_BASE_URL: (await fake.start()).baseURL });
  await givenPrompt(t, {
    prompt_id: 'greet',
    template: 'Hi {{name}}',
    model: 'fake/model',
    labels: ['production'],
    versions: [{ template: 'Hi {{name}}, this is {{agent_name}}', model: 'fake/model' }],
  });
  await givenExperiment(t, {
    experiment_id: 'broken',
    prompt_id: 'greet',
    variants: { current: 1, agent: 2 },
    metrics: [{ source: 'runs', kind: 'error_rate', role: 'primary' }],
    start: true,
  });
  for (let i = 0; i < USERS; i++) {
    const user = `user-${i}`;
    // Most callers send only `name`; one in five was updated and sends `agent_name` too.
    const inputs = i % 5 === 0 ? { name: 'Ada', agent_name: 'Bo' } : { name: 'Ada' };
    const body = { prompt_id: 'greet', external_user_id: user, inputs };
    const asked = await t.request('POST', '/get_prompt', { body });
    const variant = asked.status === 422 ? 'agent' : (asked.json.variant_assigned as string);
    served[variant] = (served[variant] ?? 0) + 1;
    statuses[variant]!.push(asked.status);
    if (variant === 'agent' && asked.status === 422) agentUsers.push(user);
    // The current version's runs fail now and then at the provider (stored runs with status error).
    if (variant === 'current' && i % 4 === 0) fake.script([behave.badRequest()]);
    statuses[variant]!.push((await t.request('POST', '/run_prompt', { body })).status);
  }
});
afterAll(async () => {
  await t.cleanup();
  await fake.close();
});

describe('calls that fail to render inside a variant', () => {
  it('answer the 422 of the runtime contract, unchanged', async () => {
    expect(new Set(statuses.agent)).toEqual(new Set([200, 422]));
    expect(new Set(statuses.current)).toEqual(new Set([200, 502]));
    const res = await t.request('POST', '/get_prompt', { body: { prompt_id: 'greet', external_user_id: agentUsers[0], inputs: { name: 'Ada' } } });
    expect([res.status, res.json]).toEqual([
      422,
      { detail: [{ type: 'missing', loc: ['body', 'inputs', 'agent_name'], msg: 'Field required', input: { name: 'Ada' } }] },
    ]);
    statuses.agent!.push(res.status); // counted like the others
  });

  it("count as the variant's errors: render_failures, and error_rate over the users with runs or failures", async () => {
    const report = (await t.request('GET', '/experiments/broken/results')).json;
    const [current, agent] = report.variants;
    expect(served.agent).toBeGreaterThan(10);
    const failedRuns = statuses.current!.filter((s) => s === 502).length;
    expect(failedRuns).toBeGreaterThan(0);
    expect(current).toMatchObject({ key: 'current', users: served.current, runs: served.current, errored_runs: failedRuns, render_failures: 0 });
    // Each agent user without agent_name failed twice (/get_prompt, /run_prompt), with no run stored.
    const failedRenders = statuses.agent!.filter((s) => s === 422).length;
    expect(failedRenders).toBe(2 * agentUsers.length + 1); // and the one asked again above
    const agentRuns = served.agent! - agentUsers.length;
    expect(agent).toMatchObject({ key: 'agent', users: served.agent, runs: agentRuns, errored_runs: 0, render_failures: failedRenders });
    const [errorRate] = report.metrics;
    expect(errorRate.name).toBe('runs:error_rate');
    const byKey = Object.fromEntries(errorRate.variants.map((v: { key: string }) => [v.key, v]));
    expect(byKey.current).toMatchObject({ n: served.current, sum: failedRuns });
    expect(byKey.agent).toMatchObject({ n: served.agent, sum: agentUsers.length, value: agentUsers.length / served.agent! });
    expect(errorRate.comparisons[0]).toMatchObject({ variant: 'agent', verdict: 'worse' });
    expect(report.decisions[0]).toMatchObject({
      variant: 'agent',
      decision: 'rollback',
      reason: expect.stringContaining('calls failed to render variant agent'),
    });
  });

  it('are kept under the alias when the user is forgotten', async () => {
    const res = await t.request('DELETE', `/users/${agentUsers[0]}`);
    expect(res.status).toBe(200);
    const report = (await t.request('GET', '/experiments/broken/results')).json;
    const failedRenders = statuses.agent!.filter((s) => s === 422).length;
    expect(report.variants.map((v: { render_failures: number }) => v.render_failures)).toEqual([0, failedRenders]);
  });
});
