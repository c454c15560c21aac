import { DEFAULT_ALPHA, moments, sequentialDifference, type Suff } from '../../stats/index.js';
import type { RolloutState } from './experiments.schemas.js';

/**
 * A rollout's check, pure (docs/rollouts-and-bandits.md): from the guardrails' sufficient
 * statistics and the step's progress to hold, advance, roll back, ship or wait for approval.
 * The scheduled check runs this over the results; the simulations run it over simulated sums.
 */

/** The confidence sequence's tuning N* (as the results' sequential option): tightest around this many users. */
const TUNING = 5000;

/** One guardrail as the check reads it: each variant's sums over its users, and which way is better. */
interface GuardrailSums {
  name: string;
  direction: 'higher' | 'lower';
  control: Suff;
  candidate: Suff;
}

/** One guardrail as the check saw it: kept in the timeline and shown by the console and the CLI. */
interface GuardrailFigure {
  name: string;
  direction: 'higher' | 'lower';
  control: { users: number; value: number | null };
  candidate: { users: number; value: number | null };
  /** candidate − control, and its always-valid interval; null while there is not enough data. */
  difference: number | null;
  interval: [number, number] | null;
  worse: boolean;
}

export interface RolloutFacts {
  /** Exposed users, both variants, since the start. */
  users: number;
  guardrails: readonly GuardrailSums[];
}

type RolloutAction = 'hold' | 'advance' | 'rollback' | 'ship' | 'await_approval';

export interface RolloutDecision {
  action: RolloutAction;
  reason: string;
  /** The step after the check (the next one on advance). */
  step: number;
  guardrails: GuardrailFigure[];
}

const meanOf = (s: Suff) => (s.n > 0 ? s.sum / s.n : null);
const round = (x: number) => Number(x.toPrecision(3));

/**
 * One guardrail tested with the always-valid interval of the difference, at α shared out among
 * the guardrails (Bonferroni), so the chance that any of them ever flags a harmless candidate,
 * however often it is looked at, stays under α. Worse: the whole interval lies on the worse side.
 */
function testGuardrail(g: GuardrailSums, alpha: number): GuardrailFigure {
  const base = {
    name: g.name,
    direction: g.direction,
    control: { users: g.control.n, value: meanOf(g.control) },
    candidate: { users: g.candidate.n, value: meanOf(g.candidate) },
  };
  const c = moments('mean', g.control);
  const t = moments('mean', g.candidate);
  const d = c === null || t === null ? null : sequentialDifference({ n: g.control.n, ...c }, { n: g.candidate.n, ...t }, alpha, TUNING);
  if (d === null) return { ...base, difference: null, interval: null, worse: false };
  const worse = g.direction === 'lower' ? d.ci[0] > 0 : d.ci[1] < 0;
  return { ...base, difference: d.difference, interval: d.ci, worse };
}

function describeWorse(f: GuardrailFigure): string {
  const [lo, hi] = f.interval!;
  return `on the guardrail ${f.name} the candidate measured ${round(f.candidate.value!)} against production's ${round(f.control.value!)} (the difference is between ${round(lo)} and ${round(hi)}, always-valid ${Math.round((1 - DEFAULT_ALPHA) * 100)}% interval)`;
}

/** The check of a running rollout at `nowMs`. */
export function decideRollout(state: RolloutState, facts: RolloutFacts, nowMs: number, alpha = DEFAULT_ALPHA): RolloutDecision {
  const share = alpha / Math.max(1, facts.guardrails.length);
  const guardrails = facts.guardrails.map((g) => testGuardrail(g, share));
  const step = state.steps[state.step]!;
  const at = `step ${state.step + 1} of ${state.steps.length} (${step.percent}%)`;
  const worse = guardrails.filter((g) => g.worse);
  if (worse.length > 0) {
    const more = worse.length > 1 ? ` (and ${worse.length - 1} more guardrail${worse.length > 2 ? 's' : ''})` : '';
    return { action: 'rollback', reason: `Rolled back at ${at}: ${describeWorse(worse[0]!)}${more}.`, step: state.step, guardrails };
  }
  const minutes = state.step_started_at === null ? 0 : Math.floor((nowMs - Date.parse(state.step_started_at)) / 60_000);
  const missing: string[] = [];
  if (facts.users < step.min_users) missing.push(`${facts.users} of ${step.min_users} users`);
  if (minutes < step.min_minutes) missing.push(`${minutes} of ${step.min_minutes} minutes`);
  if (missing.length > 0)
    return { action: 'hold', reason: `Holding at ${at}: ${missing.join(', ')} so far; no guardrail got worse.`, step: state.step, guardrails };
  if (state.step + 1 < state.steps.length) {
    const next = state.steps[state.step + 1]!;
    return {
      action: 'advance',
      reason: `Advanced to step ${state.step + 2} (${next.percent}%): step ${state.step + 1} met its minimums (${facts.users} users, ${minutes} minutes) and no guardrail got worse.`,
      step: state.step + 1,
      guardrails,
    };
  }
  if (state.auto_ship) {
    return {
      action: 'ship',
      reason: `Shipped: the last step (${step.percent}%) met its minimums and no guardrail got worse; production now serves the candidate.`,
      step: state.step,
      guardrails,
    };
  }
  return {
    action: 'await_approval',
    reason: `Waiting for approval: the last step (${step.percent}%) met its minimums and no guardrail got worse; stop with ship to move production to the candidate.`,
    step: state.step,
    guardrails,
  };
}
