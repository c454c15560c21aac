import { DEFAULT_ALPHA } from './compare.js';
import type { Comparison, Verdict } from './types.js';

export interface VerdictNames {
  /** Variant key, shown as "Variant <key>" (default "The variant"). */
  variant?: string;
  /** How to call the baseline (default "control"). */
  control?: string;
}

/**
 * The p-value that decides a comparison: the always-valid sequential one when it was computed
 * (so that looking every day does not inflate false positives), else the fixed-horizon Welch p on
 * the relative lift. Holm-adjust these across variants × metrics and pass the result to verdictFor.
 */
export function primaryPValue(c: Comparison): number | null {
  if (!c.enoughData) return null;
  // Two proportions at the edge have no relative test: their absolute (pooled) test decides.
  return c.sequential ? c.sequential.pValue : (c.relative.pValue ?? c.absolute.pValue);
}

function formatLift(lift: number): string {
  const pct = (lift * 100).toFixed(1);
  return lift >= 0 ? `+${pct}%` : `${pct}%`;
}

function formatP(p: number): string {
  return p < 0.001 ? 'p<0.001' : `p=${Number(p.toFixed(3))}`;
}

function describe(names: VerdictNames) {
  return {
    subject: names.variant !== undefined ? `Variant ${names.variant}` : 'The variant',
    object: names.variant !== undefined ? `variant ${names.variant}` : 'the variant',
    control: names.control ?? 'control',
  };
}

/**
 * Plain-language verdict for one comparison. `direction` says which way is better (higher for a
 * success rate, lower for latency or cost). `adjustedP` is the Holm-adjusted decision p-value; when
 * null, primaryPValue(c) is used unadjusted. `pLabel` names that p in the text ("Holm-adjusted p=0.01").
 *
 *   not_enough_data           the comparison could not be made (reason given)
 *   better / worse            p < alpha; better when the lift goes the desired way
 *   no_detectable_difference  p ≥ alpha
 */
export function verdictFor(
  c: Comparison,
  adjustedP: number | null,
  alpha: number = DEFAULT_ALPHA,
  names: VerdictNames = {},
  direction: 'higher' | 'lower' = 'higher',
  pLabel = '',
): { verdict: Verdict; text: string } {
  const { subject, object, control } = describe(names);
  // A control at 0 has no relative lift: the absolute difference then says which way it went.
  const lift = c.relative.lift ?? c.absolute.lift;
  const p = adjustedP !== null && Number.isFinite(adjustedP) ? adjustedP : primaryPValue(c);

  if (!c.enoughData || lift === null || p === null) {
    const why = c.reason ?? 'no p-value available';
    return { verdict: 'not_enough_data', text: `Not enough data to compare ${object} with ${control} (${why})` };
  }
  const shown = c.relative.lift !== null ? formatLift(lift) : `${lift >= 0 ? '+' : ''}${Number(lift.toPrecision(4))} absolute`;
  // The label says which p this is (e.g. "sequential Holm-adjusted"), so the sentence and a table's column agree.
  const detail = `(${shown}, ${pLabel === '' ? '' : `${pLabel} `}${formatP(p)})`;
  if (p < alpha && lift !== 0) {
    const verdict: Verdict = lift > 0 === (direction === 'higher') ? 'better' : 'worse';
    return { verdict, text: `${subject} is ${verdict} than ${control} ${detail}` };
  }
  return {
    verdict: 'no_detectable_difference',
    text: `No detectable difference between ${object} and ${control} ${detail}`,
  };
}

/**
 * Verdict for a guardrail, tested one-sided for "got worse" (`pWorse`, unadjusted, as GrowthBook
 * does): worse when pWorse < alpha, otherwise no detectable difference; a guardrail is never
 * "better", it only passes or fails.
 */
export function guardrailVerdict(
  c: Comparison,
  pWorse: number | null,
  alpha: number = DEFAULT_ALPHA,
  names: VerdictNames = {},
): { verdict: Verdict; text: string } {
  const { subject, object, control } = describe(names);
  const lift = c.relative.lift ?? c.absolute.lift;
  if (pWorse === null || lift === null) {
    const why = c.reason ?? 'no p-value available';
    return { verdict: 'not_enough_data', text: `Not enough data to check ${object} against ${control} (${why})` };
  }
  const shown = c.relative.lift !== null ? formatLift(c.relative.lift) : `${c.absolute.lift! >= 0 ? '+' : ''}${Number(c.absolute.lift!.toPrecision(4))}`;
  const detail = `(${shown}, one-sided ${formatP(pWorse)})`;
  if (pWorse < alpha) return { verdict: 'worse', text: `${subject} is worse than ${control} ${detail}` };
  return { verdict: 'no_detectable_difference', text: `No sign that ${object} is worse than ${control} ${detail}` };
}
