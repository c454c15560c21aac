import { describe, expect, it } from 'vitest';
import { samplePositions } from '../../../src/modules/datasets/sample.js';

describe('samplePositions', () => {
  it.each<[string, number, number]>([
    ['k of n', 100, 10],
    ['all but one', 20, 19],
    ['one', 5, 1],
  ])('%s: k distinct positions below n, in order, the same for the same seed', (_name, n, k) => {
    const a = samplePositions(n, k, 42);
    expect(a).toHaveLength(k);
    expect(new Set(a).size).toBe(k);
    expect(a.every((p) => p >= 0 && p < n)).toBe(true);
    expect([...a].sort((x, y) => x - y)).toEqual(a);
    expect(samplePositions(n, k, 42)).toEqual(a);
  });

  it('k at or above n takes every position', () => {
    expect(samplePositions(3, 3, 1)).toEqual([0, 1, 2]);
    expect(samplePositions(3, 10, 1)).toEqual([0, 1, 2]);
  });

  it('another seed, another sample; every position about equally likely', () => {
    expect(samplePositions(1000, 10, 1)).not.toEqual(samplePositions(1000, 10, 2));
    // 20 000 draws of 1 among 10: each position near 2000 (binomial sd ≈ 42; 5 sd is 212).
    const counts = new Array<number>(10).fill(0);
    for (let seed = 0; seed < 20_000; seed++) counts[samplePositions(10, 1, seed)[0]!]! += 1;
    for (const c of counts) expect(Math.abs(c - 2000)).toBeLessThan(212);
  });
});
