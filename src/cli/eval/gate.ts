/**
 * The CI gate of `promptline eval run --fail-if-worse`, pure (docs/evaluations.md, "The gate"): it
 * passes only when every gating evaluator shows the candidate not worse than the baseline by more
 * than the tolerance. A figure it cannot read, or too few items to show it, fails the gate, and the
 * message says about how many items would show it.
 */
import type { EvaluationView } from '../../modules/evaluations/evaluations.schemas.js';

type EvaluatorResult = EvaluationView['evaluators'][number];

/** The default tolerance: 5 points of pass rate, or 5% of the 1–5 scale's range (0.2 points). */
export const DEFAULT_TOLERANCE = 0.05;
/** One side of the comparison's 95% interval. */
const ONE_SIDED = 0.025;

export interface GateResult {
  evaluator: string;
  pass: boolean;
  /** Why, in one line. */
  reason: string;
}

const range = (e: EvaluatorResult) => (e.scale === 'pass_fail' ? 1 : 4);
const fmt = (x: number, e: EvaluatorResult) => (e.scale === 'pass_fail' ? `${(x * 100).toFixed(1)} pts` : x.toFixed(3));

/**
 * Items needed, about, for an interval with every item differing by the same amount: with no item
 * worse so far, the share of items that may be worse by the whole scale is at most 1 − 0.025^(1/n)
 * (the exact binomial bound for none of n), so the worse bound is d − range·(1 − 0.025^(1/n)).
 */
function itemsForConstant(d: number, limit: number, r: number): number | null {
  const room = (d + limit) / r;
  if (!(room > 0)) return null;
  if (room >= 1) return 1;
  return Math.ceil(Math.log(ONE_SIDED) / Math.log(1 - room));
}

/** One gating evaluator judged: candidate − baseline (higher is better) must be shown ≥ −tolerance × the scale's range. */
export function gateEvaluator(e: EvaluatorResult, tolerance: number): GateResult {
  const c = e.comparison;
  const r = range(e);
  const limit = tolerance * r;
  const d = c.difference;
  const shown = `not worse by more than ${fmt(limit, e)}`;
  const fail = (reason: string): GateResult => ({ evaluator: e.evaluator_id, pass: false, reason });
  if (d === null || c.n === 0) return fail(`no item was scored by both versions, so nothing shows the candidate is ${shown}`);
  if (d < -limit) return fail(`the candidate measured ${fmt(-d, e)} worse than the baseline, more than the tolerance of ${fmt(limit, e)}`);
  if (c.ci_low === null || c.ci_high === null || c.ci_low === c.ci_high) {
    // No spread (no interval, or one of zero width): every item differed by the same amount (often 0).
    // A t interval says nothing there; only an exact bound does.
    const worst = d - r * (1 - ONE_SIDED ** (1 / c.n));
    if (worst >= -limit) return { evaluator: e.evaluator_id, pass: true, reason: `every one of ${c.n} items scored the same difference: ${shown}` };
    const needed = itemsForConstant(d, limit, r);
    return fail(`${c.n} items cannot show the candidate is ${shown} (the difference could be ${fmt(-worst, e)} worse); about ${needed} items would`);
  }
  if (!Number.isFinite(c.ci_low) || !Number.isFinite(c.ci_high)) return fail('the interval of the difference is not a finite number');
  if (c.ci_low >= -limit) return { evaluator: e.evaluator_id, pass: true, reason: `${shown} (95% interval from ${fmt(c.ci_low, e)})` };
  const half = (c.ci_high - c.ci_low) / 2;
  const needed = Math.max(c.n + 1, Math.ceil(c.n * (half / (d + limit)) ** 2));
  return fail(
    `${c.n} items cannot show the candidate is ${shown}: the difference may be as low as ${fmt(c.ci_low, e)} (95% interval); about ${needed} items would at this spread`,
  );
}

/** Every gating evaluator (all when none is named) judged. */
export function gate(e: EvaluationView, gating: readonly string[], tolerance: number): GateResult[] {
  return e.evaluators.filter((x) => gating.length === 0 || gating.includes(x.evaluator_id)).map((x) => gateEvaluator(x, tolerance));
}
