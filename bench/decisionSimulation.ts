import { decideRollout, type RolloutFacts } from '../src/modules/experiments/rolloutDecision.js';
import type { RolloutState, RolloutStep } from '../src/modules/experiments/experiments.schemas.js';
import { DEFAULT_STEPS } from '../src/modules/experiments/experimentTypes.js';

/**
 * Rollouts simulated over the scheduler's own decision (rolloutDecision.ts): each simulated hour,
 * users arrive, the rollout's coverage lets a share of them in (half to each variant), each user makes
 * one call that fails with its version's error rate and takes a log-normal latency, then the hourly
 * check runs on the sums so far, exactly as the scheduled check reads them from the results.
 * Seeded, so every figure is reproducible. Used by test/unit/experiments/rolloutSimulation.test.ts
 * (few runs, in `npm test`) and by `npm run bench -- decisions` (many runs, the docs' table).
 */

export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function gaussian(random: () => number): number {
  const u = 1 - random();
  const v = random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** One version as the simulated users see it. */
export interface SimVersion {
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
  /** Give up after this many hourly checks (default 14 days). */
  maxHours?: number;
}

export interface SimOutcome {
  /** How the rollout ended: rolled back, shipped, paused for a person, or still running at maxHours. */
  action: 'rollback' | 'ship' | 'pause' | 'timeout';
  /** Hours from the start to the check that ended it. */
  hours: number;
  /** The step index at the end (0: the first step). */
  step: number;
  /** Whether it ever reached its last step (100%: half of all users on the candidate). */
  reachedLast: boolean;
  /** Users exposed to the candidate by the end. */
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

/** The decision as the simulation calls it: the scheduler's own by default. */
export type Decide = (state: RolloutState, facts: RolloutFacts, nowMs: number) => { action: string; step: number };

function simulateRollout(options: SimOptions, random: () => number, decide: Decide = decideRollout): SimOutcome {
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
  const last = options.steps.length - 1;
  let reachedLast = last === 0;
  for (let hour = 1; hour <= maxHours; hour++) {
    const coverage = state.steps[state.step]!.percent / 100;
    for (let i = 0; i < options.usersPerHour; i++) {
      if (random() >= coverage) continue; // served production, uncounted
      const arm = random() < 0.5 ? 'control' : 'candidate';
      const version = options[arm];
      add(errors[arm], random() < version.errorRate ? 1 : 0);
      add(latency[arm], version.latencyMs * Math.exp(0.5 * gaussian(random)));
    }
    const facts = {
      users: errors.control.n + errors.candidate.n,
      guardrails: [
        { name: 'runs:error_rate', kind: 'error_rate', direction: 'lower' as const, control: { ...errors.control }, candidate: { ...errors.candidate } },
        { name: 'runs:latency_ms', kind: 'latency_ms', direction: 'lower' as const, control: { ...latency.control }, candidate: { ...latency.candidate } },
      ],
    } satisfies RolloutFacts;
    const now = start + hour * 3_600_000;
    const decision = decide(state, facts, now);
    const end = { hours: hour, step: decision.step, candidateUsers: errors.candidate.n };
    if (decision.action === 'rollback' || decision.action === 'ship' || decision.action === 'pause') return { action: decision.action, reachedLast, ...end };
    if (decision.action === 'advance') {
      state = { ...state, step: decision.step, step_started_at: new Date(now).toISOString() };
      if (decision.step === last) reachedLast = true;
    }
  }
  return { action: 'timeout', hours: maxHours, step: state.step, reachedLast, candidateUsers: errors.candidate.n };
}

export function simulateMany(count: number, options: SimOptions, seed: number, decide?: Decide): SimOutcome[] {
  const random = mulberry32(seed);
  return Array.from({ length: count }, () => simulateRollout(options, random, decide));
}

const median = (xs: readonly number[]): number | null => (xs.length === 0 ? null : [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!);

/** Production as the docs' table simulates it: 5% of calls fail, median latency 800 ms. */
export const PRODUCTION: SimVersion = { errorRate: 0.05, latencyMs: 800 };

/** The rollout's default ramp, as a rollout created without steps gets it. */
export const DEFAULT_RAMP: RolloutStep[] = [...DEFAULT_STEPS];

/** The candidates of the table: the same as production (A/A), more errors, all errors, slower. */
const CANDIDATES: ReadonlyArray<{ name: string; candidate: SimVersion }> = [
  { name: 'A/A (the same as production)', candidate: PRODUCTION },
  { name: '1.5× the errors (7.5%)', candidate: { errorRate: 0.075, latencyMs: 800 } },
  { name: '3× the errors (15%)', candidate: { errorRate: 0.15, latencyMs: 800 } },
  { name: '10× the errors (50%)', candidate: { errorRate: 0.5, latencyMs: 800 } },
  { name: 'every call fails (100%)', candidate: { errorRate: 1, latencyMs: 800 } },
  { name: '+50% latency (1 200 ms)', candidate: { errorRate: 0.05, latencyMs: 1200 } },
];

export interface ScenarioRow {
  candidate: string;
  usersPerHour: number;
  runs: number;
  rolledBack: number;
  reachedLast: number;
  shipped: number;
  paused: number;
  running: number;
  /** Medians over the rolled-back runs (null: none rolled back). */
  rollbackHours: number | null;
  rollbackCandidateUsers: number | null;
  maxRollbackCandidateUsers: number | null;
}

export function scenarioRow(candidate: string, usersPerHour: number, outcomes: readonly SimOutcome[]): ScenarioRow {
  const back = outcomes.filter((o) => o.action === 'rollback');
  return {
    candidate,
    usersPerHour,
    runs: outcomes.length,
    rolledBack: back.length,
    reachedLast: outcomes.filter((o) => o.reachedLast).length,
    shipped: outcomes.filter((o) => o.action === 'ship').length,
    paused: outcomes.filter((o) => o.action === 'pause').length,
    running: outcomes.filter((o) => o.action === 'timeout').length,
    rollbackHours: median(back.map((o) => o.hours)),
    rollbackCandidateUsers: median(back.map((o) => o.candidateUsers)),
    maxRollbackCandidateUsers: back.length === 0 ? null : Math.max(...back.map((o) => o.candidateUsers)),
  };
}

/** Every candidate at each traffic, `runs` rollouts each, through `decide`. */
export function decisionTable(runs: number, traffics: readonly number[], steps: RolloutStep[], seed: number, decide?: Decide): ScenarioRow[] {
  const rows: ScenarioRow[] = [];
  let s = seed;
  for (const usersPerHour of traffics) {
    for (const { name, candidate } of CANDIDATES) {
      rows.push(scenarioRow(name, usersPerHour, simulateMany(runs, { control: PRODUCTION, candidate, steps, usersPerHour }, s++, decide)));
    }
  }
  return rows;
}

const pct = (k: number, n: number) => `${((k / n) * 100).toFixed(1)}%`;

export function formatDecisionTable(rows: readonly ScenarioRow[]): string {
  const lines = [
    '| candidate | users an hour | rolled back | median hours to roll back | median candidate users at rollback (max) | reached 100% | shipped | paused for a person | still running after 14 days |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const users = r.rollbackCandidateUsers === null ? '–' : `${r.rollbackCandidateUsers} (${r.maxRollbackCandidateUsers})`;
    lines.push(
      `| ${r.candidate} | ${r.usersPerHour} | ${pct(r.rolledBack, r.runs)} | ${r.rollbackHours ?? '–'} | ${users} | ${pct(r.reachedLast, r.runs)} | ${pct(r.shipped, r.runs)} | ${pct(r.paused, r.runs)} | ${pct(r.running, r.runs)} |`,
    );
  }
  return lines.join('\n');
}
