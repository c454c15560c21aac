import { describe, expect, it } from 'vitest';
import { compareToControl, type CupedSuff, cupedAdjust, type Suff } from '../../../src/stats/index.js';
import { mulberry32 } from '../../support/prng.js';
import { close, expectAllFinite } from './helpers.js';

/** Per-user (x, y) of one variant; x = pre-exposure value, y = post-exposure value. */
interface Users {
  x: number[];
  y: number[];
}

function suffOf({ x, y }: Users): CupedSuff {
  const s: CupedSuff = { n: x.length, sumY: 0, sumY2: 0, sumX: 0, sumX2: 0, sumXY: 0 };
  for (const [i, xi] of x.entries()) {
    const yi = y[i]!;
    s.sumY += yi;
    s.sumY2 += yi * yi;
    s.sumX += xi;
    s.sumX2 += xi * xi;
    s.sumXY += xi * yi;
  }
  return s;
}

const plainSuff = (s: CupedSuff): Suff => ({ n: s.n, sum: s.sumY, sumSquares: s.sumY2 });
const mean = (a: number[]): number => a.reduce((t, v) => t + v, 0) / a.length;
/** Σ (a − ā)(b − b̄), two-pass. */
const coSum = (a: number[], b: number[]): number => {
  const ma = mean(a);
  const mb = mean(b);
  return a.reduce((t, v, i) => t + (v - ma) * (b[i]! - mb), 0);
};

/** Brute force from the raw arrays: θ, then every user's y − θ(x − x̄), then their means and variances. */
function bruteForce(variants: Users[]): { theta: number; means: number[]; variances: number[]; reduction: number } {
  const theta = variants.reduce((t, v) => t + coSum(v.x, v.y), 0) / variants.reduce((t, v) => t + coSum(v.x, v.x), 0);
  const xBar = mean(variants.flatMap((v) => v.x));
  const adjusted = variants.map((v) => v.y.map((yi, i) => yi - theta * (v.x[i]! - xBar)));
  const residual = adjusted.reduce((t, a) => t + coSum(a, a), 0);
  const total = variants.reduce((t, v) => t + coSum(v.y, v.y), 0);
  return {
    theta,
    means: adjusted.map(mean),
    variances: adjusted.map((a) => coSum(a, a) / (a.length - 1)),
    reduction: 1 - residual / total,
  };
}

/** Mean and n−1 sample variance of an adjusted Suff, as compareToControl('mean', …) reads it. */
const meanVar = (s: Suff): [number, number] => [s.sum / s.n, (s.sumSquares - (s.sum * s.sum) / s.n) / (s.n - 1)];

/** Standard normal draw (Box–Muller) from the seeded PRNG. */
function gaussian(rand: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
}

describe('cupedAdjust', () => {
  // By hand (exact fractions), control x = 1,2,3,4, y = 2,3,5,6; treatment x = 0,2,2,4,7, y = 1,4,3,6,9:
  //   control:   Sxx = 30 − 10²/4 = 5,   Syy = 74 − 16²/4 = 10,        Sxy = 47 − 10·16/4 = 7
  //   treatment: Sxx = 73 − 15²/5 = 28,  Syy = 143 − 23²/5 = 186/5,    Sxy = 101 − 15·23/5 = 32
  //   θ = (7 + 32)/(5 + 28) = 13/11;  x̄ = 25/9 (all 9 users)
  //   means: 4 − (13/11)(5/2 − 25/9) = 857/198;  23/5 − (13/11)(3 − 25/9) = 2147/495
  //   variances: (10 − 2θ·7 + θ²·5)/3 = 53/363;  (186/5 − 2θ·32 + θ²·28)/4 = 203/1210
  //   reduction = 1 − (3·53/363 + 4·203/1210)/(10 + 186/5) = 2535/2596 (= Sxy²/(Sxx·Syy) = 39²/(33·236/5))
  it.each<[string, Users[], number, number[], number[], number]>([
    [
      'hand-computed 4 + 5 users',
      [
        { x: [1, 2, 3, 4], y: [2, 3, 5, 6] },
        { x: [0, 2, 2, 4, 7], y: [1, 4, 3, 6, 9] },
      ],
      13 / 11,
      [857 / 198, 2147 / 495],
      [53 / 363, 203 / 1210],
      2535 / 2596,
    ],
  ])('%s', (_name, users, theta, means, variances, reduction) => {
    const brute = bruteForce(users);
    close(brute.theta, theta, 1e-12);
    for (const [i, m] of means.entries()) close(brute.means[i], m, 1e-12);
    for (const [i, v] of variances.entries()) close(brute.variances[i], v, 1e-12);
    close(brute.reduction, reduction, 1e-12);

    const r = cupedAdjust(users.map(suffOf));
    close(r.theta, theta, 1e-12);
    close(r.varianceReduction, reduction, 1e-12);
    expect(r.adjusted).toHaveLength(users.length);
    for (const [i, s] of r.adjusted!.entries()) {
      expect(s.n).toBe(users[i]!.x.length);
      const [m, v] = meanVar(s);
      close(m, means[i]!, 1e-12);
      close(v, variances[i]!, 1e-12);
    }
  });

  // ~20 000 users per variant from the seeded PRNG; treatment y is shifted by +0.3.
  it.each<[string, number, (x: number, rand: () => number) => number, number]>([
    // y independent of x: nothing to remove, θ ≈ 0.
    ['covariate independent of the outcome', 1, (_x, rand) => 5 + 2 * gaussian(rand), 0],
    // y = x + noise with var(x) = 100/12 (uniform on [0, 10)) and var(noise) = 1:
    // reduction → 1 − var(noise)/var(y) = 1 − 1/(100/12 + 1) = 0.8928571428571429.
    ['y = x + noise', 2, (x, rand) => x + gaussian(rand), 1 - 1 / (100 / 12 + 1)],
  ])('%s', (_name, seed, outcome, expectedReduction) => {
    const rand = mulberry32(seed);
    const users: Users[] = [0, 0.3].map((effect) => {
      const x = Array.from({ length: 20_000 }, () => 10 * rand());
      return { x, y: x.map((xi) => outcome(xi, rand) + effect) };
    });
    const suffs = users.map(suffOf);
    const r = cupedAdjust(suffs);
    close(r.varianceReduction, expectedReduction, 0.01);
    expectAllFinite(r);

    const plain = compareToControl('mean', plainSuff(suffs[0]!), plainSuff(suffs[1]!));
    const adjusted = compareToControl('mean', r.adjusted![0]!, r.adjusted![1]!);
    close(adjusted.relative.lift, plain.relative.lift!, 0.01);
    if (expectedReduction > 0.5) {
      close(r.theta, 1, 0.01);
      // The same lift, measured far more precisely: SE shrinks by about √(1 − reduction).
      close(adjusted.absolute.se! / plain.absolute.se!, Math.sqrt(1 - expectedReduction), 0.01);
    }

    // The Suffs agree with the brute-force per-user adjustment.
    const brute = bruteForce(users);
    close(r.theta, brute.theta, 1e-9);
    close(r.varianceReduction, brute.reduction, 1e-9);
    for (const [i, s] of r.adjusted!.entries()) {
      const [m, v] = meanVar(s);
      close(m, brute.means[i]!, 1e-9);
      close(v, brute.variances[i]!, 1e-9);
    }
  });

  it.each<[string, CupedSuff[]]>([
    ['constant covariate', [suffOf({ x: [3, 3, 3], y: [1, 2, 4] }), suffOf({ x: [3, 3], y: [5, 1] })]],
    ['no pre-exposure data (x all 0)', [suffOf({ x: [0, 0, 0], y: [1, 2, 4] }), suffOf({ x: [0, 0], y: [5, 1] })]],
    ['constant 0.1 (rounding noise only)', [suffOf({ x: [0.1, 0.1, 0.1], y: [1, 2, 4] }), suffOf({ x: [0.1, 0.1, 0.1], y: [5, 1, 2] })]],
    ['x varies only between variants', [suffOf({ x: [1, 1], y: [1, 2] }), suffOf({ x: [2, 2], y: [5, 1] })]],
    ['no variants', []],
    ['empty variants', [suffOf({ x: [], y: [] }), suffOf({ x: [], y: [] })]],
    ['one user per variant', [suffOf({ x: [1], y: [2] }), suffOf({ x: [3], y: [5] })]],
    ['non-finite sum', [{ n: 3, sumY: Number.NaN, sumY2: 1, sumX: 1, sumX2: 1, sumXY: 1 }, suffOf({ x: [1, 2], y: [1, 2] })]],
    ['Σx² < (Σx)²/n', [{ n: 4, sumY: 10, sumY2: 30, sumX: 10, sumX2: 20, sumXY: 25 }, suffOf({ x: [1, 2], y: [1, 2] })]],
    ['n = 0 with non-zero sums', [{ n: 0, sumY: 1, sumY2: 1, sumX: 0, sumX2: 0, sumXY: 0 }, suffOf({ x: [1, 2], y: [1, 2] })]],
  ])('everything null for %s', (_name, variants) => {
    expect(cupedAdjust(variants)).toEqual({ theta: null, varianceReduction: null, adjusted: null });
  });

  it('variants with n = 0 or 1 contribute nothing to θ and get finite Suffs', () => {
    const main = [
      { x: [1, 2, 3, 4], y: [2, 3, 5, 6] },
      { x: [0, 2, 2, 4, 7], y: [1, 4, 3, 6, 9] },
    ];
    const r = cupedAdjust([...main.map(suffOf), suffOf({ x: [], y: [] }), suffOf({ x: [5], y: [7] })]);
    expectAllFinite(r);
    close(r.theta, 13 / 11, 1e-12); // as without the small variants
    close(r.varianceReduction, 2535 / 2596, 1e-12);
    expect(r.adjusted![2]).toEqual({ n: 0, sum: 0, sumSquares: 0 });
    // x̄ now covers 10 users: (10 + 15 + 5)/10 = 3, so the single user's y becomes 7 − θ(5 − 3).
    const single = r.adjusted![3]!;
    expect(single.n).toBe(1);
    close(single.sum, 7 - (13 / 11) * 2, 1e-12);
    close(single.sumSquares, single.sum ** 2, 1e-12);
  });

  it('no variation in y: θ is 0 and the reduction undefined', () => {
    const r = cupedAdjust([suffOf({ x: [1, 2, 3], y: [4, 4, 4] }), suffOf({ x: [2, 5], y: [4, 4] })]);
    expect(r.theta).toBe(0);
    expect(r.varianceReduction).toBeNull();
    expect(r.adjusted!.map((s) => s.sum / s.n)).toEqual([4, 4]);
  });

  it('does not touch the input', () => {
    const input = [suffOf({ x: [1, 2, 3, 4], y: [2, 3, 5, 6] }), suffOf({ x: [0, 2, 2, 4, 7], y: [1, 4, 3, 6, 9] })];
    const copy = structuredClone(input);
    cupedAdjust(input);
    expect(input).toEqual(copy);
  });
});
