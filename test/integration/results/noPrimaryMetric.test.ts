import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenExperiment, givenPrompt } from '../../support/fixtures.js';

let t: TestApp;
let runtime: string;
let read: string;
let projectId: string;
const results = (query = '', key: string | null = read, id = 'np-exp') => t.request('GET', `/experiments/${id}/results${query}`, { key });

beforeAll(async () => {
  t = await startTestApp();
  runtime = await t.keyFor('runtime');
  read = await t.keyFor('read');
  projectId = (await t.keys.authenticate(read))!.projectId;
});
afterAll(async () => t.cleanup());

describe('results without any declared metric', () => {
  it('explores every event type, checks the one most users have against assignments, costs per user with any success, plots no metric and decides nothing', async () => {
    await givenPrompt(t, { prompt_id: 'np', template: 'x' });
    await givenExperiment(t, {
      experiment_id: 'np-exp',
      prompt_id: 'np',
      variants: { a: 1, b: 1 },
      start: true,
    });
    const seen = new Map<string, string>();
    for (const user of ['n1', 'n2', 'n3', 'n4', 'n5', 'n6']) {
      seen.set(user, (await t.request('POST', '/get_prompt', { key: runtime, body: { prompt_id: 'np', external_user_id: user } })).json.variant_assigned);
    }
    const trackNp = (body: Record<string, unknown>) => t.request('POST', '/track_outcome', { key: runtime, body: { prompt_id: 'np', ...body } });
    for (const user of seen.keys()) {
      await trackNp({ external_user_id: user, event_type: 'x', is_success: true });
      await trackNp({ external_user_id: user, event_type: 'y', is_success: true }); // the same users: counted once per variant
    }
    const [inA, inB] = (['a', 'b'] as const).map((k) => [...seen].filter(([, v]) => v === k).map(([u]) => u)) as [string[], string[]];
    await t.store.writer.write((tx) =>
      tx.run(
        `INSERT INTO runs (id, project_id, prompt_id, prompt_version, experiment_id, variant, external_user_id, inputs, rendered,
        model_requested, cost_nano_usd, latency_ms, status, attempts, created_at)
      VALUES ('run_np', ?, 'np', 1, 'np-exp', 'a', ?, '{}', '[]', 'echo/echo', 9000, 1, 'ok', '[]', '2030-01-01T00:00:00.000Z')`,
        [projectId, inA[0] ?? 'n1'],
      ),
    );
    // A user seen in the other variant through y, which then has the most users: the event type checked without a primary metric.
    const stray = inA[0] ?? inB[0]!;
    await t.store.writer.write((tx) =>
      tx.run(
        `INSERT INTO outcomes (id, project_id, prompt_id, event_type, is_success, experiment_id, variant, attributed_by, attributed_user, created_at)
      VALUES ('out_stray', ?, 'np', 'y', 0, 'np-exp', ?, 'run', ?, '2030-01-01T00:00:00.000Z')`,
        [projectId, seen.get(stray) === 'a' ? 'b' : 'a', stray],
      ),
    );
    const r = (await results('', read, 'np-exp')).json;
    expect(r.primary).toBeNull();
    expect(r.options.explore).toBe(true);
    expect(r.metrics).toEqual([]);
    expect(r.exploratory.map((m: { event_type: string; role: string }) => [m.event_type, m.role])).toEqual([
      ['x', 'exploratory'],
      ['y', 'exploratory'],
    ]);
    expect(r.exploratory.flatMap((m: any) => m.comparisons.map((c: any) => c.p_value_adjusted))).toEqual([null, null]);
    // One user of six in both variants: far over the 1% a split may leak, so nothing is decided on it.
    expect(r.decisions).toEqual([
      {
        variant: 'b',
        decision: 'unhealthy',
        reason: 'Unhealthy: 16.7% of users were seen in more than one variant (over 1%); find out why before trusting any result.',
        users_needed: null,
        days_needed: null,
      },
    ]);
    expect((await results('?explore=false', read, 'np-exp')).json.exploratory).toEqual([]);
    expect(r.variants[0].cost_usd).toEqual({
      total: 0.000009,
      per_run: 0.000009,
      per_successful_user: inA.length > 0 ? Math.round(9000 / inA.length) / 1e9 : null,
    });
    expect(r.health.users_in_multiple_variants).toBe(1);
    expect(r.timeseries[0].variants.a.cumulative_value).toBeNull();
    expect(r.timeseries[0].variants.a.cumulative_exposures).toBe(inA.length);
  });
});
