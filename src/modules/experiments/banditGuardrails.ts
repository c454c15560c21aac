import { DEFAULT_ALPHA, type Suff } from '../../stats/index.js';
import { testGuardrail } from './rolloutGuardrail.js';

/**
 * Which arms of a bandit a guardrail drops, pure (docs/rollouts-and-bandits.md, "Bandits"). Checked
 * every hour, so with the always-valid test a rollout uses (a confidence sequence on the difference
 * with control): looking again and again does not raise the chance of a false alarm. The level is
 * split over every guardrail × arm tested (Bonferroni), so a bandit with many arms is not more
 * trigger-happy than one with two.
 */

/** One guardrail as the check reads it from the results: each variant's sums, and which way is better. */
interface BanditGuardrailSums {
  name: string;
  /** The metric's kind: rates get the non-asymptotic sequence, as in a rollout. */
  kind: string;
  direction: 'higher' | 'lower';
  variants: Readonly<Record<string, Suff>>;
}

export interface BanditGuardrailFacts {
  control: string;
  guardrails: readonly BanditGuardrailSums[];
}

/**
 * The arms (never control) that a guardrail shows worse than control, each with the first guardrail
 * that did (the interval of a rollout's guardrail: rolloutGuardrail.ts), and the arms some guardrail
 * of which has no figure yet (missing sums, too few users, or sums that are not finite numbers): a
 * bandit never ships such an arm, since a missing figure is no evidence that it is safe.
 */
export function guardrailChecks(
  facts: BanditGuardrailFacts,
  arms: readonly string[],
  alpha = DEFAULT_ALPHA,
): { failing: Array<{ variant: string; guardrail: string }>; unknown: Array<{ variant: string; guardrail: string }> } {
  const tested = arms.filter((a) => a !== facts.control);
  const share = alpha / Math.max(1, facts.guardrails.length * tested.length);
  const failing: Array<{ variant: string; guardrail: string }> = [];
  const unknown: Array<{ variant: string; guardrail: string }> = [];
  const none = { n: 0, sum: 0, sumSquares: 0 };
  for (const arm of tested) {
    for (const g of facts.guardrails) {
      const f = testGuardrail({ ...g, control: g.variants[facts.control] ?? none, candidate: g.variants[arm] ?? none }, share, {});
      if (f.worse) {
        failing.push({ variant: arm, guardrail: g.name });
        break;
      }
      if (f.interval === null && !unknown.some((u) => u.variant === arm)) unknown.push({ variant: arm, guardrail: g.name });
    }
  }
  return { failing, unknown };
}

/** The arms (never control) that a guardrail shows worse than control, each with the first guardrail that did. */
export function failingArms(facts: BanditGuardrailFacts, arms: readonly string[], alpha = DEFAULT_ALPHA): Array<{ variant: string; guardrail: string }> {
  return guardrailChecks(facts, arms, alpha).failing;
}
