import { covariate, type Covariate } from '../experiments/covariate.js';
import type { ExperimentView } from '../experiments/experiments.schemas.js';
import type { MetricDef } from '../experiments/metrics.js';
import type { ResultsOptions } from './measured.js';

/**
 * Which reads a results report needs, decided from the experiment and its declared metrics alone
 * (pure). Only what depends on the data itself (which event type most users reached) is left to the
 * reads, named here as the candidates to choose from.
 */
export interface ReadPlan {
  keys: readonly string[];
  declared: readonly MetricDef[];
  /** The declared outcome metrics' event types, distinct, in declaration order. */
  outcomeTypes: readonly string[];
  /** The primary metric when it reads outcomes: its event type is the one checked against assignments. */
  primaryOutcome: MetricDef | undefined;
  /** Every event type the experiment has outcomes for is read too: exploring, or nothing declared. */
  everyType: boolean;
  explore: boolean;
  cuped: boolean;
  /** CUPED's covariate over the declared event types; null without CUPED or without any. */
  covariate: Covariate | null;
  /**
   * The event type joined to assignments (the multiple-variant check and the daily chart): one type
   * pays for that join's seek per user, so either the primary's, or the widest of some candidates.
   */
  checked: { type: string } | { widestOf: readonly string[] } | { widestOfSeen: true };
  /** Where users with a success come from, for cost per successful user. */
  successfulUsers: 'primary' | 'any-seen' | 'query';
  /** Event types whose label counts are shown: the declared ones, and when exploring every one seen. */
  labelsOfSeen: boolean;
}

/** Resolves which reads the report needs. */
export function planReads(e: ExperimentView, options: ResultsOptions): ReadPlan {
  const declared = e.metrics;
  const outcomeTypes = [...new Set(declared.flatMap((m) => (m.event_type === null ? [] : [m.event_type])))];
  const primary = declared.find((m) => m.role === 'primary');
  const primaryOutcome = primary?.source === 'outcomes' ? primary : undefined;
  const everyType = options.explore || declared.length === 0;
  return {
    keys: e.variants.map((v) => v.key),
    declared,
    outcomeTypes,
    primaryOutcome,
    everyType,
    explore: options.explore,
    cuped: options.cuped,
    covariate: options.cuped ? covariate(e.cuped_days, outcomeTypes) : null,
    checked: checkedOf(primaryOutcome, declared, outcomeTypes),
    successfulUsers: primaryOutcome !== undefined ? 'primary' : everyType ? 'any-seen' : 'query',
    labelsOfSeen: options.explore,
  };
}

/**
 * Joining outcomes to assignments costs one seek per user, so one event type pays for it: the
 * primary metric's, else the declared event type most users have, else (nothing declared) the
 * widest of all.
 */
function checkedOf(primaryOutcome: MetricDef | undefined, declared: readonly MetricDef[], outcomeTypes: readonly string[]): ReadPlan['checked'] {
  if (primaryOutcome !== undefined) return { type: primaryOutcome.event_type! };
  return declared.length === 0 ? { widestOfSeen: true } : { widestOf: outcomeTypes };
}

/**
 * Whether a metric needs each user's value rather than SQL's sums: a percentile cap (taken over
 * every user first), or CUPED's Σxy (each user's pre- and post-exposure values side by side).
 */
export function needsUserValues(m: MetricDef, cuped: boolean): boolean {
  return m.source === 'outcomes' && (cuped || (m.cap !== null && typeof m.cap === 'object'));
}
