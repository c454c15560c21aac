import { describe, expect, it } from 'vitest';
import { failingArms } from '../../../src/modules/experiments/banditGuardrails.js';

const rate = (n: number, k: number) => ({ n, sum: k, sumSquares: k });

describe('failingArms (always-valid test against control, split over guardrails × arms)', () => {
  const complaints = (b: [number, number], c: [number, number]) => ({
    control: 'a',
    guardrails: [{ name: 'complaint:success_rate', direction: 'lower' as const, variants: { a: rate(2000, 100), b: rate(...b), c: rate(...c) } }],
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
    const facts = { control: 'a', guardrails: [{ name: 'kept', direction: 'higher' as const, variants: { a: rate(2000, 1000), b: rate(2000, 400) } }] };
    expect(failingArms(facts, ['a', 'b'])).toEqual([{ variant: 'b', guardrail: 'kept' }]);
    expect(failingArms({ control: 'a', guardrails: [] }, ['a', 'b'])).toEqual([]);
  });
});
