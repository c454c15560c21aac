import { describe, expect, it } from 'vitest';
import { chooseVariant, hashV2 } from '../src/assign.js';
import { HASH_V2_VECTORS } from '../../../test/support/hashVectors.js';

describe("the client's hash: the server's (GrowthBook's hash v2)", () => {
  it.each(HASH_V2_VECTORS)('hashV2(%j, %j) = %d', (seed, id, expected) => {
    expect(hashV2(seed, id)).toBe(expected);
  });
});

describe('chooseVariant: the first range [lo, hi) that holds the hash', () => {
  // hashV2('seed', 'a') = 0.0505, hashV2('seed', 'b') = 0.2696.
  const halves = [
    { lo: 0, hi: 0.5 },
    { lo: 0.5, hi: 1 },
  ];
  it.each<[string, string, Array<{ lo: number; hi: number }>, number]>([
    ['inside the first range', 'a', halves, 0],
    [
      'outside coverage (0.1 of each half)',
      'b',
      [
        { lo: 0, hi: 0.05 },
        { lo: 0.5, hi: 0.55 },
      ],
      -1,
    ],
    [
      'exactly at a range end is outside it',
      'a',
      [
        { lo: 0, hi: 0.0505 },
        { lo: 0.0505, hi: 1 },
      ],
      1,
    ],
    ['an empty id is never assigned', '', halves, -1],
  ])('%s', (_, id, ranges, expected) => {
    expect(chooseVariant('seed', id, ranges)).toBe(expected);
  });
});
