import { describe, expect, it } from 'vitest';
import { TokenBuckets } from '../../../src/lib/tokenBuckets.js';

describe('TokenBuckets', () => {
  it('allows a burst of a minute’s allowance, then one token every 60 000 / n ms', () => {
    const b = new TokenBuckets(10);
    // 6 a minute: 6 at once, the 7th waits a full 10 s, and a token is back 10 s later.
    expect([0, 0, 0, 0, 0, 0].map(() => b.take('k', 6, 0))).toEqual([0, 0, 0, 0, 0, 0]);
    expect(b.take('k', 6, 0)).toBe(10_000);
    expect(b.take('k', 6, 4_000)).toBe(6_000);
    expect(b.take('k', 6, 10_000)).toBe(0);
    expect(b.take('k', 6, 10_000)).toBe(10_000);
  });

  it.each([
    // [perMinute, taken at t=0, asked at, expected wait ms]
    [60, 60, 0, 1000],
    [60, 60, 500, 500],
    [60, 60, 1000, 0],
    [1, 1, 0, 60_000],
    [120_000, 120_000, 0, 1],
  ])('%d/min, %d taken, at %d ms → %d ms', (perMinute, taken, at, wait) => {
    const b = new TokenBuckets(10);
    for (let i = 0; i < taken; i++) expect(b.take('k', perMinute, 0)).toBe(0);
    expect(b.take('k', perMinute, at)).toBe(wait);
  });

  it('peeks without taking', () => {
    const b = new TokenBuckets(10);
    expect(b.wait('k', 2, 0)).toBe(0);
    b.take('k', 2, 0);
    expect(b.wait('k', 2, 0)).toBe(0);
    b.take('k', 2, 0);
    expect(b.wait('k', 2, 0)).toBe(30_000);
    expect(b.wait('k', 2, 0)).toBe(30_000);
  });

  it('keeps names apart, and never more than its bound of them', () => {
    const b = new TokenBuckets(100);
    for (let i = 0; i < 10_000; i++) b.take(`addr-${i}`, 5, i);
    expect(b.size).toBeLessThanOrEqual(100);
    expect(b.take('fresh', 1, 10_000)).toBe(0);
    expect(b.take('fresh', 1, 10_000)).toBe(60_000);
  });

  it('drops refilled buckets before busy ones when full', () => {
    const b = new TokenBuckets(3);
    b.take('idle', 60, 0);
    b.take('busy-1', 60, 0);
    for (let i = 0; i < 60; i++) b.take('busy-2', 60, 0);
    // Two seconds later `idle` has refilled (1 token/s, 1 taken) while busy-2 is still empty.
    b.take('new', 60, 2_000);
    expect(b.wait('busy-2', 60, 2_000)).toBe(0); // refilled 2 tokens, still tracked…
    expect(b.take('busy-2', 60, 2_000)).toBe(0);
    expect(b.take('busy-2', 60, 2_000)).toBe(0);
    expect(b.take('busy-2', 60, 2_000)).toBe(1000); // …so its debt was not forgotten.
  });
});
