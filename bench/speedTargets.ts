/**
 * The runtime speed targets, and how one bench run's rounds become a figure per target. Pure: the
 * measuring is bench/speed.ts, the comparing of two runs bench/compare.ts.
 */
import type { WrkResult } from './wrk.js';

/** One measured load of a server: what wrk saw, and what the server's process spent. */
export interface Measured extends WrkResult {
  /** Server CPU (user + system, all threads) per completed request, µs. */
  cpuUsPerRequest: number;
  /** Highest RSS sampled during the load, MB. */
  peakRssMb: number;
  /** Longest event-loop stall during the load, ms (Promptline only: the references have no probe). */
  stallMs: number | null;
}

/** One round of one case: the reference, then Promptline, back to back. */
export interface Round {
  reference: Measured;
  promptline: Measured;
}

export type CaseId = 'get' | 'get-experiment' | 'track' | 'run-1' | 'run-16' | 'run-64';

export interface Target {
  id: string;
  name: string;
  caseId: CaseId;
  /** The figure of one round. */
  figure(round: Round): number;
  /** How the figure is written, and the target it must meet. */
  unit: 'ratio' | 'ms';
  goal: { atLeast: number } | { atMost: number };
}

export const TARGETS: readonly Target[] = [
  { id: 'get', name: '/get_prompt, no experiment: share of bare', caseId: 'get', figure: rpsRatio, unit: 'ratio', goal: { atLeast: 0.55 } },
  {
    id: 'get-experiment',
    name: '/get_prompt, running experiment, sticky users: share of bare',
    caseId: 'get-experiment',
    figure: rpsRatio,
    unit: 'ratio',
    goal: { atLeast: 0.55 },
  },
  { id: 'track', name: '/track_outcome (synchronous=FULL): share of bare', caseId: 'track', figure: rpsRatio, unit: 'ratio', goal: { atLeast: 0.35 } },
  {
    id: 'run-16',
    name: '/run_prompt throughput, 16 connections: share of the proxy',
    caseId: 'run-16',
    figure: rpsRatio,
    unit: 'ratio',
    goal: { atLeast: 0.6 },
  },
  {
    id: 'run-64',
    name: '/run_prompt throughput, 64 connections: share of the proxy',
    caseId: 'run-64',
    figure: rpsRatio,
    unit: 'ratio',
    goal: { atLeast: 0.6 },
  },
  {
    id: 'run-64-p99',
    name: "/run_prompt p99, 64 connections: times the proxy's",
    caseId: 'run-64',
    figure: (r) => r.promptline.p99Ms / r.reference.p99Ms,
    unit: 'ratio',
    goal: { atMost: 2 },
  },
  {
    id: 'run-64-cpu',
    name: "/run_prompt server CPU per call, 64 connections: times the proxy's",
    caseId: 'run-64',
    figure: (r) => r.promptline.cpuUsPerRequest / r.reference.cpuUsPerRequest,
    unit: 'ratio',
    goal: { atMost: 2 },
  },
  {
    id: 'run-1-p50',
    name: '/run_prompt p50, 1 connection: ms added to the proxy',
    caseId: 'run-1',
    figure: (r) => r.promptline.p50Ms - r.reference.p50Ms,
    unit: 'ms',
    goal: { atMost: 0.5 },
  },
];

function rpsRatio(round: Round): number {
  return round.promptline.rps / round.reference.rps;
}

export interface TargetResult {
  id: string;
  name: string;
  unit: Target['unit'];
  goal: Target['goal'];
  /** The median of the rounds' figures, and their lowest and highest: how much the bench moves. */
  median: number;
  min: number;
  max: number;
  pass: boolean;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** A target is met when the median of the rounds meets it. */
export function evaluate(target: Target, rounds: readonly Round[]): TargetResult {
  const figures = rounds.map(target.figure);
  const mid = median(figures);
  const pass = 'atLeast' in target.goal ? mid >= target.goal.atLeast : mid <= target.goal.atMost;
  return { id: target.id, name: target.name, unit: target.unit, goal: target.goal, median: mid, min: Math.min(...figures), max: Math.max(...figures), pass };
}

export function goalText(goal: Target['goal'], unit: Target['unit']): string {
  const [sign, value] = 'atLeast' in goal ? ['≥', goal.atLeast] : ['≤', goal.atMost];
  return unit === 'ms' ? `${sign} ${value} ms` : `${sign} ${value}`;
}

export function figureText(value: number, unit: Target['unit']): string {
  return unit === 'ms' ? `${value.toFixed(2)} ms` : value.toFixed(2);
}
