import { describe, expect, it } from 'vitest';
import { HASH_V2_VECTORS } from '../../support/hashVectors.js';
import {
  assignFromRanges,
  assignVariant,
  bucketRanges,
  chooseVariant,
  fnv1a32,
  hashV2,
} from '../../../src/modules/experiments/assignment.js';
import { mulberry32 } from '../../support/prng.js';

function randomIds(count: number, seed: number): string[] {
  const rand = mulberry32(seed);
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    ids.push(`user_${Math.floor(rand() * 2 ** 32).toString(36)}_${i}`);
  }
  return ids;
}

function expectRanges(actual: Array<[number, number]>, expected: Array<[number, number]>): void {
  expect(actual).toHaveLength(expected.length);
  actual.forEach(([lo, hi], i) => {
    expect(lo).toBeCloseTo(expected[i]![0], 12);
    expect(hi).toBeCloseTo(expected[i]![1], 12);
  });
}

describe('fnv1a32', () => {
  // FNV-1a reference vectors ("", "a", "foobar") and a worked example of hash v2 (seed + id).
  it.each([
    ['', 0x811c9dc5],
    ['a', 0xe40c292c],
    ['foobar', 0xbf9cf968],
    ['seeda', 717764279],
    ['717764279', 2503390505],
  ])('fnv1a32(%j) = %d', (s, expected) => {
    expect(fnv1a32(s)).toBe(expected);
  });

  it('hashes UTF-16 code units: a non-BMP character is two units', () => {
    // U+1F600 is the surrogate pair D83D DE00; hashing the pair as a string of two lone units
    // must give the same value.
    expect(fnv1a32('\u{1F600}')).toBe(fnv1a32('\uD83D\uDE00'));
    expect(fnv1a32('\u{1F600}')).not.toBe(fnv1a32('\uD83D'));
  });
});

describe('hashV2', () => {
  it.each(HASH_V2_VECTORS)('hashV2(%j, %j) = %d', (seed, id, expected) => {
    expect(hashV2(seed, id)).toBe(expected);
  });

  it('equals the literal two-step formula with string concatenation', () => {
    for (const id of randomIds(2000, 7)) {
      const literal = (fnv1a32(String(fnv1a32(`exp_${id}`))) % 10000) / 10000;
      expect(hashV2('exp_', id)).toBe(literal);
    }
  });

  it('stays in [0, 1) with at most 4 decimals', () => {
    const bad = randomIds(5000, 11)
      .map((id) => hashV2('seed', id))
      .filter((h) => !(h >= 0 && h < 1 && Math.round(h * 10000) / 10000 === h));
    expect(bad).toEqual([]);
  });
});

describe('bucketRanges', () => {
  // GrowthBook cases.json "getBucketRange" rows whose weights are valid and sum to 1: same result.
  it.each<[string, number[], number, Array<[number, number]>]>([
    ['normal 50/50', [0.5, 0.5], 1, [[0, 0.5], [0.5, 1]]],
    ['reduced coverage', [0.5, 0.5], 0.5, [[0, 0.25], [0.5, 0.75]]],
    ['zero coverage', [0.5, 0.5], 0, [[0, 0], [0.5, 0.5]]],
    ['4 variations', [0.25, 0.25, 0.25, 0.25], 1, [[0, 0.25], [0.25, 0.5], [0.5, 0.75], [0.75, 1]]],
    ['uneven weights', [0.4, 0.6], 1, [[0, 0.4], [0.4, 1]]],
    ['uneven weights, 3 variations', [0.2, 0.3, 0.5], 1, [[0, 0.2], [0.2, 0.5], [0.5, 1]]],
    ['uneven weights, reduced coverage, 3 variations', [0.2, 0.3, 0.5], 0.2, [[0, 0.04], [0.2, 0.26], [0.5, 0.6]]],
    ['negative coverage', [0.5, 0.5], -0.2, [[0, 0], [0.5, 0.5]]],
    ['coverage above 1', [0.5, 0.5], 1.5, [[0, 0.5], [0.5, 1]]],
  ])('GrowthBook case: %s', (_name, weights, coverage, expected) => {
    expectRanges(bucketRanges(weights, coverage), expected);
  });

  it('is bit-identical to GrowthBook when the weights sum to exactly 1', () => {
    // GrowthBook: start = cumulative; cumulative += w; [start, start + coverage * w]
    const weights = [0.1, 0.2, 0.3, 0.4];
    let cumulative = 0;
    const expected = weights.map((w): [number, number] => {
      const start = cumulative;
      cumulative += w;
      return [start, start + 0.7 * w];
    });
    expect(bucketRanges(weights, 0.7)).toEqual(expected);
  });

  // Deliberate divergences (spec: weights are normalised), instead of GrowthBook's equal-weight
  // fallback for sums outside [0.99, 1.01] and as-is use of near-1 sums.
  it.each<[string, number[], number, Array<[number, number]>]>([
    ['weights sum below 1 are normalised', [0.4, 0.1], 1, [[0, 0.8], [0.8, 1]]],
    ['weights sum above 1 are normalised', [0.7, 0.7], 1, [[0, 0.5], [0.5, 1]]],
    ['integer weights are normalised', [1, 3], 1, [[0, 0.25], [0.25, 1]]],
    ['weights sum almost 1 are normalised', [0.4, 0.5999], 1, [[0, 0.4 / 0.9999], [0.4 / 0.9999, 1]]],
    ['normalised with coverage', [2, 3, 5], 0.5, [[0, 0.1], [0.2, 0.35], [0.5, 0.75]]],
  ])('%s', (_name, weights, coverage, expected) => {
    expectRanges(bucketRanges(weights, coverage), expected);
  });

  it.each<[string, number[], number, Array<[number, number]>]>([
    ['negative weight → equal weights', [0.5, -0.5, 1], 1, [[0, 1 / 3], [1 / 3, 2 / 3], [2 / 3, 1]]],
    ['all-zero weights → equal weights', [0, 0], 1, [[0, 0.5], [0.5, 1]]],
    ['NaN weight → equal weights', [Number.NaN, 1], 1, [[0, 0.5], [0.5, 1]]],
    ['NaN coverage → nobody enters', [0.5, 0.5], Number.NaN, [[0, 0], [0.5, 0.5]]],
  ])('%s', (_name, weights, coverage, expected) => {
    expectRanges(bucketRanges(weights, coverage), expected);
  });

  it('keeps a zero-weight variant as an empty range', () => {
    expectRanges(bucketRanges([0.5, 0, 0.5], 1), [[0, 0.5], [0.5, 0.5], [0.5, 1]]);
  });

  it('returns no ranges for no variants', () => {
    expect(bucketRanges([], 1)).toEqual([]);
  });
});

describe('chooseVariant', () => {
  const even: Array<[number, number]> = [[0, 0.5], [0.5, 1]];
  const reduced: Array<[number, number]> = [[0, 0.25], [0.5, 0.75]];
  // GrowthBook cases.json "chooseVariation" table.
  it.each<[string, number, Array<[number, number]>, number]>([
    ['even range, 0.2', 0.2, even, 0],
    ['even range, 0.4', 0.4, even, 0],
    ['even range, 0.6', 0.6, even, 1],
    ['even range, 0.8', 0.8, even, 1],
    ['even range, 0', 0, even, 0],
    ['even range, 0.5', 0.5, even, 1],
    ['reduced range, 0.2', 0.2, reduced, 0],
    ['reduced range, 0.4', 0.4, reduced, -1],
    ['reduced range, 0.6', 0.6, reduced, 1],
    ['reduced range, 0.8', 0.8, reduced, -1],
    ['reduced range, 0.25', 0.25, reduced, -1],
    ['reduced range, 0.5', 0.5, reduced, 1],
    ['zero range', 0.5, [[0, 0.5], [0.5, 0.5], [0.5, 1]], 2],
  ])('%s', (_name, n, ranges, expected) => {
    expect(chooseVariant(n, ranges)).toBe(expected);
  });

  it('returns -1 with no ranges', () => {
    expect(chooseVariant(0.3, [])).toBe(-1);
  });
});

describe('assignVariant', () => {
  it('matches GrowthBook published assignments', () => {
    // "creates experiments properly": seed "feature", id "123", bucket 0.5231, weights [0.1, 0.9],
    // coverage 0.99 → variation 1.
    expect(assignVariant('feature', '123', [0.1, 0.9], 0.99)).toBe(1);
    // "Support holdout groups": seed "holdout", id "1" → bucket 0.8043 in [0, 0.99) → 0.
    expect(assignVariant('holdout', '1', [0.99, 0.01], 1)).toBe(0);
    // "Support passthrough variations": seed "experiment", id "1" → bucket 0.4413 → 0 of 50/50.
    expect(assignVariant('experiment', '1', [0.5, 0.5], 1)).toBe(0);
  });

  it.each<[string, string, number[], number, number | null]>([
    // hashV2("seed","a") = 0.0505, hashV2("seed","b") = 0.2696 (published)
    ['coverage 1, first half', 'a', [0.5, 0.5], 1, 0],
    ['coverage 0 assigns nobody', 'a', [0.5, 0.5], 0, null],
    ['coverage 0.5: 0.0505 < 0.25 → variant 0', 'a', [0.5, 0.5], 0.5, 0],
    ['coverage 0.5: 0.2696 ≥ 0.25 → outside', 'b', [0.5, 0.5], 0.5, null],
    ['coverage 0.1: 0.0505 < 0.05? no → outside', 'a', [0.5, 0.5], 0.1, null],
    ['uneven weights: 0.2696 in [0.2, 0.5) → 1', 'b', [0.2, 0.3, 0.5], 1, 1],
    ['single variant takes everyone', 'b', [1], 1, 0],
  ])('%s', (_name, id, weights, coverage, expected) => {
    expect(assignVariant('seed', id, weights, coverage)).toBe(expected);
  });

  it('never assigns an empty user id (GrowthBook skips an empty hash attribute)', () => {
    expect(assignVariant('seed', '', [0.5, 0.5], 1)).toBeNull();
  });

  it('returns null when there are no variants', () => {
    expect(assignVariant('seed', 'a', [], 1)).toBeNull();
  });

  it('is deterministic and agrees with assignFromRanges on cached ranges', () => {
    const ranges = bucketRanges([0.2, 0.3, 0.5], 0.8);
    for (const id of randomIds(1000, 3)) {
      const v = assignVariant('exp_x', id, [0.2, 0.3, 0.5], 0.8);
      expect(assignVariant('exp_x', id, [0.2, 0.3, 0.5], 0.8)).toBe(v);
      expect(assignFromRanges('exp_x', id, ranges)).toBe(v);
    }
  });

  it('lowering coverage only removes users, never moves them to another variant', () => {
    for (const id of randomIds(5000, 5)) {
      const partial = assignVariant('exp_cov', id, [0.2, 0.3, 0.5], 0.4);
      if (partial !== null) expect(assignVariant('exp_cov', id, [0.2, 0.3, 0.5], 1)).toBe(partial);
    }
  });
});

describe('assignment distribution (100 000 seeded random users)', () => {
  const ids = randomIds(100_000, 20240611);

  function shares(weights: number[], coverage: number, seed: string): { perVariant: number[]; none: number } {
    const ranges = bucketRanges(weights, coverage);
    const counts = new Array<number>(weights.length).fill(0);
    let none = 0;
    for (const id of ids) {
      const v = assignFromRanges(seed, id, ranges);
      if (v === null) none++;
      else counts[v]!++;
    }
    return { perVariant: counts.map((c) => c / ids.length), none: none / ids.length };
  }

  it.each<[number[]]>([[[0.5, 0.5]], [[0.2, 0.3, 0.5]]])('splits within ±1%% of weights %j', (weights) => {
    const { perVariant, none } = shares(weights, 1, 'exp_split');
    expect(none).toBe(0);
    perVariant.forEach((share, i) => {
      expect(Math.abs(share - weights[i]!)).toBeLessThan(0.01);
    });
  });

  it('coverage 0.4 assigns 40% ± 1%, split by weight inside', () => {
    const { perVariant, none } = shares([0.5, 0.5], 0.4, 'exp_coverage');
    expect(Math.abs(1 - none - 0.4)).toBeLessThan(0.01);
    for (const share of perVariant) expect(Math.abs(share - 0.2)).toBeLessThan(0.01);
  });

  it('different seeds give independent assignments', () => {
    const ranges = bucketRanges([0.5, 0.5], 1);
    let same = 0;
    for (const id of ids) {
      if (assignFromRanges('exp_a', id, ranges) === assignFromRanges('exp_b', id, ranges)) same++;
    }
    expect(Math.abs(same / ids.length - 0.5)).toBeLessThan(0.01);
  });
});
