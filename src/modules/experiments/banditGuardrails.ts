import { DEFAULT_ALPHA, moments, sequentialDifference, type Suff } from '../../stats/index.js';

/**
 * Which arms of a bandit a guardrail drops, pure (docs/rollouts-and-bandits.md, "Bandits"). Checked
 * every hour, so with the always-valid test a rollout uses (a confidence sequence on the difference
 * with control): looking again and again does not raise the chance of a false alarm. The level is
 * split over every guardrail × arm tested (Bonferroni), so a bandit with many arms is not more
 * trigger-happy than one with two.
 */

/** The confidence sequence's tuning N* (as the rollout's and the results' sequential option). */
const TUNING = 5000;

/** One guardrail as the check reads it from the results: each variant's sums, and which way is better. */
interface BanditGuardrailSums {
  name: string;
  direction: 'higher' | 'lower';
  variants: Readonly<Record<string, Suff>>;
}

export interface BanditGuardrailFacts {
  control: string;
  guardrails: readonly BanditGuardrailSums[];
}

/** The arms (never control) that a guardrail shows worse than control, each with the first guardrail that did. */
export function failingArms(facts: BanditGuardrailFacts, arms: readonly string[], alpha = DEFAULT_ALPHA): Array<{ variant: string; guardrail: string }> {
  const tested = arms.filter((a) => a !== facts.control);
  const share = alpha / Math.max(1, facts.guardrails.length * tested.length);
  const failing: Array<{ variant: string; guardrail: string }> = [];
  for (const arm of tested) {
    for (const g of facts.guardrails) {
      const cs = g.variants[facts.control];
      const ts = g.variants[arm];
      const c = cs === undefined ? null : moments('mean', cs);
      const t = ts === undefined ? null : moments('mean', ts);
      const d = c === null || t === null ? null : sequentialDifference({ n: cs!.n, ...c }, { n: ts!.n, ...t }, share, TUNING);
      if (d !== null && (g.direction === 'lower' ? d.ci[0] > 0 : d.ci[1] < 0)) {
        failing.push({ variant: arm, guardrail: g.name });
        break;
      }
    }
  }
  return failing;
}
