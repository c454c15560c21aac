import { decideRollout, type RolloutFacts } from '../../src/modules/experiments/rolloutDecision.js';
import type { RolloutState, RolloutStep } from '../../src/modules/experiments/experiments.schemas.js';

/**
 * Simulated rollouts over the pure decision (rolloutDecision.ts): each simulated hour, users arrive,
 * the rollout's coverage lets a share of them in (half to each variant), each user makes one call
 * that fails with its version's error rate and takes a log-normal latency, and then the hourly
 * check runs on the sums so far, exactly as the scheduled check reads them from the results.
 * Seeded, so every figure is reproducible.
 */

function gaussian(random: () => number): number {
  const u = 1 - random();
  const v = random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** One version as the simulated users see it. */
interface SimVersion {
  errorRate: number;
  /** Median latency in ms (log-normal with σ = 0.5). */
  latencyMs: number;
}

export interface SimOptions {
  control: SimVersion;
  candidate: SimVersion;
  steps: RolloutStep[];
  /** Users arriving per hour, in and out of the rollout. */
  usersPerHour: number;
  /** Give up after this many hourly checks. */
  maxHours?: number;
}

export interface SimOutcome {
  action: 'rollback' | 'ship' | 'timeout';
  /** Hours from the start to the check that rolled back or shipped. */
  hours: number;
  /** The step index at the end (0: the first step). */
  step: number;
  /** Users exposed to the candidate by then. */
  candidateUsers: number;
}

interface Sums {
  n: number;
  sum: number;
  sumSquares: number;
}
const empty = (): Sums => ({ n: 0, sum: 0, sumSquares: 0 });
const add = (s: Sums, x: number) => {
  s.n++;
  s.sum += x;
  s.sumSquares += x * x;
};

export function simulateRollout(options: SimOptions, random: () => number): SimOutcome {
  const start = Date.parse('2026-01-01T00:00:00Z');
  let state: RolloutState = {
    candidate: 'candidate',
    steps: options.steps,
    auto_ship: true,
    step: 0,
    step_started_at: new Date(start).toISOString(),
    awaiting_approval: false,
  };
  const errors = { control: empty(), candidate: empty() };
  const latency = { control: empty(), candidate: empty() };
  const maxHours = options.maxHours ?? 24 * 14;
  for (let hour = 1; hour <= maxHours; hour++) {
    const coverage = state.steps[state.step]!.percent / 100;
    for (let i = 0; i < options.usersPerHour; i++) {
      if (random() >= coverage) continue; // served production, uncounted
      const arm = random() < 0.5 ? 'control' : 'candidate';
      const version = options[arm];
      add(errors[arm], random() < version.errorRate ? 1 : 0);
      add(latency[arm], version.latencyMs * Math.exp(0.5 * gaussian(random)));
    }
    const facts: RolloutFacts = {
      users: errors.control.n + errors.candidate.n,
      guardrails: [
        { name: 'runs:error_rate', direction: 'lower', control: errors.control, candidate: errors.candidate },
        { name: 'runs:latency_ms', direction: 'lower', control: latency.control, candidate: latency.candidate },
      ],
    };
    const now = start + hour * 3_600_000;
    const decision = decideRollout(state, facts, now);
    if (decision.action === 'rollback' || decision.action === 'ship') {
      return { action: decision.action, hours: hour, step: decision.step, candidateUsers: errors.candidate.n };
    }
    if (decision.action === 'advance') state = { ...state, step: decision.step, step_started_at: new Date(now).toISOString() };
  }
  return { action: 'timeout', hours: maxHours, step: state.step, candidateUsers: errors.candidate.n };
}
