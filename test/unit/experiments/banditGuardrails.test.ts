import { describe, expect, it } from 'vitest';
import { failingArms, guardrailChecks } from '../../../src/modules/experiments/banditGuardrails.js';

const rate = (n: number, k: number) => ({ n, sum: k, sumSquares: k });

describe('failingArms (always-valid test against control, split over guardrails × arms)', () => {
  const complaints = (b: [number, number], c: [number, number]) => ({
    control: 'a',
    guardrails: [{ name: 'complaint:success_rate', kind: 'success_rate', direction: 'lower' as const, variants: { a: rate(2000, 100), b: rate(...b), c: rate(...c) } }],
  });
  it.each<[string, [number, number], [number, number], string[]]>([
    ['a clearly worse arm is dropped, the others kept', [2000, 600], [2000, 110], ['b']],
    ['a small difference is no failure', [2000, 120], [2000, 90], []],
    ['too few users say nothing', [1, 1], [2000, 100], []],
    ['both worse: both dropped', [2000, 600], [2000, 500], ['b', 'c']],
  ])('%s', (_name, b, c, dropped) => {
    expect(failingArms(complaints(b, c), ['a', 'b', 'c']).map((f) => f.variant)).toEqual(dropped);
  });
  it('higher is better: a fall is worse; control is never tested', () => {
    const facts = { control: 'a', guardrails: [{ name: 'kept', kind: 'success_rate', direction: 'higher' as const, variants: { a: rate(2000, 1000), b: rate(2000, 400) } }] };
    expect(failingArms(facts, ['a', 'b'])).toEqual([{ variant: 'b', guardrail: 'kept' }]);
    expect(failingArms({ control: 'a', guardrails: [] }, ['a', 'b'])).toEqual([]);
  });

  it('a rate at 0 or 1 in every user is still tested (the rate sequence is defined there)', () => {
    const facts = { control: 'a', guardrails: [{ name: 'errors', kind: 'error_rate', direction: 'lower' as const, variants: { a: rate(60, 0), b: rate(60, 60) } }] };
    expect(failingArms(facts, ['a', 'b'])).toEqual([{ variant: 'b', guardrail: 'errors' }]);
  });
  it('a guardrail without a figure (no users, sums that are not numbers, a mean with too few users) marks the arm unknown, never safe', () => {
    const mean = (n: number, sum: number) => ({ n, sum, sumSquares: sum * sum });
    const facts = {
      control: 'a',
      guardrails: [
        { name: 'latency', kind: 'latency_ms', direction: 'lower' as const, variants: { a: mean(5, 500), b: mean(5, 500), c: mean(100, 10_000) } },
        { name: 'errors', kind: 'error_rate', direction: 'lower' as const, variants: { a: rate(100, 5), b: rate(100, 5), c: { n: 100, sum: Number.NaN, sumSquares: Number.NaN } } },
      ],
    };
    expect(guardrailChecks(facts, ['a', 'b', 'c']).unknown).toEqual([
      { variant: 'b', guardrail: 'latency' },
      { variant: 'c', guardrail: 'latency' },
    ]);
  });
});
