import type { CheckersByType } from './modules/scheduler/scheduler.js';

/**
 * Which check the scheduler runs for each experiment type: the one seam between the scheduler
 * (when, and once across replicas) and what a type's check does. A type maps to its check
 * function, or to null when the scheduler never checks it.
 */
export function checkersByType(checks: { rollout: CheckersByType[string]; bandit: CheckersByType[string] }): CheckersByType {
  return {
    ab: null, // decided by a person reading its results
    rollout: checks.rollout,
    bandit: checks.bandit, // re-weights by Thompson sampling, drops arms failing a guardrail, ships a clear winner
  };
}
