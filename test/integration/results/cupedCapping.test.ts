import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usersNeeded } from '../../../src/stats/index.js';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenExperiment, givenPrompt } from '../../support/fixtures.js';

/**
 * CUPED, capping and the "keep running" estimate on a population built through the runtime API,
 * checked against a brute-force computation over the same per-user values.
 *
 * Users u0..u79 spend before the experiment (users with i % 4 = 0 never did; one old purchase lies
 * outside the 14-day window) and after it, strongly in line with what they spent before; b has no
 * effect at all. Tips are small except for one whale, capped at the 90th percentile.
 */
let t: TestApp;
let runtime: string;
let read: string;
let now = new Date('2025-01-01T10:00:00.000Z');
const clock = { now: () => now };
const EXP = 'cup-exp';
const N = 80;
const user = (i: number) => `u${i}`;
const pre = (i: number): number | null => (i % 4 === 0 ? null : (i % 7) + 1);
const post = (i: number): number => (pre(i) ?? 0) * 2 + (i % 3);
const tip = (i: number): number => (i === 5 ? 10_000 : i % 4);
const variantOf = new Map<number, string>();

const track = (body: Record<string, unknown>) => t.request('POST', '/track_outcome', { key: runtime, body: { prompt_id: 'cup', ...body } });
const results = async (query = '') => (await t.request('GET', `/experiments/${EXP}/results${query}`, { key: read })).json;

beforeAll(async () => {
  t = await startTestApp({}, { clock });
  runtime = await t.keyFor('runtime');
  read = await t.keyFor('read');
  await givenPrompt(t, { prompt_id: 'cup', template: 'one', versions: ['two'] });
  await track({ external_user_id: user(1), event_type: 'spend', numeric_value: 1000 }); // 40 days before exposure: outside the window
  now = new Date('2025-02-01T10:00:00.000Z');
  for (let i = 0; i < N; i++) if (pre(i) !== null) await track({ external_user_id: user(i), event_type: 'spend', numeric_value: pre(i) });
  now = new Date('2025-02-09T12:00:00.000Z');
  await givenExperiment(t, {
    experiment_id: EXP,
    prompt_id: 'cup',
    metrics: [
      { event_type: 'spend', kind: 'mean', role: 'primary' },
      { event_type: 'tips', kind: 'mean', role: 'secondary', cap: { percentile: 0.9 } },
    ],
    cuped: true,
    target_mde: 0.02,
    start: true,
  });
  now = new Date('2025-02-10T10:00:00.000Z');
  for (let i = 0; i < N; i++) {
    const res = await t.request('POST', '/get_prompt', { key: runtime, body: { prompt_id: 'cup', external_user_id: user(i) } });
    variantOf.set(i, res.json.variant_assigned);
  }
  now = new Date('2025-02-11T10:00:00.000Z');
  for (let i = 0; i < N; i++) {
    await track({ external_user_id: user(i), event_type: 'spend', numeric_value: post(i) });
    if (tip(i) > 0) await track({ external_user_id: user(i), event_type: 'tips', numeric_value: tip(i) });
  }
  now = new Date('2025-02-12T12:00:00.000Z');
});
afterAll(async () => t.cleanup());

const close = (actual: number, expected: number) => expect(Math.abs(actual - expected)).toBeLessThan(1e-9 * Math.max(1, Math.abs(expected)));

/** CUPED by brute force over per-user values: θ pooled within variants, adjusted means, variance reduction. */
function bruteCuped() {
  const groups = ['a', 'b'].map((k) => {
    const users = [...variantOf].filter(([, v]) => v === k).map(([i]) => i);
    return { xs: users.map((i) => pre(i) ?? 0), ys: users.map(post) };
  });
  const mean = (v: number[]) => v.reduce((s, x) => s + x, 0) / v.length;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (const { xs, ys } of groups) {
    const mx = mean(xs);
    const my = mean(ys);
    xs.forEach((x, j) => {
      sxy += (x - mx) * (ys[j]! - my);
      sxx += (x - mx) ** 2;
      syy += (ys[j]! - my) ** 2;
    });
  }
  const theta = sxy / sxx;
  const xBar = mean(groups.flatMap((g) => g.xs));
  return { theta, reduction: (sxy * sxy) / (sxx * syy), adjusted: groups.map((g) => mean(g.ys) - theta * (mean(g.xs) - xBar)) };
}

describe('CUPED', () => {
  it("adjusts with each user's pre-exposure value, pooled over variants, and shows the unadjusted comparison beside it", async () => {
    const report = await results();
    expect(report.options.cuped).toBe(true);
    const spend = report.metrics[0];
    const expected = bruteCuped();
    expect(spend.cuped).toMatchObject({ days: 14, applied: true, users_with_pre_data: [...variantOf.keys()].filter((i) => pre(i) !== null).length });
    close(spend.cuped.theta, expected.theta);
    close(spend.cuped.variance_reduction, expected.reduction);
    expect(spend.cuped.variance_reduction).toBeGreaterThan(0.5);
    close(spend.variants[0].adjusted_value, expected.adjusted[0]!);
    close(spend.variants[1].adjusted_value, expected.adjusted[1]!);

    const plain = (await results('?cuped=false')).metrics[0];
    expect(plain.cuped).toBeNull();
    expect(plain.variants.map((v: any) => v.value)).toEqual(spend.variants.map((v: any) => v.value));
    const [c] = spend.comparisons;
    expect(c.unadjusted).toEqual({ absolute: plain.comparisons[0].absolute, relative: plain.comparisons[0].relative });
    const width = (ci: number[]) => ci[1]! - ci[0]!;
    expect(width(c.relative.ci)).toBeLessThan(width(plain.comparisons[0].relative.ci));
  });

  it('sizes the rest of the experiment from the adjusted variance: users and days still needed for the target effect (2%)', async () => {
    const report = await results();
    expect(report.decisions).toHaveLength(1);
    const d = report.decisions[0];
    expect(d.decision).toBe('keep_running');
    const a = report.metrics[0].variants[0];
    // The adjusted variance is not in the report: CUPED must need fewer users than the plain variance,
    // which is exactly what the report says without CUPED.
    const plainNeeded = usersNeeded('mean', { n: a.n, sum: a.sum, sumSquares: a.sum_squares }, 0.02, { control: 0.5, treatment: 0.5 })! - N;
    expect(d.users_needed).toBeGreaterThan(0);
    expect(d.users_needed).toBeLessThan(plainNeeded);
    // 80 users over the 3 days since the start: 80/3 a day.
    expect(d.days_needed).toBe(Math.ceil((d.users_needed / (80 / 3)) * 10) / 10);
    expect(d.reason).toBe(
      `Keep running: about ${d.users_needed} more users (about ${d.days_needed} days at 27 users a day) to detect a 2% change in spend:mean with 80% power.`,
    );
    const plainDecision = (await results('?cuped=false')).decisions[0];
    expect(plainDecision.users_needed).toBe(plainNeeded);
  });
});

describe('capping', () => {
  it('clamps per-user values at the percentile of all exposed users (zeros included) and reports the cap used', async () => {
    const report = await results();
    const tips = report.metrics[1];
    const totals = [...variantOf.keys()].map(tip).sort((x, y) => x - y);
    const cap = totals[Math.ceil(0.9 * N) - 1]!;
    expect(cap).toBe(3);
    expect(tips.cap).toEqual({ value: cap, percentile: 0.9 });
    for (const v of tips.variants) {
      const values = [...variantOf].filter(([, k]) => k === v.key).map(([i]) => Math.min(tip(i), cap));
      expect(v.sum).toBe(values.reduce((s, x) => s + x, 0));
      expect(v.sum_squares).toBe(values.reduce((s, x) => s + x * x, 0));
    }
  });
});
