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
  return c.sequential ? c.sequential.pValue : c.relative.pValue;
}

function formatLift(lift: number): string {
  const pct = (lift * 100).toFixed(1);
  return lift >= 0 ? `+${pct}%` : `${pct}%`;
}

function formatP(p: number): string {
  return p < 0.001 ? 'p<0.001' : `p=${Number(p.toFixed(3))}`;
}

/**
 * Plain-language verdict for one comparison. Higher is better for every metric Promptline reports
 * (success rate, mean numeric value). `adjustedP` is the Holm-adjusted decision p-value; when null,
 * primaryPValue(c) is used unadjusted.
 *
 *   not_enough_data           the comparison could not be made (reason given)
 *   better / worse            p < alpha, sign of the relative lift
 *   no_detectable_difference  p ≥ alpha
 */
export function verdictFor(
  c: Comparison,
  adjustedP: number | null,
  alpha: number = DEFAULT_ALPHA,
  names: VerdictNames = {},
): { verdict: Verdict; text: string } {
  const subject = names.variant !== undefined ? `Variant ${names.variant}` : 'The variant';
  const object = names.variant !== undefined ? `variant ${names.variant}` : 'the variant';
  const control = names.control ?? 'control';
  const lift = c.relative.lift;
  const p = adjustedP !== null && Number.isFinite(adjustedP) ? adjustedP : primaryPValue(c);

  if (!c.enoughData || lift === null || p === null) {
    const why = c.reason ?? 'no p-value available';
    return { verdict: 'not_enough_data', text: `Not enough data to compare ${object} with ${control} (${why})` };
  }
  const detail = `(${formatLift(lift)}, ${formatP(p)})`;
  if (p < alpha && lift !== 0) {
    const verdict: Verdict = lift > 0 ? 'better' : 'worse';
    return { verdict, text: `${subject} is ${verdict} than ${control} ${detail}` };
  }
  return {
    verdict: 'no_detectable_difference',
    text: `No detectable difference between ${object} and ${control} ${detail}`,
  };
}
