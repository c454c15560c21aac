import { describe, expect, it } from 'vitest';
import { percentileCap } from '../../../src/stats/index.js';
import { mulberry32 } from '../../support/prng.js';

const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('percentileCap (nearest rank r = max(1, ⌈p·N⌉) of values plus zeros)', () => {
  // By hand: values 5, −3, 2, 8, −1 plus 3 zeros, N = 8, sorted −3, −1, 0, 0, 0, 2, 5, 8.
  const mixed = [5, -3, 2, 8, -1];
  it.each<[string, number[], number, number, number]>([
    ['p 0.1: ⌈0.8⌉ = rank 1', mixed, 3, 0.1, -3],
    ['p 0.25: rank 2', mixed, 3, 0.25, -1],
    ['p 0.3: ⌈2.4⌉ = rank 3 is a zero', mixed, 3, 0.3, 0],
    ['p 0.625: rank 5, last zero', mixed, 3, 0.625, 0],
    ['p 0.7: ⌈5.6⌉ = rank 6', mixed, 3, 0.7, 2],
    ['p 0.875: rank 7', mixed, 3, 0.875, 5],
    ['p 0.9: ⌈7.2⌉ = rank 8', mixed, 3, 0.9, 8],
    ['p 1: the maximum', mixed, 3, 1, 8],
    ['no zeros, p 0.7 of 5: ⌈3.5⌉ = rank 4', mixed, 0, 0.7, 5],
    // 1, 1, 2, 3, 3, 4, 5, 5, 5, 6, 9: ⌈5.5⌉ = rank 6.
    ['duplicates, p 0.5 of 11', [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5], 0, 0.5, 4],
    ['0.5 of 4 is rank 2', [40, 10, 30, 20], 0, 0.5, 20],
    ['0.5 of 4 with zeros: 7, 0, 0, 0 → rank 2', [7], 3, 0.5, 0],
    ['0.99 of 100 is rank 99', range(1, 100), 0, 0.99, 99],
    ['0.95 of 20 is rank 19', range(1, 20), 0, 0.95, 19],
    // 0.07·100 = 7.000000000000001 and 0.14·100 = 14.000000000000002 in floating point.
    ['0.07 of 100 is rank 7, not 8', range(1, 100), 0, 0.07, 7],
    ['0.14 of 100 is rank 14, not 15', range(1, 100), 0, 0.14, 14],
    ['0.99 of 80 values + 20 zeros: rank 99 = 79', range(1, 80), 20, 0.99, 79],
    ['tiny p still takes rank 1', [4, 2, 9], 0, 1e-12, 2],
    ['only zeros', [], 5, 0.9, 0],
    ['all negative, p 1 with zeros', [-5, -2], 2, 1, 0],
    ['all negative, no zeros', [-5, -2, -9], 0, 0.5, -5],
    ['a single value', [3.5], 0, 0.01, 3.5],
    ['infinite values are ordered', [1, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY], 0, 0.5, 1],
  ])('%s', (_name, values, zeros, p, expected) => {
    expect(percentileCap(values, zeros, p)).toBe(expected);
  });

  it('null when there is nobody (N = 0)', () => {
    expect(percentileCap([], 0, 0.99)).toBeNull();
    expect(percentileCap(new Float64Array(0), 0, 1)).toBeNull();
  });

  it('null when a value is NaN (no order)', () => {
    expect(percentileCap([1, Number.NaN, 3], 0, 0.5)).toBeNull();
  });

  it('returns 0, not −0', () => {
    expect(Object.is(percentileCap([-0, 1], 0, 0.5), 0)).toBe(true);
  });

  it.each<[string, number, number]>([
    ['p 0', 0, 0],
    ['negative p', -0.5, 0],
    ['p above 1', 1.01, 0],
    ['NaN p', Number.NaN, 0],
    ['negative zeros', 0.5, -1],
    ['fractional zeros', 0.5, 1.5],
  ])('throws RangeError for %s', (_name, p, zeros) => {
    expect(() => percentileCap([1, 2, 3], zeros, p)).toThrow(RangeError);
  });

  it('does not mutate the input (array or typed array)', () => {
    const values = [5, -3, 2, 8, -1];
    const typed = Float64Array.from(values);
    percentileCap(values, 3, 0.5);
    percentileCap(typed, 3, 0.5);
    expect(values).toEqual([5, -3, 2, 8, -1]);
    expect(Array.from(typed)).toEqual([5, -3, 2, 8, -1]);
  });

  it('100 000 values with zeros agree with a brute-force sort', () => {
    const rand = mulberry32(7);
    const values = Float64Array.from({ length: 100_000 }, () => (rand() - 0.2) * 1000);
    const zeros = 30_000;
    const all = [...values, ...new Array<number>(zeros).fill(0)].sort((a, b) => a - b);
    for (const p of [0.001, 0.1, 0.2, 0.25, 0.5, 0.95, 0.99, 0.999, 1]) {
      const rank = Math.max(1, Math.ceil(Number((p * all.length).toFixed(9))));
      expect(percentileCap(values, zeros, p)).toBe(all[rank - 1]! + 0);
    }
  });
});
