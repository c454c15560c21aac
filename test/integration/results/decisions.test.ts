import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holmAdjust } from '../../../src/stats/index.js';
import { parseCsv } from '../../support/csv.js';
import { behave, FakeOpenAI } from '../../support/fakeOpenAI.js';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenExperiment, givenPrompt } from '../../support/fixtures.js';
import { writeTempJson } from '../../support/tempJson.js';

/**
 * Decisions end to end through the runtime API and a fake provider: a variant that converts better
 * but costs three times as much is rolled back on its cost guardrail; one that converts better at
 * the same cost ships; outcomes of event types nobody declared change nothing declared.
 */
let t: TestApp;
let fake: FakeOpenAI;
let runtime: string;
let read: string;
let calls = 0;

const USERS = 160;
const PRICES = { 'fake/cheap': { input: 1, output: 1 }, 'fake/dear': { input: 3, output: 3 } };

/** Completion tokens vary from call to call the same way in every variant, so costs have variation. */
function scriptNextCall(): void {
  const completion = 20 + ((calls++ * 7) % 30);
  fake.script([behave.ok({ usage: { prompt_tokens: 11, completion_tokens: completion } })]);
}

/** Every user runs the prompt once; a share of each variant converts, and users "regenerate" a number of times. */
async function traffic(promptId: string, prefix: string, convertEvery: Record<string, number>, regenerations: Record<string, number>) {
  const byVariant = new Map<string, string[]>();
  for (let i = 0; i < USERS; i++) {
    const user = `${prefix}-${i}`;
    scriptNextCall();
    const res = await t.request('POST', '/run_prompt', { key: runtime, body: { prompt_id: promptId, inputs: { q: 'x' }, external_user_id: user } });
    expect(res.status).toBe(200);
    const variant = res.json.variant_assigned as string;
    const list = byVariant.get(variant) ?? [];
    list.push(user);
    byVariant.set(variant, list);
    const rank = list.length;
    const every = convertEvery[variant]!;
    await t.request('POST', '/track_outcome', {
      key: runtime,
      body: { prompt_id: promptId, external_user_id: user, event_type: 'convert', is_success: rank % every === 0 },
    });
    const times = (rank % 3) + regenerations[variant]!;
    if (times > 0) {
      await t.request('POST', '/track_outcome', {
        key: runtime,
        body: { prompt_id: promptId, external_user_id: user, event_type: 'regenerate', numeric_value: times },
      });
    }
  }
  return byVariant;
}

const results = async (id: string, query = '') => {
  const res = await t.request('GET', `/experiments/${id}/results${query}`, { key: read });
  expect(res.status).toBe(200);
  expect(res.text).not.toMatch(/NaN|Infinity/);
  return res.json;
};

const declared = [
  { event_type: 'convert', kind: 'success_rate', role: 'primary' },
  { event_type: 'regenerate', kind: 'mean', role: 'secondary', direction: 'lower' },
  { source: 'runs', kind: 'cost_usd', role: 'guardrail' },
  { source: 'runs', kind: 'error_rate', role: 'guardrail' },
  // Wall-clock latency of a loopback fake varies at random: a secondary goal, so it cannot flip a decision.
  { source: 'runs', kind: 'latency_ms', role: 'secondary', cap: { percentile: 0.5 } },
];

async function experiment(id: string, promptId: string) {
  await givenExperiment(t, { experiment_id: id, prompt_id: promptId, metrics: declared, start: true });
}

let dearReport: any;
let fineReport: any;

beforeAll(async () => {
  fake = new FakeOpenAI();
  const { baseURL } = await fake.start();
  t = await startTestApp({ PROMPTLINE_PROVIDER_FAKE_BASE_URL: baseURL, PROMPTLINE_PRICES_FILE: writeTempJson(PRICES) });
  runtime = await t.keyFor('runtime');
  read = await t.keyFor('read');
  for (const [id, second] of [
    ['dear', 'fake/dear'],
    ['fine', 'fake/cheap'],
  ] as const) {
    await givenPrompt(t, { prompt_id: id, template: 'one {{q}}', model: 'fake/cheap', versions: [{ template: 'two {{q}}', model: second }] });
  }
  // b converts three times as often (1 in 2 against 1 in 6) and regenerates less in both experiments.
  await experiment('exp-dear', 'dear');
  await traffic('dear', 'd', { a: 6, b: 2 }, { a: 1, b: 0 });
  await experiment('exp-fine', 'fine');
  await traffic('fine', 'f', { a: 6, b: 2 }, { a: 1, b: 0 });
  dearReport = await results('exp-dear');
  fineReport = await results('exp-fine');
});
afterAll(async () => {
  await t.cleanup();
  await fake.close();
});

describe('decisions', () => {
  it('rolls back a variant that converts better but costs three times as much', () => {
    const convert = dearReport.metrics[0].comparisons[0];
    expect(convert.verdict).toBe('better');
    const cost = dearReport.guardrails.find((g: any) => g.name === 'runs:cost_usd');
    expect(cost).toMatchObject({ source: 'runs', event_type: null, role: 'guardrail', direction: 'lower' });
    const c = cost.comparisons[0];
    expect(c.relative.lift).toBeGreaterThan(1.5);
    expect(c.verdict).toBe('worse');
    expect(c.p_value_worse).toBeLessThan(0.001);
    expect(c.p_value_adjusted).toBeNull();
    expect(c.bayes.chance_to_win).toBeLessThan(0.01); // the chance of being better, and lower cost is better
    expect(dearReport.decisions).toEqual([
      {
        variant: 'b',
        decision: 'rollback',
        reason: `Roll back: on the guardrail runs:cost_usd, ${c.verdict_text.charAt(0).toLowerCase()}${c.verdict_text.slice(1)}.`,
        users_needed: null,
        days_needed: null,
      },
    ]);
  });

  it('ships a variant that converts better at the same cost, and no guardrail got worse', () => {
    const [convert, regenerate] = fineReport.metrics;
    expect(fineReport.metrics.map((m: any) => m.name)).toEqual(['convert:success_rate', 'regenerate:mean', 'runs:latency_ms']);
    expect(convert.comparisons[0].verdict).toBe('better');
    for (const g of fineReport.guardrails) expect(g.comparisons[0].verdict).not.toBe('worse');
    expect(fineReport.decisions[0]).toMatchObject({ variant: 'b', decision: 'ship', users_needed: null, days_needed: null });
    expect(fineReport.decisions[0].reason).toMatch(
      /^Ship: on the primary metric convert:success_rate, variant b is better than control a .*, and no guardrail got worse\.$/,
    );
    // Lower is better for regenerations: b regenerates less, so it is better and likely to win.
    const r = regenerate.comparisons[0];
    expect(r.relative.lift).toBeLessThan(0);
    expect(r.verdict).toBe('better');
    expect(r.bayes.chance_to_win).toBeGreaterThan(0.99);
  });

  it('corrects the goal metrics together and nothing else', () => {
    const goals = fineReport.metrics.flatMap((m: any) => m.comparisons);
    expect(goals.map((c: any) => c.p_value_adjusted)).toEqual(holmAdjust(goals.map((c: any) => c.relative.p_value)));
    for (const g of fineReport.guardrails) expect(g.comparisons[0].p_value_adjusted).toBeNull();
  });

  it('reads error rate 0 in both variants as no sign of harm (the rates are compared at the edge), not as "not enough data"', () => {
    const errors = fineReport.guardrails.find((g: any) => g.name === 'runs:error_rate');
    expect(errors.variants.map((v: any) => v.value)).toEqual([0, 0]);
    expect(errors.comparisons[0]).toMatchObject({ enough_data: true, verdict: 'no_detectable_difference', p_value_worse: 1 });
  });

  it("caps a runs metric at the percentile of the users' own values", async () => {
    const latency = fineReport.metrics.find((g: any) => g.name === 'runs:latency_ms');
    // Number(): PostgreSQL answers avg() as NUMERIC, which its driver hands over as text.
    const perUser = (
      await t.store.sql.column<number | string>(`SELECT avg(latency_ms) FROM runs WHERE experiment_id = 'exp-fine' GROUP BY external_user_id ORDER BY 1`)
    ).map(Number);
    const cap = perUser[Math.ceil(0.5 * perUser.length) - 1]!;
    expect(latency.cap).toEqual({ value: cap, percentile: 0.5 });
    const capped = perUser.map((x) => Math.min(x, cap));
    expect(latency.variants.reduce((s: number, v: any) => s + v.sum, 0)).toBeCloseTo(
      capped.reduce((s, x) => s + x, 0),
      9,
    );
    expect(latency.variants.reduce((s: number, v: any) => s + v.n, 0)).toBe(USERS);
  });

  it('leaves every declared number unchanged, to the last digit, when the app sends undeclared events', async () => {
    const before = await results('exp-fine');
    for (let i = 0; i < USERS; i++) {
      for (const event_type of ['scroll', 'hover', 'copy', 'share']) {
        await t.request('POST', '/track_outcome', {
          key: runtime,
          body: { prompt_id: 'fine', external_user_id: `f-${i}`, event_type, is_success: (i * 7) % 3 === 0, numeric_value: (i * 13) % 5 },
        });
      }
    }
    const after = await results('exp-fine');
    expect({ ...after, generated_at: before.generated_at }).toEqual(before);
    const explored = await results('exp-fine', '?explore=true');
    expect(explored.exploratory.map((m: any) => m.name)).toEqual([
      'copy:success_rate',
      'copy:mean',
      'hover:success_rate',
      'hover:mean',
      'scroll:success_rate',
      'scroll:mean',
      'share:success_rate',
      'share:mean',
    ]);
    for (const m of explored.exploratory) expect(m.comparisons[0].p_value_adjusted).toBeNull();
    for (const section of ['metrics', 'guardrails', 'decisions', 'variants', 'health', 'primary', 'timeseries'] as const)
      expect(explored[section]).toEqual(before[section]);
  });

  it('answers the same decisions in CSV', async () => {
    const csv = (await t.request('GET', '/experiments/exp-dear/results?format=csv', { key: read })).text;
    const [header, ...rows] = parseCsv(csv) as [string[], ...string[][]];
    const decisionAt = header.indexOf('decision');
    const roleAt = header.indexOf('role');
    expect(rows.map((r) => r[roleAt])).toEqual([
      'primary',
      'primary',
      ...Array.from({ length: 4 }, () => 'secondary'),
      ...Array.from({ length: 4 }, () => 'guardrail'),
    ]);
    expect(new Set(rows.filter((r) => r[header.indexOf('variant')] === 'b').map((r) => r[decisionAt]))).toEqual(new Set(['rollback']));
  });
});
