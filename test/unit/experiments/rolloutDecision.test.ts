import { describe, expect, it } from 'vitest';
import { decideRollout, type RolloutFacts } from '../../../src/modules/experiments/rolloutDecision.js';
import type { RolloutState } from '../../../src/modules/experiments/experiments.schemas.js';
import { sequentialDifference } from '../../../src/stats/index.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const state = (over: Partial<RolloutState> = {}): RolloutState => ({
  candidate: 'candidate',
  steps: [
    { percent: 5, min_users: 100, min_minutes: 60 },
    { percent: 50, min_users: 200, min_minutes: 60 },
  ],
  auto_ship: true,
  step: 0,
  step_started_at: new Date(T0).toISOString(),
  awaiting_approval: false,
  ...over,
});
/** Error sums of n users per arm with the given number of failures (a 0/1 value per user). */
const errors = (n: number, control: number, candidate: number): RolloutFacts => ({
  users: 2 * n,
  guardrails: [{ name: 'runs:error_rate', direction: 'lower', control: { n, sum: control, sumSquares: control }, candidate: { n, sum: candidate, sumSquares: candidate } }],
});
const hours = (h: number) => T0 + h * 3_600_000;

describe('sequentialDifference: the always-valid interval of a difference of means', () => {
  it.each([
    // n per arm, means, variances → the interval contains the difference and narrows with n
    [100, 0.1, 0.3],
    [1000, 0.1, 0.3],
    [10_000, 0.1, 0.11],
  ])('n=%i, %f against %f', (n, c, t) => {
    const d = sequentialDifference({ n, mean: c, variance: c * (1 - c) }, { n, mean: t, variance: t * (1 - t) }, 0.05, 5000)!;
    expect(d.difference).toBeCloseTo(t - c, 12);
    expect(d.ci[0]).toBeLessThan(d.difference);
    expect(d.ci[1]).toBeGreaterThan(d.difference);
  });

  it('is wider than the fixed-horizon 95% interval (the price of looking as often as one likes) and narrows as users come', () => {
    const arm = (n: number) => ({ n, mean: 0.1, variance: 0.09 });
    const small = sequentialDifference(arm(500), arm(500), 0.05, 5000)!;
    const large = sequentialDifference(arm(50_000), arm(50_000), 0.05, 5000)!;
    const se = Math.sqrt(0.09 / 500 + 0.09 / 500);
    expect(small.ci[1] - small.difference).toBeGreaterThan(1.96 * se);
    expect(large.ci[1] - large.ci[0]).toBeLessThan(small.ci[1] - small.ci[0]);
  });

  it('says nothing with fewer than 2 users in an arm or no variation at all', () => {
    expect(sequentialDifference({ n: 1, mean: 0, variance: 0 }, { n: 50, mean: 0.1, variance: 0.09 }, 0.05, 5000)).toBeNull();
    expect(sequentialDifference({ n: 50, mean: 0, variance: 0 }, { n: 50, mean: 0, variance: 0 }, 0.05, 5000)).toBeNull();
  });
});

describe('decideRollout', () => {
  it.each<[string, RolloutState, RolloutFacts, number, string, number]>([
    ['holds while the step lacks users', state(), errors(20, 2, 2), hours(2), 'hold', 0],
    ['holds while the step lacks time', state(), errors(200, 20, 20), T0 + 30 * 60_000, 'hold', 0],
    ['advances when both minimums are met and no guardrail got worse', state(), errors(200, 20, 22), hours(1), 'advance', 1],
    ['rolls back as soon as a guardrail got worse, minimums or not', state(), errors(300, 30, 90), T0 + 60_000, 'rollback', 0],
    ['ships when the last step succeeds', state({ step: 1 }), errors(200, 20, 20), hours(1), 'ship', 1],
    ['waits for approval when the last step succeeds without auto_ship', state({ step: 1, auto_ship: false }), errors(200, 20, 20), hours(1), 'await_approval', 1],
    ['rolls back at the last step too', state({ step: 1 }), errors(1000, 100, 300), hours(1), 'rollback', 1],
    // A control without a single error: the difference is still defined (absolute, not relative).
    ['rolls back a candidate with errors against a control with none', state(), errors(400, 0, 40), hours(1), 'rollback', 0],
  ])('%s', (_name, s, facts, now, action, step) => {
    const d = decideRollout(s, facts, now);
    expect([d.action, d.step]).toEqual([action, step]);
  });

  it('says why in words a product owner can read, with the figures it read', () => {
    const rollback = decideRollout(state(), errors(300, 30, 90), hours(1));
    expect(rollback.reason).toMatch(/^Rolled back at step 1 of 2 \(5%\): on the guardrail runs:error_rate the candidate measured 0\.3 against production's 0\.1/);
    expect(rollback.guardrails[0]).toMatchObject({ name: 'runs:error_rate', worse: true, control: { users: 300, value: 0.1 }, candidate: { users: 300, value: 0.3 } });
    expect(decideRollout(state(), errors(20, 2, 2), hours(0.5)).reason).toBe('Holding at step 1 of 2 (5%): 40 of 100 users, 30 of 60 minutes so far; no guardrail got worse.');
    expect(decideRollout(state(), errors(200, 20, 22), hours(1)).reason).toMatch(/^Advanced to step 2 \(50%\)/);
  });

  it('does not roll back a candidate that is better, however clearly', () => {
    expect(decideRollout(state(), errors(1000, 300, 100), hours(1)).action).toBe('advance');
  });
});
