import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenExperiment, givenPrompt } from '../../support/fixtures.js';
import { assignVariant } from '../../../src/modules/experiments/assignment.js';
import {
  compareToControl,
  holmAdjust,
  minimumDetectableEffect,
  REASON_TOO_FEW_USERS,
  verdictFor,
  type Comparison,
  type MetricKind,
  type Suff,
} from '../../../src/stats/index.js';

/**
 * A known synthetic population driven through the real runtime endpoints: control a and
 * treatment b with exactly 40 exposed users each (20 first seen on day 1, 20 on day 3) and a third
 * variant c that nobody reaches. Every expected number below is worked out by hand.
 */
let t: TestApp;
let runtime: string;
let now = new Date('2025-03-01T08:00:00.000Z');
const clock = { now: () => now };
const EXP = 'e2e-exp';
const A: string[] = [];
const B: string[] = [];
let runTokens = { a: 0, b: 0 };
let report: any;

const track = (body: Record<string, unknown>) => t.request('POST', '/track_outcome', { key: runtime, body: { prompt_id: 'e2e', ...body } });

beforeAll(async () => {
  t = await startTestApp({}, { clock });
  runtime = await t.keyFor('runtime');
  await givenPrompt(t, { prompt_id: 'e2e', template: 'one {{x}}', versions: ['two {{x}}', 'three {{x}}'] });
  await track({ event_type: 'signup', is_success: true }); // before the start: not the experiment's business
  await givenExperiment(t, {
    experiment_id: EXP,
    prompt_id: 'e2e',
    variants: { a: 1, b: 2, c: 3 },
    metrics: [
      { event_type: 'signup', kind: 'success_rate', role: 'primary' },
      { event_type: 'revenue', kind: 'mean', role: 'secondary' },
      { event_type: 'constant', kind: 'mean', role: 'secondary' },
    ],
  });
  now = new Date('2025-03-01T09:00:00.000Z');
  await t.request('POST', `/experiments/${EXP}/start`);

  // Predict assignments with the same GrowthBook hash, and expose only the users wanted.
  const wanted = { a: A, b: B } as Record<string, string[]>;
  for (let k = 0; A.length < 40 || B.length < 40; k++) {
    const user = `user-${k}`;
    const key = ['a', 'b', 'c'][assignVariant(EXP, user, [1 / 3, 1 / 3, 1 / 3], 1)!]!;
    const list = wanted[key];
    if (list === undefined || list.length >= 40) continue;
    now = new Date(list.length < 20 ? '2025-03-01T10:00:00.000Z' : '2025-03-03T10:00:00.000Z'); // nobody new on the 2nd
    // The first 5 of each variant come through /run_prompt (a run each), the rest through /get_prompt.
    const res =
      list.length < 5
        ? await t.request('POST', '/run_prompt', { key: runtime, body: { prompt_id: 'e2e', inputs: { x: 'y' }, external_user_id: user } })
        : await t.request('POST', '/get_prompt', { key: runtime, body: { prompt_id: 'e2e', inputs: { x: 'y' }, external_user_id: user } });
    expect(res.json.variant_assigned).toBe(key);
    if (list.length < 5) runTokens = { ...runTokens, [key]: runTokens[key as 'a' | 'b'] + res.json.total_tokens };
    list.push(user);
  }

  now = new Date('2025-03-04T12:00:00.000Z');
  for (const [list, successes] of [
    [A, 12],
    [B, 20],
  ] as const) {
    for (let i = 0; i < 40; i++) {
      const user = list[i]!;
      // signup: users 0..successes-1 succeed, users 30..39 fail, the others never sign up.
      if (i < successes) await track({ external_user_id: user, event_type: 'signup', is_success: true });
      if (i >= 30) await track({ external_user_id: user, event_type: 'signup', is_success: false });
      // revenue: users 0..19 earn i % 4 in a and i % 4 + 1 in b (user 1 in two payments of 0.5).
      if (i < 20) {
        const value = (i % 4) + (list === B ? 1 : 0);
        if (i === 1 && list === A) {
          await track({ external_user_id: user, event_type: 'revenue', numeric_value: 0.5 });
          await track({ external_user_id: user, event_type: 'revenue', numeric_value: 0.5 });
        } else await track({ external_user_id: user, event_type: 'revenue', numeric_value: value });
      }
      await track({ external_user_id: user, event_type: 'constant', numeric_value: 2 });
    }
  }
  await track({ external_user_id: A[0], event_type: 'signup', is_success: false }); // a later failure keeps A[0]'s success
  for (let i = 0; i < 8; i++) await track({ external_user_id: A[i], event_type: 'thumbs', label: i < 5 ? 'up' : 'down', is_success: i < 5 });
  for (let i = 0; i < 3; i++) await track({ event_type: 'signup', is_success: true }); // no user: unattributed

  const read = await t.keyFor('read');
  const res = await t.request('GET', `/experiments/${EXP}/results?explore=true`, { key: read });
  expect(res.status).toBe(200);
  expect(res.text).not.toMatch(/NaN|Infinity/);
  report = res.json;
});
afterAll(async () => t.cleanup());

const metric = (eventType: string, kind: string) => [...report.metrics, ...report.exploratory].find((m: any) => m.event_type === eventType && m.kind === kind);
const close = (actual: number, expected: number) => expect(Math.abs(actual - expected)).toBeLessThan(1e-12);

function expectSameAs(c: any, expected: Comparison): void {
  expect(c.enough_data).toBe(expected.enoughData);
  expect(c.absolute).toEqual({
    lift: expected.absolute.lift,
    se: expected.absolute.se,
    ci: expected.absolute.ci,
    p_value: expected.absolute.pValue,
    df: expected.absolute.df,
  });
  expect(c.relative).toEqual({
    lift: expected.relative.lift,
    se: expected.relative.se,
    ci: expected.relative.ci,
    p_value: expected.relative.pValue,
    df: expected.relative.df,
  });
  expect(c.bayes).toEqual({ chance_to_win: expected.bayes.chanceToWin, ci: expected.bayes.ci });
}

describe('results of a known population, end to end', () => {
  it('counts exposures, runs and tokens per variant, and an empty variant as zeros', () => {
    expect(report.variants.map((v: any) => [v.key, v.users, v.runs, v.errored_runs, v.tokens.total])).toEqual([
      ['a', 40, 5, 0, runTokens.a],
      ['b', 40, 5, 0, runTokens.b],
      ['c', 0, 0, 0, 0],
    ]);
    expect(report.variants[2].latency_ms).toEqual({ p50: null, p95: null });
    expect(report.variants[0].cost_usd).toEqual({ total: 0, per_run: 0, per_successful_user: 0 }); // the echo provider is free
  });

  it('computes the success rate per exposed user and matches the engine on hand-built statistics', () => {
    const signup = metric('signup', 'success_rate');
    expect(signup.primary).toBe(true);
    expect(signup.variants.map((v: any) => [v.key, v.users_with_event, v.value, v.n, v.sum, v.sum_squares])).toEqual([
      ['a', 22, 0.3, 40, 12, 12],
      ['b', 30, 0.5, 40, 20, 20],
      ['c', 0, null, 0, 0, 0],
    ]);
    const [b, c] = signup.comparisons;
    close(b.absolute.lift, 0.2);
    close(b.relative.lift, 0.2 / 0.3);
    close(b.absolute.se, Math.sqrt((0.5 * 0.5) / 40 + (0.3 * 0.7) / 40));
    expectSameAs(b, compareToControl('proportion', { n: 40, sum: 12, sumSquares: 12 }, { n: 40, sum: 20, sumSquares: 20 }));
    expect(c).toMatchObject({ variant: 'c', enough_data: false, reason: REASON_TOO_FEW_USERS, verdict: 'not_enough_data', p_value_adjusted: null });
    expect(c.absolute).toEqual({ lift: null, se: null, ci: null, p_value: null, df: null });
  });

  it('computes means over all exposed users (zero for users without a value) with the n−1 variance', () => {
    const revenue = metric('revenue', 'mean');
    expect(revenue.variants.map((v: any) => [v.key, v.users_with_event, v.value, v.sum, v.sum_squares])).toEqual([
      ['a', 20, 0.75, 30, 70],
      ['b', 20, 1.25, 50, 150],
      ['c', 0, null, 0, 0],
    ]);
    const varA = (70 - (30 * 30) / 40) / 39;
    const varB = (150 - (50 * 50) / 40) / 39;
    const b = revenue.comparisons[0];
    close(b.absolute.lift, 0.5);
    close(b.absolute.se, Math.sqrt(varB / 40 + varA / 40));
    close(b.relative.se, Math.sqrt(varB / 40 + (varA * (1.25 / 0.75) ** 2) / 40) / 0.75);
    expectSameAs(b, compareToControl('mean', { n: 40, sum: 30, sumSquares: 70 }, { n: 40, sum: 50, sumSquares: 150 }));
  });

  it('says why instead of inventing numbers when every user has the same value', () => {
    const constant = metric('constant', 'mean');
    expect(constant.variants[0]).toMatchObject({ value: 2, sum: 80, sum_squares: 160 });
    expect(constant.comparisons[0]).toMatchObject({
      enough_data: false,
      reason: 'no variation in either variant: every user has the same value',
      verdict: 'not_enough_data',
      p_value_adjusted: null,
      absolute: { lift: 0, se: null, ci: null, p_value: null, df: null },
      relative: { lift: 0 },
      bayes: { chance_to_win: null, ci: null },
    });
  });

  it('counts labels, Holm-adjusts across goal metrics × variants only and words the verdicts', () => {
    expect(report.metrics.map((m: any) => [m.name, m.role])).toEqual([
      ['signup:success_rate', 'primary'],
      ['revenue:mean', 'secondary'],
      ['constant:mean', 'secondary'],
    ]);
    const thumbs = metric('thumbs', 'success_rate');
    expect(thumbs).toMatchObject({ role: 'exploratory', primary: false });
    expect(thumbs.variants[0].labels).toEqual({ up: 5, down: 3 });
    const goals = report.metrics.flatMap((m: any) => m.comparisons);
    // A proportion at the edge (no variation in an arm) has no relative test: its absolute one decides (issue 40).
    expect(goals.map((c: any) => c.p_value_adjusted)).toEqual(
      holmAdjust(goals.map((c: any) => (c.enough_data ? (c.relative.p_value ?? c.absolute.p_value) : null))),
    );
    for (const m of [...report.metrics, ...report.exploratory]) {
      const kind: MetricKind = m.kind === 'success_rate' ? 'proportion' : 'mean';
      const suff = (k: string): Suff => {
        const v = m.variants.find((x: any) => x.key === k);
        return { n: v.n, sum: v.sum, sumSquares: v.sum_squares };
      };
      for (const c of m.comparisons) {
        const expected = verdictFor(
          compareToControl(kind, suff('a'), suff(c.variant)),
          c.p_value_adjusted,
          0.05,
          { variant: c.variant, control: 'control a' },
          'higher',
          m.role === 'exploratory' ? '' : 'Holm-adjusted',
        );
        const exploratory = m.role === 'exploratory';
        expect([c.verdict, c.verdict_text]).toEqual([
          expected.verdict,
          exploratory ? `${expected.text} [exploratory: unadjusted, not part of any decision]` : expected.text,
        ]);
        // Exploratory metrics are never adjusted; goal metrics always are (numbers, or explicit nulls with a reason).
        if (exploratory) expect(c.p_value_adjusted).toBeNull();
        if (c.enough_data)
          expect([c.relative.p_value ?? c.absolute.p_value, c.relative.ci ?? c.absolute.ci, c.bayes.chance_to_win].every((x) => x !== null)).toBe(true);
        if (c.enough_data && !exploratory) expect(c.p_value_adjusted).not.toBeNull();
        else expect(typeof c.reason).toBe('string');
      }
    }
  });

  it('gives the minimum detectable effect of the primary metric at the current sample (the empty arm left out)', () => {
    const mde = minimumDetectableEffect('proportion', { n: 40, sum: 12, sumSquares: 12 }, 40, { power: 0.8 });
    expect(mde).toBeGreaterThan(0);
    expect(report.primary).toEqual({ name: 'signup:success_rate', event_type: 'signup', kind: 'success_rate', mde_relative: mde });
  });

  it('checks health: SRM against the weights (not flagged while a variant has < 8 users), unattributed outcomes in the window', () => {
    // 40/40/0 against 1/3 each: X² = 2·(40 − 80/3)²/(80/3) + 80/3 = 40, df 2, p = e^(−20).
    close(report.health.srm.chi_square, 40);
    expect(report.health.srm).toMatchObject({ df: 2, checked: false, flagged: false });
    expect(report.health.srm.p_value / Math.exp(-20)).toBeCloseTo(1, 6); // the engine takes 1 − CDF: ~1e-8 relative at p ≈ 2e-9
    expect(report.health.users_in_multiple_variants).toBe(0);
    expect(report.health.unattributed_outcomes).toBe(3);
  });

  it('plots daily exposures and the cumulative primary metric by day of first exposure, days without exposures included', () => {
    const empty = { exposures: 0, cumulative_exposures: 0, cumulative_value: null };
    expect(report.timeseries_granularity).toBe('day'); // started on the 1st, read on the 4th: 3 days
    expect(report.timeseries).toEqual([
      {
        date: '2025-03-01',
        start: '2025-03-01T00:00:00.000Z',
        variants: {
          a: { exposures: 20, cumulative_exposures: 20, cumulative_value: 12 / 20 },
          b: { exposures: 20, cumulative_exposures: 20, cumulative_value: 1 },
          c: empty,
        },
      },
      {
        date: '2025-03-02',
        start: '2025-03-02T00:00:00.000Z',
        variants: {
          a: { exposures: 0, cumulative_exposures: 20, cumulative_value: 12 / 20 },
          b: { exposures: 0, cumulative_exposures: 20, cumulative_value: 1 },
          c: empty,
        },
      },
      {
        date: '2025-03-03',
        start: '2025-03-03T00:00:00.000Z',
        variants: {
          a: { exposures: 20, cumulative_exposures: 40, cumulative_value: 0.3 },
          b: { exposures: 20, cumulative_exposures: 40, cumulative_value: 0.5 },
          c: empty,
        },
      },
    ]);
  });

  it('stops counting unattributed outcomes once the experiment stops, and still answers for a stopped experiment', async () => {
    now = new Date('2025-03-05T00:00:00.000Z');
    expect((await t.request('POST', `/experiments/${EXP}/stop`, { body: { winner: 'b' } })).json.status).toBe('stopped');
    now = new Date('2025-03-06T00:00:00.000Z');
    await track({ event_type: 'signup', is_success: true });
    const after = (await t.request('GET', `/experiments/${EXP}/results`, { key: await t.keyFor('read') })).json;
    expect(after.status).toBe('stopped');
    expect(after.health.unattributed_outcomes).toBe(3);
    expect(after.metrics).toEqual(report.metrics);
  });
});
