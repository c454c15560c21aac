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
  guardrails: [
    { name: 'runs:error_rate', kind: 'error_rate', direction: 'lower', control: { n, sum: control, sumSquares: control }, candidate: { n, sum: candidate, sumSquares: candidate } },
  ],
});
/** Latency sums of n users per arm, each user's values spread evenly around the mean (±spread). */
const latencySums = (n: number, mean: number, spread = 100) => {
  let sum = 0;
  let sumSquares = 0;
  for (let i = 0; i < n; i++) {
    const x = mean + (i % 2 === 0 ? spread : -spread);
    sum += x;
    sumSquares += x * x;
  }
  return { n, sum, sumSquares };
};
const withLatency = (facts: RolloutFacts, n: number, control: number, candidate: number): RolloutFacts => ({
  ...facts,
  guardrails: [...facts.guardrails, { name: 'runs:latency_ms', kind: 'latency_ms', direction: 'lower', control: latencySums(n, control), candidate: latencySums(n, candidate) }],
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
    ['advances when both minimums are met and every guardrail is shown within its tolerance', state(), errors(200, 20, 22), hours(1), 'advance', 1],
    ['holds a candidate not shown within its tolerance (5% against 30% at 75 users), minimums met', state(), errors(75, 4, 22), hours(1), 'hold', 0],
    ['advances 5% against 5% at 75 users per arm (inside the default tolerance of 0.2)', state({ steps: [{ percent: 50, min_users: 20, min_minutes: 0 }, { percent: 100, min_users: 20, min_minutes: 0 }] }), errors(75, 4, 4), hours(1), 'advance', 1],
    ['advances two arms without a single error (the rate interval is defined at 0)', state(), errors(200, 0, 0), hours(1), 'advance', 1],
    ['rolls back a candidate whose every call failed once each arm has 10 users, minimums or not', state(), errors(10, 0, 10), T0 + 60_000, 'rollback', 0],
    ['below 10 users per arm only the statistics can roll back a candidate whose every call failed: 5 of 5 holds', state(), errors(5, 0, 5), T0 + 60_000, 'hold', 0],
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
    expect(decideRollout(state(), errors(75, 4, 22), hours(1)).reason).toMatch(
      /^Holding at step 1 of 2 \(5%\): no guardrail got worse, but not every one is shown within its tolerance yet \(runs:error_rate: the candidate may be up to 0\.\d+ worse \(always-valid 95% interval\), more than its tolerance of 0\.2\)\.$/,
    );
    expect(decideRollout(state(), errors(10, 0, 10), hours(0.1)).reason).toBe(
      "Rolled back at step 1 of 2 (5%): every call of the candidate failed (10 of 10 users on runs:error_rate, against production's 0).",
    );
    expect(decideRollout(state(), errors(200, 20, 22), hours(1)).reason).toMatch(/^Advanced to step 2 \(50%\)/);
  });

  it('does not roll back a candidate that is better, however clearly', () => {
    expect(decideRollout(state(), errors(1000, 300, 100), hours(1)).action).toBe('advance');
  });

  it('reads a figure it cannot compute as no evidence: sums that are not numbers hold, never advance', () => {
    const broken: RolloutFacts = {
      users: 400,
      guardrails: [{ name: 'runs:error_rate', kind: 'error_rate', direction: 'lower', control: { n: 200, sum: 10, sumSquares: 10 }, candidate: { n: 200, sum: Number.NaN, sumSquares: Number.NaN } }],
    };
    const d = decideRollout(state(), broken, hours(2));
    expect(d.action).toBe('hold');
    expect(d.guardrails[0]).toMatchObject({ interval: null, worse: false, safe: false, note: 'its sums are not finite numbers' });
    expect(decideRollout(state(), { users: 400, guardrails: [] }, hours(2)).action).toBe('hold');
  });

  it('holds on latency until each arm has 30 users, then reads its interval against 10% (at least 100 ms)', () => {
    const few = decideRollout(state(), withLatency(errors(200, 10, 10), 20, 800, 800), hours(1));
    expect(few.action).toBe('hold');
    expect(few.guardrails[1]).toMatchObject({ name: 'runs:latency_ms', interval: null, safe: false, note: '20 of the 30 users per variant its interval needs' });
    const enough = decideRollout(state(), withLatency(errors(200, 10, 10), 200, 800, 800), hours(1));
    expect(enough.action).toBe('advance');
    expect(enough.guardrails[1]!.tolerance).toBeCloseTo(100, 9);
    expect(decideRollout(state(), withLatency(errors(200, 10, 10), 200, 2000, 2000), hours(1)).guardrails[1]!.tolerance).toBeCloseTo(200, 9);
  });

  it('takes the tolerances set for the rollout over the defaults', () => {
    const tight = state({ tolerances: { 'runs:error_rate': { absolute: 0.05 } } });
    expect(decideRollout(state(), errors(200, 20, 22), hours(1)).action).toBe('advance');
    expect(decideRollout(tight, errors(200, 20, 22), hours(1)).action).toBe('hold');
    expect(decideRollout(tight, errors(20_000, 2000, 2010), hours(1)).action).toBe('advance');
  });

  it('pauses for a person when no guardrail has had data for 24 hours, and when a step has not shown safety in 7 days', () => {
    const noData: RolloutFacts = {
      users: 0,
      guardrails: [
        { name: 'runs:error_rate', kind: 'error_rate', direction: 'lower', control: { n: 0, sum: 0, sumSquares: 0 }, candidate: { n: 0, sum: 0, sumSquares: 0 } },
      ],
    };
    expect(decideRollout(state(), noData, hours(23)).action).toBe('hold');
    const paused = decideRollout(state(), noData, hours(24));
    expect(paused.action).toBe('pause');
    expect(paused.reason).toMatch(/^Paused at step 1 of 2 \(5%\) for a person: none of its guardrails \(runs:error_rate\) has data after 24 hours/);
    // Resumed by a person: the wait counts from the resume.
    expect(decideRollout(state({ evidence_since: new Date(hours(30)).toISOString() }), noData, hours(31)).action).toBe('hold');
    expect(decideRollout(state(), errors(75, 4, 22), hours(24 * 7 - 1)).action).toBe('hold');
    const week = decideRollout(state(), errors(75, 4, 22), hours(24 * 7));
    expect(week.action).toBe('pause');
    expect(week.reason).toMatch(/^Paused at step 1 of 2 \(5%\) for a person: after 7 days the step has not shown that the candidate does no material harm \(runs:error_rate: /);
  });
});
