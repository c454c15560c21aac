import { describe, expect, it } from 'vitest';
import {
  armPosterior,
  armToShip,
  leaderAboveThreshold,
  normalCdfForTests,
  periodSampleRatioMismatch,
  periodWeightedEstimates,
  probabilityBest,
  thompsonWeights,
  type ArmPosterior,
} from './banditTestKit.js';
import { close, prop } from './helpers.js';

/** ln Γ(n) for a positive integer n: Σ ln j for j < n (exact enough for these small parameters). */
function lnGammaInt(n: number): number {
  let s = 0;
  for (let j = 2; j < n; j++) s += Math.log(j);
  return s;
}
const lnBeta = (a: number, b: number) => lnGammaInt(a) + lnGammaInt(b) - lnGammaInt(a + b);

/** Exact P(X_B > X_A) for X_A ~ Beta(aA, bA), X_B ~ Beta(aB, bB), integer aB (Evan Miller's closed form). */
function exactBetaBeats(aA: number, bA: number, aB: number, bB: number): number {
  let total = 0;
  for (let i = 0; i < aB; i++) total += Math.exp(lnBeta(aA + i, bA + bB) - Math.log(bB + i) - lnBeta(1 + i, bB) - lnBeta(aA, bA));
  return total;
}

// 10 000 draws: the Monte Carlo standard error is at most 0.005, so 0.02 is four of them.
const MC_TOLERANCE = 0.02;

describe('probabilityBest', () => {
  it.each<[string, [number, number], [number, number]]>([
    ['equal posteriors', [11, 91], [11, 91]],
    ['10% vs 12% on 100 users each', [11, 91], [13, 89]],
    ['10% vs 15% on 500 users each', [51, 451], [76, 426]],
    ['few users', [2, 3], [4, 2]],
    ['flat prior against some data', [1, 1], [8, 4]],
    ['one far ahead', [5, 95], [40, 60]],
  ])('two Betas: %s, against the exact closed form', (_name, [aA, bA], [aB, bB]) => {
    const arms: ArmPosterior[] = [
      { kind: 'beta', alpha: aA, beta: bA },
      { kind: 'beta', alpha: aB, beta: bB },
    ];
    const [pA, pB] = probabilityBest(arms, { seed: 42 });
    const exact = exactBetaBeats(aA, bA, aB, bB);
    close(pB, exact, MC_TOLERANCE);
    close(pA! + pB!, 1, 1e-12);
  });

  it.each<[string, [number, number], [number, number]]>([
    ['equal', [1, 0.1], [1, 0.1]],
    ['one sd apart', [1, 0.1], [1.1414, 0.1]],
    ['unequal spreads', [0, 1], [0.5, 0.3]],
    ['far apart', [0, 0.01], [1, 0.01]],
  ])('two Normals: %s, against Φ((μB − μA)/√(σA² + σB²))', (_name, [mA, sA], [mB, sB]) => {
    const arms: ArmPosterior[] = [
      { kind: 'normal', mean: mA, sd: sA },
      { kind: 'normal', mean: mB, sd: sB },
    ];
    const [, pB] = probabilityBest(arms, { seed: 7 });
    close(pB, normalCdfForTests((mB - mA) / Math.sqrt(sA * sA + sB * sB)), MC_TOLERANCE);
  });

  it('lower is better reverses the ranking', () => {
    const arms: ArmPosterior[] = [
      { kind: 'normal', mean: 0, sd: 0.01 },
      { kind: 'normal', mean: 1, sd: 0.01 },
    ];
    expect(probabilityBest(arms, { seed: 1, direction: 'lower' })).toEqual([1, 0]);
  });

  it('three equal arms share about a third each, and the same seed gives the same answer', () => {
    const arms: ArmPosterior[] = [0, 1, 2].map(() => ({ kind: 'beta', alpha: 20, beta: 80 }));
    const p = probabilityBest(arms, { seed: 3 });
    for (const x of p) close(x, 1 / 3, MC_TOLERANCE);
    expect(probabilityBest(arms, { seed: 3 })).toEqual(p);
    expect(probabilityBest(arms, { seed: 4 })).not.toEqual(p);
  });

  it('no arm, one arm', () => {
    expect(probabilityBest([], { seed: 1 })).toEqual([]);
    expect(probabilityBest([{ kind: 'beta', alpha: 1, beta: 1 }], { seed: 1 })).toEqual([1]);
  });
});

describe('thompsonWeights', () => {
  it.each<[string, number[], boolean[], number | undefined, number[]]>([
    ['one arm under the default floor 1/30', [0.9, 0.08, 0.02], [true, true, true], undefined, [0.9 * (29 / 30) / 0.98, 0.08 * (29 / 30) / 0.98, 1 / 30]],
    ['a sure leader keeps the others at the floor', [1, 0, 0], [true, true, true], undefined, [1 - 2 / 30, 1 / 30, 1 / 30]],
    ['a dropped arm gets nothing, and the floor is 1/(10·2)', [0.98, 0.0, 0.02], [true, true, false], undefined, [0.95, 0.05, 0]],
    ['nobody has any chance left: equal shares', [0, 0], [true, true], undefined, [0.5, 0.5]],
    ['floors that would exceed 1: equal shares', [0.9, 0.1], [true, true], 0.6, [0.5, 0.5]],
    ['flooring one arm pushes another under: both floored', [0.5, 0.47, 0.03], [true, true, true], 0.33, [0.34, 0.33, 0.33]],
    ['above the floor: P(best) as is', [0.5, 0.3, 0.2], [true, true, true], undefined, [0.5, 0.3, 0.2]],
    ['no arm active', [0.5, 0.5], [false, false], undefined, [0, 0]],
  ])('%s', (_name, pBest, active, floor, expected) => {
    const w = thompsonWeights(pBest, active, floor);
    expect(w).toHaveLength(expected.length);
    for (const [i, x] of w.entries()) close(x, expected[i]!, 1e-12);
  });
});

describe('periodWeightedEstimates', () => {
  it('one period: the plain rate, its standard error with the Beta(1, 1) variance', () => {
    const [a] = periodWeightedEstimates('success_rate', [[prop(100, 20)]]);
    const p = 21 / 102;
    close(a!.estimate, 0.2, 1e-12);
    close(a!.se, Math.sqrt((p * (1 - p)) / 100), 1e-12);
    close(a!.effectiveUsers, 100, 1e-9);
    close(a!.lower, 0.2 - 1.959964 * a!.se, 1e-6);
  });

  it("undoes Simpson's paradox: each period's traffic weighs the same for both arms", () => {
    // Period 1: A 10%, B 20%, A had 90% of the traffic; period 2: A 50%, B 60%, B had 90%.
    // Pooled, A is 14/100 and B 56/100; weighted by the periods' traffic (100 and 100): A 30%, B 40%.
    const [a, b] = periodWeightedEstimates('success_rate', [
      [prop(90, 9), prop(10, 2)],
      [prop(10, 5), prop(90, 54)],
    ]);
    close(a!.estimate, 0.3, 1e-12);
    close(b!.estimate, 0.4, 1e-12);
    close(a!.effectiveUsers, 1 / (0.25 / 90 + 0.25 / 10), 1e-9);
    expect(a!.users).toBe(100);
  });

  it('an arm without users in a period (dropped) is weighted over the periods it had', () => {
    const [a, b] = periodWeightedEstimates('success_rate', [
      [prop(50, 10), prop(50, 5)],
      [prop(100, 30), prop(0, 0)],
    ]);
    // Both periods had 100 users in all, so they weigh the same for arm a.
    close(a!.estimate, 0.5 * 0.2 + 0.5 * 0.3, 1e-12);
    close(b!.estimate, 0.1, 1e-12);
  });

  it('means: null below 2 users, else weighted with the pooled variance', () => {
    const [a, b] = periodWeightedEstimates('mean', [
      [
        { n: 1, sum: 3, sumSquares: 9 },
        { n: 2, sum: 2, sumSquares: 2 },
      ],
      [
        { n: 0, sum: 0, sumSquares: 0 },
        { n: 2, sum: 6, sumSquares: 18 },
      ],
    ]);
    expect(a).toBeNull();
    // Arm b: periods of 3 and 2 users in all; means 1 and 3; pooled variance of {1, 1, 3, 3} = 4/3.
    close(b!.estimate, 0.6 * 1 + 0.4 * 3, 1e-12);
    close(b!.se, Math.sqrt((4 / 3) * (0.36 / 2 + 0.16 / 2)), 1e-12);
    expect(periodWeightedEstimates('mean', [[{ n: 1, sum: 3, sumSquares: 9 }]])).toEqual([null]);
    expect(periodWeightedEstimates('success_rate', [[prop(0, 0)]])).toEqual([null]);
  });
});

describe('armPosterior', () => {
  it('a success rate with one period is Beta(1 + s, 1 + n − s)', () => {
    const [a] = periodWeightedEstimates('success_rate', [[prop(100, 20)]]);
    const post = armPosterior('success_rate', a!);
    expect(post).toEqual({ kind: 'beta', alpha: expect.closeTo(21, 9), beta: expect.closeTo(81, 9) });
  });
  it('no data: a flat Beta for a rate, nothing for a mean; a mean is Normal(θ̂, se)', () => {
    expect(armPosterior('success_rate', null)).toEqual({ kind: 'beta', alpha: 1, beta: 1 });
    expect(armPosterior('mean', null)).toBeNull();
    const est = { estimate: 2, se: 0.5, lower: 1, upper: 3, users: 10, effectiveUsers: 10 };
    expect(armPosterior('mean', est)).toEqual({ kind: 'normal', mean: 2, sd: 0.5 });
  });
});

describe('periodSampleRatioMismatch', () => {
  it('traffic that followed each period’s weights is no mismatch, even though pooled counts differ from any one set of weights', () => {
    const srm = periodSampleRatioMismatch([
      { observed: [50, 50], weights: [0.5, 0.5] },
      { observed: [90, 10], weights: [0.9, 0.1] },
    ]);
    expect(srm.chiSquare).toBe(0);
    expect(srm.df).toBe(2);
    expect(srm.flagged).toBe(false);
    expect(srm.periods).toHaveLength(2);
  });
  it('a period that did not follow its weights is flagged; the χ² add up', () => {
    const srm = periodSampleRatioMismatch([
      { observed: [100, 50], weights: [0.5, 0.5] },
      { observed: [90, 10], weights: [0.9, 0.1] },
    ]);
    close(srm.chiSquare, 2 * (25 * 25) / 75, 1e-9);
    expect(srm.df).toBe(2);
    expect(srm.flagged).toBe(true);
  });
  it('periods too small to test are left out', () => {
    const srm = periodSampleRatioMismatch([{ observed: [5, 1], weights: [0.5, 0.5] }]);
    expect(srm).toMatchObject({ checked: false, flagged: false, pValue: 1, df: 0 });
  });
});

describe('stop rule', () => {
  const h = (points: Array<[number, number[]]>) => points.map(([at, pBest]) => ({ at: at * 60_000, pBest }));
  it.each<[string, Array<[number, number[]]>, number | null, number | null]>([
    ['no checks', [], null, null],
    ['leader under the threshold', [[0, [0.9, 0.1]]], null, null],
    ['above since the first check', [[0, [0.96, 0.04]], [60, [0.97, 0.03]]], 0, 0],
    ['a dip restarts the clock', [[0, [0.96, 0.04]], [60, [0.9, 0.1]], [120, [0.97, 0.03]]], 0, 120],
    ['another arm took the lead', [[0, [0.96, 0.04]], [60, [0.02, 0.98]]], 1, 60],
  ])('%s', (_name, points, arm, since) => {
    const leader = leaderAboveThreshold(h(points), 0.95);
    expect(leader === null ? null : leader.arm).toBe(arm);
    expect(leader === null ? null : leader.since / 60_000).toBe(since);
  });
  it('ships once held for the set time, not before', () => {
    const history = h([[0, [0.96, 0.04]], [60, [0.97, 0.03]]]);
    expect(armToShip(history, 0.95, 120, 119 * 60_000)).toBeNull();
    expect(armToShip(history, 0.95, 120, 120 * 60_000)).toBe(0);
  });
});
