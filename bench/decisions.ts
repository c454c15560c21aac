import { DEFAULT_RAMP, decisionTable, formatDecisionTable } from './decisionSimulation.js';
import { CHECKPOINTS, coverageTable, formatCoverageTable } from './intervalCoverage.js';

/**
 * `npm run bench -- decisions`: the simulations of docs/rollouts-and-bandits.md at full length
 * (test/unit/experiments/rolloutSimulation.test.ts and test/unit/stats/rateSequence.test.ts run
 * short versions in `npm test`). Seeded: the same figures on every machine. BENCH_DECISION_RUNS
 * sets the rollouts per row (default 200), BENCH_COVERAGE_RUNS the runs per coverage row (default 500).
 */
export function main(): void {
  const runs = Number(process.env.BENCH_DECISION_RUNS ?? 200);
  const coverageRuns = Number(process.env.BENCH_COVERAGE_RUNS ?? 500);
  const started = Date.now();
  console.log(`\n## Rollouts on the default ramp, checked every hour (${runs} per row; production fails 5% of calls, median latency 800 ms)\n`);
  console.log(formatDecisionTable(decisionTable(runs, [200, 2000], DEFAULT_RAMP, 1)));
  console.log(`\n## Coverage of the guardrails' intervals at every look (${coverageRuns} runs per row)\n`);
  console.log(formatCoverageTable(coverageTable(coverageRuns, CHECKPOINTS, 11), CHECKPOINTS));
  console.log(`\n(${((Date.now() - started) / 1000).toFixed(0)} s)`);
}
