import { describe, expect, it } from 'vitest';
import type { AllocationRecord, PeriodCellRow } from '../../../src/modules/experiments/bandit.repo.js';
import { DEFAULT_BANDIT_SETTINGS } from '../../../src/modules/experiments/bandit.schemas.js';
import { decideBandit } from '../../../src/modules/experiments/banditDecision.js';
import { banditState, type BanditInputs } from '../../../src/modules/experiments/banditState.js';
import type { MetricDef } from '../../../src/modules/experiments/metrics.js';

const METRIC: MetricDef = { name: 'answer:success_rate', source: 'outcomes', event_type: 'answer', kind: 'success_rate', role: 'primary', direction: 'higher', cap: null };
const START = '2026-01-01T00:00:00.000Z';
const hours = (h: number) => new Date(Date.parse(START) + h * 3_600_000).toISOString();
const cell = (variant: string, period: number, n: number, successes: number): PeriodCellRow => ({ variant, period, n, successes, sum: 0, sum_squares: 0 });

function inputs(allocations: AllocationRecord[], cells: PeriodCellRow[], weights = [1 / 3, 1 / 3, 1 / 3]): BanditInputs {
  return {
    seed: 'seed',
    variants: ['a', 'b', 'c'].map((key, i) => ({ key, version: i + 1, weight: weights[i]! })),
    metric: METRIC,
    allocations,
    cells,
    startedAt: START,
  };
}

describe('banditState', () => {
  it('before any check: period 0 from the starting weights, plain estimates, SRM of that period', () => {
    const { report, pBest, active } = banditState(inputs([], [cell('a', 0, 300, 30), cell('b', 0, 300, 36), cell('c', 0, 300, 60)]));
    expect(report.periods).toHaveLength(1);
    expect(report.periods[0]).toMatchObject({ period: 0, started_at: START, p_best: null, users: { a: 300, b: 300, c: 300 } });
    expect(report.arms.map((a) => a.estimate)).toEqual([0.1, 0.12, 0.2]);
    expect(active).toEqual([true, true, true]);
    expect(pBest[2]).toBeGreaterThan(0.95);
    expect(pBest.reduce((s, p) => s + p, 0)).toBeCloseTo(1, 12);
    expect(report.srm).toMatchObject({ df: 2, chi_square: 0, flagged: false, checked: true });
  });

  it('weights each period by its traffic, and checks each period against its own weights', () => {
    const allocations: AllocationRecord[] = [
      { period: 0, started_at: START, weights: { a: 0.5, b: 0.5, c: 0 }, p_best: null, dropped: ['c'] },
      { period: 1, started_at: hours(1), weights: { a: 0.9, b: 0.1, c: 0 }, p_best: { a: 0.9, b: 0.1, c: 0 }, dropped: ['c'] },
    ];
    const { report } = banditState(
      inputs(allocations, [cell('a', 0, 50, 5), cell('b', 0, 50, 10), cell('a', 1, 90, 45), cell('b', 1, 10, 6)], [0.9, 0.1, 0]),
    );
    expect(report.arms[0]!.estimate).toBeCloseTo(0.5 * 0.1 + 0.5 * 0.5, 12);
    expect(report.arms[1]!.estimate).toBeCloseTo(0.5 * 0.2 + 0.5 * 0.6, 12);
    expect(report.arms[2]).toMatchObject({ dropped: true, p_best: 0, estimate: null, users: 0 });
    expect(report.srm.chi_square).toBe(0);
    expect(report.periods.map((p) => p.srm_p_value)).toEqual([1, 1]);
  });
});

describe('banditState on a mean (Gaussian posteriors)', () => {
  const MEAN: MetricDef = { ...METRIC, name: 'spend:mean', kind: 'mean' };
  const meanCell = (variant: string, n: number, mean: number, sd: number): PeriodCellRow => ({
    variant,
    period: 0,
    n,
    successes: 0,
    sum: n * mean,
    sum_squares: (n - 1) * sd * sd + n * mean * mean,
  });
  it('estimates each mean with its interval; the higher mean is likely best, or the lower when lower is better', () => {
    const cells = [meanCell('a', 200, 10, 4), meanCell('b', 200, 10.2, 4), meanCell('c', 200, 12, 4)];
    const { report, pBest } = banditState({ ...inputs([], cells), metric: MEAN });
    expect(report.arms[2]!.estimate).toBeCloseTo(12, 9);
    expect(report.arms[2]!.ci_upper! - report.arms[2]!.estimate!).toBeCloseTo(1.959964 * (4 / Math.sqrt(200)), 4);
    expect(pBest[2]).toBeGreaterThan(0.99);
    const lower = banditState({ ...inputs([], cells), metric: { ...MEAN, direction: 'lower' } });
    expect(lower.pBest[2]).toBeLessThan(0.01);
  });
  it('an arm with fewer than 2 users says nothing yet: every arm equally likely', () => {
    const { pBest } = banditState({ ...inputs([], [meanCell('a', 1, 10, 0), meanCell('b', 50, 12, 4), meanCell('c', 50, 11, 4)]), metric: MEAN });
    expect(pBest).toEqual([1 / 3, 1 / 3, 1 / 3]);
  });
});

describe('decideBandit', () => {
  const cells = [cell('a', 0, 300, 30), cell('b', 0, 300, 36), cell('c', 0, 300, 60)];
  const now = Date.parse(hours(1));

  it('re-weights towards the likely best arm, keeping the floor 1/30 for the others', () => {
    const d = decideBandit(inputs([], cells), DEFAULT_BANDIT_SETTINGS, [], now);
    expect(d.action).toBe('reweight');
    expect(d.weights.a).toBeCloseTo(1 / 30, 12);
    expect(d.weights.b).toBeCloseTo(1 / 30, 12);
    expect(d.weights.c).toBeCloseTo(1 - 2 / 30, 12);
    expect(d.reason).toMatch(/^Re-weighted new users: c 93\.3% \(best with probability \d/);
  });

  it('drops an arm whose guardrail failed: weight 0, the floor now 1/20', () => {
    const d = decideBandit(inputs([], cells), DEFAULT_BANDIT_SETTINGS, [{ variant: 'b', guardrail: 'runs:latency_ms' }], now);
    expect(d.dropped).toEqual(['b']);
    expect(d.weights.b).toBe(0);
    expect(d.pBest.b).toBe(0);
    expect(d.weights.a).toBeCloseTo(0.05, 12);
    expect(d.reason).toMatch(/^Dropped b: its guardrail runs:latency_ms got worse\. Re-weighted/);
  });

  it('never drops the last arm in play', () => {
    const d = decideBandit(
      inputs([], cells),
      DEFAULT_BANDIT_SETTINGS,
      ['a', 'b', 'c'].map((variant) => ({ variant, guardrail: 'g' })),
      now,
    );
    expect(d.dropped).toEqual(['a', 'b']);
  });

  it('ships once the leader held P(best) above the threshold for the set time, not before', () => {
    const held: AllocationRecord[] = [
      { period: 0, started_at: START, weights: { a: 1 / 3, b: 1 / 3, c: 1 / 3 }, p_best: null, dropped: [] },
      { period: 1, started_at: hours(1), weights: { a: 0.05, b: 0.05, c: 0.9 }, p_best: { a: 0, b: 0.01, c: 0.99 }, dropped: [] },
    ];
    const settings = { ...DEFAULT_BANDIT_SETTINGS, stop_after_minutes: 60 };
    const early = decideBandit(inputs(held, cells), settings, [], Date.parse(hours(1.5)));
    expect(early.action).toBe('reweight');
    const late = decideBandit(inputs(held, cells), settings, [], Date.parse(hours(2)));
    expect(late).toMatchObject({ action: 'ship', winner: 'c' });
    expect(late.reason).toMatch(/^Shipped c: its probability of being the best arm has stayed at or above 95% for at least 60 minutes/);
    // A guardrail of the leader without a figure is no sign of safety: re-weight, never ship (issue 40).
    const unknown = decideBandit(inputs(held, cells), settings, [], Date.parse(hours(2)), [{ variant: 'c', guardrail: 'runs:latency_ms' }]);
    expect(unknown).toMatchObject({ action: 'reweight', winner: null });
    expect(unknown.reason).toMatch(/^Not shipped yet: c's guardrail runs:latency_ms has no figure/);
  });
});
