import { afterAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../support/prng.js';
import { simulateRollout, type SimOptions, type SimOutcome } from '../../support/rolloutSimulation.js';

/**
 * Rollouts simulated over the pure decision, checked every hour (docs/rollouts-and-bandits.md,
 * "What the figures say"): an A/A candidate (the same error rate and latency as production) must
 * almost never roll back however many times it is looked at, and a candidate with three times the
 * errors must roll back on its first step. The figures are printed for the docs.
 */

/** 5% → 25% → 50% → 100%, a day each: 96 hourly looks at a candidate that does no harm. */
const DAY_STEPS = [5, 25, 50, 100].map((percent) => ({ percent, min_users: 100, min_minutes: 24 * 60 }));
const production = { errorRate: 0.05, latencyMs: 800 };
const base: Omit<SimOptions, 'candidate'> = { control: production, steps: DAY_STEPS, usersPerHour: 2000 };

function many(count: number, options: SimOptions, seed: number): SimOutcome[] {
  const random = mulberry32(seed);
  return Array.from({ length: count }, () => simulateRollout(options, random));
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const figures: string[] = [];

describe('simulated rollouts, checked every hour', () => {
  it('an A/A candidate rolls back in fewer than 5% of 200 rollouts (the always-valid test holds its false-alarm rate)', () => {
    const outcomes = many(200, { ...base, usersPerHour: 1000, candidate: production }, 1);
    const rolledBack = outcomes.filter((o) => o.action === 'rollback').length;
    figures.push(`A/A: ${rolledBack} of 200 rolled back (${((rolledBack / 200) * 100).toFixed(1)}%), 1000 users an hour, each looked at up to 96 times`);
    expect(rolledBack).toBeLessThan(10);
    expect(outcomes.filter((o) => o.action === 'ship').length).toBe(200 - rolledBack);
  });

  it('a candidate with three times the errors rolls back on its first step, in hours', () => {
    const outcomes = many(200, { ...base, candidate: { errorRate: 0.15, latencyMs: 800 } }, 2);
    expect(outcomes.every((o) => o.action === 'rollback' && o.step === 0)).toBe(true);
    const hours = outcomes.map((o) => o.hours);
    figures.push(
      `3× errors (5% → 15%), 2000 users an hour, first step 5%: rolled back after a median of ${median(hours)} h (at most ${Math.max(...hours)} h), ` +
        `with a median of ${median(outcomes.map((o) => o.candidateUsers))} users served the candidate`,
    );
  });

  it('with less traffic the same candidate is caught later, still before it reaches everyone', () => {
    const outcomes = many(200, { ...base, usersPerHour: 200, candidate: { errorRate: 0.15, latencyMs: 800 } }, 3);
    expect(outcomes.every((o) => o.action === 'rollback')).toBe(true);
    const onFirst = outcomes.filter((o) => o.step === 0).length;
    figures.push(
      `3× errors, 200 users an hour: rolled back after a median of ${median(outcomes.map((o) => o.hours))} h; ${onFirst} of 200 on the first step, the rest on the second; ` +
        `a median of ${median(outcomes.map((o) => o.candidateUsers))} users served the candidate`,
    );
  });

  it('a candidate 50% slower rolls back on its latency guardrail', () => {
    const outcomes = many(200, { ...base, candidate: { errorRate: 0.05, latencyMs: 1200 } }, 4);
    expect(outcomes.every((o) => o.action === 'rollback' && o.step === 0)).toBe(true);
    figures.push(`50% slower (800 → 1200 ms median), 2000 users an hour: rolled back after a median of ${median(outcomes.map((o) => o.hours))} h`);
  });
});

afterAll(() => {
  // The figures docs/rollouts-and-bandits.md quotes (npx vitest run test/unit/experiments/rolloutSimulation.test.ts).
  console.info(`rollout simulation figures:\n  ${figures.join('\n  ')}`);
});
