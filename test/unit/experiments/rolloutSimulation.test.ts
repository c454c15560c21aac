import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_RAMP, PRODUCTION, scenarioRow, simulateMany, formatDecisionTable, type ScenarioRow } from '../../../bench/decisionSimulation.js';

/**
 * Rollouts simulated over the scheduler's own decision, checked every hour through every step of the
 * default ramp (bench/decisionSimulation.ts; `npm run bench -- decisions` runs more of them for the
 * table in docs/rollouts-and-bandits.md). Production fails 5% of calls, median latency 800 ms.
 */
const RUNS = 60;
const rows: ScenarioRow[] = [];
function run(name: string, candidate: { errorRate: number; latencyMs: number }, usersPerHour: number, seed: number): ScenarioRow {
  const row = scenarioRow(name, usersPerHour, simulateMany(RUNS, { control: PRODUCTION, candidate, steps: DEFAULT_RAMP, usersPerHour }, seed));
  rows.push(row);
  return row;
}

describe('simulated rollouts on the default ramp, checked every hour', () => {
  it('an A/A candidate is rolled back in at most 5% of rollouts, however often it is looked at', () => {
    const row = run('A/A', PRODUCTION, 2000, 1);
    expect(row.rolledBack / row.runs).toBeLessThanOrEqual(0.05);
    expect(row.shipped).toBe(row.runs - row.rolledBack);
  });

  it('a candidate with 10 times the errors, or failing every call, never reaches 100% and is rolled back on its first step', () => {
    for (const [candidate, seed] of [
      [{ errorRate: 0.5, latencyMs: 800 }, 2],
      [{ errorRate: 1, latencyMs: 800 }, 3],
    ] as const) {
      for (const traffic of [200, 2000]) {
        const row = run(`${candidate.errorRate} errors`, candidate, traffic, seed);
        expect(row.reachedLast).toBe(0);
        expect(row.rolledBack).toBe(row.runs);
      }
    }
  });

  it('a candidate with three times the errors reaches 100% in at most 5% of rollouts, at 200 and at 2 000 users an hour', () => {
    for (const traffic of [200, 2000]) {
      const row = run('3× errors', { errorRate: 0.15, latencyMs: 800 }, traffic, 4);
      expect(row.reachedLast / row.runs).toBeLessThanOrEqual(0.05);
    }
  });

  it('a candidate 50% slower is rolled back on its latency guardrail before it reaches 100%', () => {
    const row = run('+50% latency', { errorRate: 0.05, latencyMs: 1200 }, 2000, 5);
    expect(row.rolledBack).toBe(row.runs);
    expect(row.reachedLast).toBe(0);
  });
});

afterAll(() => console.info(`rollout simulation (${RUNS} runs each):\n${formatDecisionTable(rows)}`));
