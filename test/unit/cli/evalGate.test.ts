import { describe, expect, it } from 'vitest';
import { DEFAULT_TOLERANCE, gate, gateEvaluator } from '../../../src/cli/eval/gate.js';
import type { EvaluationView } from '../../../src/modules/evaluations/evaluations.schemas.js';

type Result = EvaluationView['evaluators'][number];
const side = (mean: number | null) => ({ mean, pass_rate: mean, errors: 0, judge_errors: 0 });
function result(over: Partial<Result['comparison']>, scale: Result['scale'] = 'pass_fail', id = 'exact'): Result {
  return {
    evaluator_id: id,
    version: 1,
    kind: 'exact_match',
    scale,
    comparison: {
      n: 100,
      candidate: side(0.9),
      baseline: side(0.9),
      difference: 0,
      ci_low: -0.03,
      ci_high: 0.03,
      level: 0.95,
      test: 'mcnemar_exact',
      p_value: 1,
      significant: false,
      verdict: 'no_difference',
      wins: 3,
      ties: 94,
      losses: 3,
      differing_items: [],
      ...over,
    },
  };
}

describe('the eval gate: passes only when the candidate is shown not worse by more than the tolerance', () => {
  it("fails the docs' 2-item example (candidate 0%, baseline 100%, 'no significant difference') with the reason", () => {
    const r = gateEvaluator(result({ n: 2, candidate: side(0), baseline: side(1), difference: -1, ci_low: null, ci_high: null, p_value: 0.5 }), DEFAULT_TOLERANCE);
    expect(r).toEqual({ evaluator: 'exact', pass: false, reason: 'the candidate measured 100.0 pts worse than the baseline, more than the tolerance of 5.0 pts' });
  });

  it('fails with too few items, saying about how many would show it', () => {
    // 12 items, every one a tie: the exact bound for none of 12 worse is 1 − 0.025^(1/12) = 26.5 points.
    const ties = gateEvaluator(result({ n: 12, difference: 0, ci_low: null, ci_high: null }), DEFAULT_TOLERANCE);
    expect(ties.pass).toBe(false);
    expect(ties.reason).toBe('12 items cannot show the candidate is not worse by more than 5.0 pts (the difference could be 26.5 pts worse); about 72 items would');
    // ln 0.025 / ln 0.95 = 71.9: 72 ties pass.
    expect(gateEvaluator(result({ n: 72, difference: 0, ci_low: null, ci_high: null }), DEFAULT_TOLERANCE).pass).toBe(true);
    // The paired t-test gives a zero-width interval [0, 0] for ties only: no spread, read the same way.
    expect(gateEvaluator(result({ n: 12, difference: 0, ci_low: 0, ci_high: 0 }), DEFAULT_TOLERANCE).reason).toBe(ties.reason);
    const wide = gateEvaluator(result({ n: 40, difference: 0, ci_low: -0.1, ci_high: 0.1 }), DEFAULT_TOLERANCE);
    expect(wide.pass).toBe(false);
    expect(wide.reason).toMatch(/^40 items cannot show .* as low as -10\.0 pts .*; about 160 items would at this spread$/);
  });

  it('passes within the tolerance, which is settable; a 1–5 scale reads it as a share of its range', () => {
    expect(gateEvaluator(result({}), DEFAULT_TOLERANCE).pass).toBe(true);
    expect(gateEvaluator(result({ n: 40, difference: 0, ci_low: -0.1, ci_high: 0.1 }), 0.1).pass).toBe(true);
    const scores = result({ difference: -0.1, ci_low: -0.19, ci_high: -0.01 }, '1-5');
    expect(gateEvaluator(scores, DEFAULT_TOLERANCE).pass).toBe(true); // 0.05 × 4 = 0.2 points
    expect(gateEvaluator(scores, 0.04).pass).toBe(false);
  });

  it('fails on a figure it cannot read: nothing scored by both versions, an interval that is not a number', () => {
    expect(gateEvaluator(result({ n: 0, difference: null, ci_low: null, ci_high: null }), DEFAULT_TOLERANCE).pass).toBe(false);
    expect(gateEvaluator(result({ ci_low: Number.NaN }), DEFAULT_TOLERANCE).pass).toBe(false);
  });

  it('judges only the gating evaluators, all when none is named', () => {
    const e = { evaluators: [result({}, 'pass_fail', 'a'), result({ n: 3, difference: 0, ci_low: null, ci_high: null }, 'pass_fail', 'b')] } as EvaluationView;
    expect(gate(e, [], DEFAULT_TOLERANCE).map((r) => [r.evaluator, r.pass])).toEqual([
      ['a', true],
      ['b', false],
    ]);
    expect(gate(e, ['a'], DEFAULT_TOLERANCE).map((r) => r.pass)).toEqual([true]);
  });
});
