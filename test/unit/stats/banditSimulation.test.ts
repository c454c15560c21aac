import { describe, expect, it } from 'vitest';
import { simulateBandit } from './banditSimulation.js';

/**
 * The proof by simulation: three arms with true success rates 10%, 12% and 15%, one check per
 * 500 new users (an hourly check at 500 users an hour), 10 000 users in all, 200 seeded runs.
 * The figures are printed (docs/rollouts-and-bandits.md, "Bandits", quotes them).
 */
const RATES = [0.1, 0.12, 0.15];
const OPTIONS = { rates: RATES, usersPerPeriod: 500, periods: 20, draws: 500 };
const RUNS = 200;
/** "Within N users": the weights in force once this many users have arrived. */
const WITHIN_USERS = 5000;
const BEST = 2;

describe('a simulated 3-arm bandit (10% / 12% / 15%)', () => {
  const runs = Array.from({ length: RUNS }, (_, s) => simulateBandit(OPTIONS, s + 1));
  const period = WITHIN_USERS / OPTIONS.usersPerPeriod;
  const totalUsers = OPTIONS.usersPerPeriod * OPTIONS.periods;

  it(`gives the best arm at least 70% of new users within ${WITHIN_USERS} users`, () => {
    const shares = runs.map((r) => r.weights[period]![BEST]!);
    const mean = shares.reduce((s, x) => s + x, 0) / RUNS;
    const atLeast70 = shares.filter((x) => x >= 0.7).length / RUNS;
    // Observed, not just intended: the best arm's share of the users who actually arrived after N.
    const later = runs.map((r) => {
      const cells = r.cells.slice(period);
      const n = cells.reduce((s, c) => s + c.reduce((t, x) => t + x.n, 0), 0);
      return cells.reduce((s, c) => s + c[BEST]!.n, 0) / n;
    });
    const observed = later.reduce((s, x) => s + x, 0) / RUNS;
    console.info(
      `share of new users to the best arm after ${WITHIN_USERS} users: mean weight ${mean.toFixed(3)}, ` +
        `runs at >= 70%: ${(atLeast70 * 100).toFixed(1)}%, observed share of users ${WITHIN_USERS}-${totalUsers}: ${observed.toFixed(3)}`,
    );
    expect(mean).toBeGreaterThanOrEqual(0.7);
    expect(atLeast70).toBeGreaterThanOrEqual(0.8);
    expect(observed).toBeGreaterThanOrEqual(0.7);
  });

  it("keeps each arm's true rate inside its 95% interval in at least 90% of runs", () => {
    const coverage = RATES.map((rate, i) => runs.filter((r) => r.estimates[i]!.lower <= rate && rate <= r.estimates[i]!.upper).length / RUNS);
    const bias = RATES.map((rate, i) => runs.reduce((s, r) => s + r.estimates[i]!.estimate - rate, 0) / RUNS);
    console.info(`interval coverage per arm: ${coverage.map((c) => c.toFixed(3)).join(' / ')}; mean error: ${bias.map((b) => b.toFixed(4)).join(' / ')}`);
    for (const c of coverage) expect(c).toBeGreaterThanOrEqual(0.9);
  });

  it('loses far fewer successes than an even split (regret)', () => {
    const regret = runs.reduce((s, r) => s + r.regret, 0) / RUNS;
    const even = totalUsers * (Math.max(...RATES) - RATES.reduce((s, x) => s + x, 0) / RATES.length);
    console.info(
      `regret over ${totalUsers} users (expected successes lost against always serving the best arm): bandit ${regret.toFixed(1)}, even split ${even.toFixed(1)}`,
    );
    expect(regret).toBeLessThan(even / 2);
  });
});
