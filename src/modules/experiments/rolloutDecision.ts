import { DEFAULT_ALPHA } from '../../stats/index.js';
import type { RolloutState } from './experiments.schemas.js';
import { defaultTolerance, testGuardrail, type GuardrailFigure, type GuardrailSums } from './rolloutGuardrail.js';

/**
 * A rollout's check, pure (docs/rollouts-and-bandits.md): from the guardrails' sufficient
 * statistics and the step's progress to hold, advance, roll back, ship or wait for approval.
 * The scheduled check runs this over the results; the simulations run it over simulated sums.
 */

export interface RolloutFacts {
  /** Exposed users, both variants, since the start. */
  users: number;
  guardrails: readonly GuardrailSums[];
}

type RolloutAction = 'hold' | 'advance' | 'rollback' | 'ship' | 'await_approval' | 'pause';

export interface RolloutDecision {
  action: RolloutAction;
  reason: string;
  /** The step after the check (the next one on advance). */
  step: number;
  guardrails: GuardrailFigure[];
}

/** Each arm needs this many users before a candidate that failed every call is rolled back, whatever the step's minimums. */
const ALL_FAILED_MIN_USERS = 10;
/** A rollout none of whose guardrails has data for this long (since its step began or it was resumed) pauses for a person. */
const NO_DATA_PAUSE_MINUTES = 24 * 60;
/** A step that has not shown every guardrail within its tolerance for this long pauses for a person. */
const NOT_SHOWN_SAFE_PAUSE_MINUTES = 7 * 24 * 60;

const round = (x: number) => Number(x.toPrecision(3));
const level = `always-valid ${Math.round((1 - DEFAULT_ALPHA) * 100)}% interval`;

function describeWorse(f: GuardrailFigure): string {
  const [lo, hi] = f.interval!;
  return `on the guardrail ${f.name} the candidate measured ${round(f.candidate.value!)} against production's ${round(f.control.value!)} (the difference is between ${round(lo)} and ${round(hi)}, ${level})`;
}

/** Why a guardrail is not (yet) shown safe, in words. */
function describeUnsafe(f: GuardrailFigure): string {
  if (f.interval === null || f.tolerance === null) return `${f.name}: ${f.note ?? 'no figure'}`;
  const bound = f.direction === 'lower' ? f.interval[1] : f.interval[0];
  return `${f.name}: the candidate may be up to ${round(Math.abs(bound))} worse (${level}), more than its tolerance of ${round(f.tolerance)}`;
}

/** A candidate of which every call failed, with enough users in each arm to say so. */
function everyCallFailed(guardrails: readonly GuardrailSums[]): GuardrailSums | undefined {
  return guardrails.find(
    (g) =>
      g.kind === 'error_rate' &&
      g.control.n >= ALL_FAILED_MIN_USERS &&
      g.candidate.n >= ALL_FAILED_MIN_USERS &&
      g.candidate.sum === g.candidate.n &&
      g.control.sum < g.control.n,
  );
}

/**
 * The check of a running rollout at `nowMs`, in this order: roll back (every call of the candidate
 * failed, or a guardrail is significantly worse), pause for a person (no guardrail had data for a
 * day, or the step could not show safety within a week), hold (the step's minimums, or a guardrail
 * not yet shown within its tolerance: a missing figure never counts as safe), then advance, ship or
 * wait for approval.
 */
export function decideRollout(state: RolloutState, facts: RolloutFacts, nowMs: number, alpha = DEFAULT_ALPHA): RolloutDecision {
  const share = alpha / Math.max(1, facts.guardrails.length);
  const guardrails = facts.guardrails.map((g) => testGuardrail(g, share, state.tolerances?.[g.name] ?? defaultTolerance(g.kind)));
  const step = state.steps[state.step]!;
  const at = `step ${state.step + 1} of ${state.steps.length} (${step.percent}%)`;
  const decision = (action: RolloutAction, reason: string, to = state.step): RolloutDecision => ({ action, reason, step: to, guardrails });

  const allFailed = everyCallFailed(facts.guardrails);
  if (allFailed !== undefined) {
    return decision(
      'rollback',
      `Rolled back at ${at}: every call of the candidate failed (${allFailed.candidate.n} of ${allFailed.candidate.n} users on ${allFailed.name}, against production's ${round(allFailed.control.sum / allFailed.control.n)}).`,
    );
  }
  const worse = guardrails.filter((g) => g.worse);
  if (worse.length > 0) {
    const more = worse.length > 1 ? ` (and ${worse.length - 1} more guardrail${worse.length > 2 ? 's' : ''})` : '';
    return decision('rollback', `Rolled back at ${at}: ${describeWorse(worse[0]!)}${more}.`);
  }

  const since = state.evidence_since ?? state.step_started_at;
  const waited = since === null ? 0 : Math.floor((nowMs - Date.parse(since)) / 60_000);
  const minutes = state.step_started_at === null ? 0 : Math.floor((nowMs - Date.parse(state.step_started_at)) / 60_000);
  const unsafe = guardrails.filter((g) => !g.safe);
  const withData = guardrails.filter((g) => g.has_data);
  if (withData.length === 0 && waited >= NO_DATA_PAUSE_MINUTES) {
    const which = guardrails.length === 0 ? 'it has no guardrail' : `none of its guardrails (${guardrails.map((g) => g.name).join(', ')}) has data`;
    return decision(
      'pause',
      `Paused at ${at} for a person: ${which} after ${Math.floor(waited / 60)} hours, so nothing shows the candidate is safe. Send traffic that records runs (POST /run_prompt) or declare guardrails that get data, then start it again.`,
    );
  }
  // No guardrail at all shows nothing: it is never read as every guardrail being safe.
  const shownSafe = guardrails.length > 0 && unsafe.length === 0;
  if (!shownSafe && waited >= NOT_SHOWN_SAFE_PAUSE_MINUTES) {
    return decision(
      'pause',
      `Paused at ${at} for a person: after ${Math.floor(waited / 1440)} days the step has not shown that the candidate does no material harm (${unsafe.length === 0 ? 'it has no guardrail' : unsafe.map(describeUnsafe).join('; ')}). Start it again to keep collecting, or stop it.`,
    );
  }
  const missing: string[] = [];
  if (facts.users < step.min_users) missing.push(`${facts.users} of ${step.min_users} users`);
  if (minutes < step.min_minutes) missing.push(`${minutes} of ${step.min_minutes} minutes`);
  if (missing.length > 0) return decision('hold', `Holding at ${at}: ${missing.join(', ')} so far; no guardrail got worse.`);
  if (guardrails.length === 0) return decision('hold', `Holding at ${at}: the rollout has no guardrail, so nothing shows the candidate is safe.`);
  if (!shownSafe) {
    return decision(
      'hold',
      `Holding at ${at}: no guardrail got worse, but not every one is shown within its tolerance yet (${unsafe.map(describeUnsafe).join('; ')}).`,
    );
  }
  const met = `met its minimums and every guardrail is shown within its tolerance`;
  if (state.step + 1 < state.steps.length) {
    const next = state.steps[state.step + 1]!;
    return decision(
      'advance',
      `Advanced to step ${state.step + 2} (${next.percent}%): step ${state.step + 1} ${met} (${facts.users} users, ${minutes} minutes).`,
      state.step + 1,
    );
  }
  if (state.auto_ship) return decision('ship', `Shipped: the last step (${step.percent}%) ${met}; production now serves the candidate.`);
  return decision('await_approval', `Waiting for approval: the last step (${step.percent}%) ${met}; stop with ship to move production to the candidate.`);
}
