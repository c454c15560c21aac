import { describe, expect, it } from 'vitest';
import { compareToControl, type Suff } from '../../../src/stats/index.js';
import {
  sequentialHalfWidth,
  sequentialPValue,
  sequentialRho,
} from '../../../src/stats/sequential.js';

function close(actual: number | null | undefined, expected: number, tol: number): void {
  expect(actual).toBeTypeOf('number');
  if (Math.abs((actual as number) - expected) > tol) {
    throw new Error(`expected ${actual} to be within ${tol} of ${expected}`);
  }
}

const prop = (n: number, successes: number): Suff => ({ n, sum: successes, sumSquares: successes });

describe('sequential (always-valid) inference on the relative lift', () => {
  it('design case 100/1000 vs 130/1000: hand-computed half-width', () => {
    // By hand, α = 0.05, N* = 5000, N = 2000:
    //   −2 ln α = 5.991464547107982, ln(5.991464547107982 + 1) = 1.9446900546295833
    //   ρ² = (5.991464547107982 + 1.9446900546295833)/5000 = 0.001587230920347513
    //   SE² = 0.1131/(1000·0.1²) + 0.09·0.13²/(1000·0.1⁴) = 0.01131 + 0.01521 = 0.02652
    //   s² = SE²·N = 53.04; Nρ² + 1 = 4.174461840695026
    //   2(Nρ²+1)/(N²ρ²) = 0.0013150140244814082; ln(√4.174461840695026/0.05) = 3.710224998335048
    //   half-width = √(53.04 · 0.0013150140244814082 · 3.710224998335048) = 0.50870625018398...
    const r = compareToControl('proportion', prop(1000, 100), prop(1000, 130), { sequential: true });
    close(sequentialRho(0.05, 5000) ** 2, 0.001587230920347513, 1e-15);
    const half = (r.sequential!.ci![1] - r.sequential!.ci![0]) / 2;
    close(half, 0.5087062501839866, 1e-9);
    close(r.sequential!.ci![0], 0.3 - 0.5087062501839866, 1e-9);
    close(r.sequential!.ci![1], 0.3 + 0.5087062501839866, 1e-9);
  });

  // CI and p of the always-valid test. "gbstats" rows: tests/frequentist/test_tests.py
  // (5 decimals). "SciPy" rows: half-width from the Waudby-Smith formula in sequential.ts; p-value found independently
  // by root-finding (brentq on ln α) for the α at which the half-width equals |Δ|.
  it.each<[string, string, Suff, Suff, number, [number, number], number, number]>([
    [
      'gbstats mean fixture, N* = 1000',
      'gbstats',
      { n: 3000, sum: 1396.87, sumSquares: 52377.9767 },
      { n: 3461, sum: 2422.7, sumSquares: 134698.29 },
      1000,
      [-0.55844, 1.56516],
      1,
      5e-6,
    ],
    [
      'gbstats proportion fixture, N* = 5000',
      'gbstats',
      prop(3000, 1396),
      prop(3461, 2422),
      5000,
      [0.40098, 0.60675],
      5.174716682839724e-44,
      5e-6,
    ],
    ['design proportions', 'SciPy', prop(1000, 100), prop(1000, 130), 5000, [-0.20870625018398686, 0.8087062501839868], 0.5622208729310175, 1e-9],
    ['worse proportions', 'SciPy', prop(2000, 300), prop(2100, 250), 5000, [-0.3986786472040504, -0.014019765494362346], 0.02730457276097036, 1e-9],
    ['strong effect', 'SciPy', prop(5000, 500), prop(5000, 650), 5000, [0.0770370048466322, 0.5229629951533677], 0.0014039288917717058, 1e-9],
    [
      'gbstats means, N* = 5000',
      'SciPy',
      { n: 3407, sum: 1396.87, sumSquares: 52377.9767 },
      { n: 3461, sum: 2422.7, sumSquares: 134698.29 },
      5000,
      [-0.4444237691289097, 1.859057915470373],
      0.6986728582483063,
      1e-9,
    ],
  ])('%s (%s)', (_name, _source, control, treatment, tuning, ci, pValue, tol) => {
    const r = compareToControl(control.sum === control.sumSquares ? 'proportion' : 'mean', control, treatment, {
      sequential: true,
      sequentialTuning: tuning,
    });
    expect(r.enoughData).toBe(true);
    close(r.sequential!.ci![0], ci[0], tol);
    close(r.sequential!.ci![1], ci[1], tol);
    close(r.sequential!.pValue, pValue, pValue < 1e-6 ? pValue * 1e-6 : 1e-9);
  });

  it('the p-value is the smallest α whose sequence excludes 0 (bisection cross-check)', () => {
    const cases: Array<[Suff, Suff]> = [
      [prop(1000, 100), prop(1000, 130)],
      [prop(2000, 300), prop(2100, 250)],
      [prop(5000, 500), prop(5000, 650)],
      [prop(20000, 2000), prop(20000, 2200)],
    ];
    const rho = sequentialRho(0.05, 5000);
    for (const [c, t] of cases) {
      const r = compareToControl('proportion', c, t, { sequential: true });
      const lift = Math.abs(r.relative.lift!);
      const se = r.relative.se!;
      const n = c.n + t.n;
      const excludesZero = (a: number) => sequentialHalfWidth(se, n, a, rho) < lift;
      let lo = 1e-12;
      let hi = 1;
      expect(excludesZero(hi)).toBe(r.sequential!.pValue! < 1);
      for (let i = 0; i < 200; i++) {
        const mid = (lo + hi) / 2;
        if (excludesZero(mid)) hi = mid;
        else lo = mid;
      }
      close(r.sequential!.pValue, hi, 1e-12);
      // At α = p the boundary touches 0 exactly.
      close(sequentialHalfWidth(se, n, r.sequential!.pValue!, rho), lift, 1e-9);
    }
  });

  it('is always wider than the fixed-horizon interval', () => {
    for (const n of [50, 200, 1000, 5000, 20000, 100000, 1e6]) {
      const r = compareToControl('proportion', prop(n, n * 0.1), prop(n, n * 0.11), { sequential: true });
      const fixed = r.relative.ci![1] - r.relative.ci![0];
      const seq = r.sequential!.ci![1] - r.sequential!.ci![0];
      expect(seq).toBeGreaterThan(fixed);
      expect(r.sequential!.pValue!).toBeGreaterThanOrEqual(r.relative.pValue!);
    }
  });

  it('is tightest when N* is close to the actual sample size (gbstats tuning test)', () => {
    const c: Suff = { n: 3000, sum: 1396.87, sumSquares: 52377.9767 };
    const t: Suff = { n: 3461, sum: 2422.7, sumSquares: 134698.29 };
    const width = (tuning: number) => {
      const r = compareToControl('mean', c, t, { sequential: true, sequentialTuning: tuning });
      return r.sequential!.ci![1] - r.sequential!.ci![0];
    };
    expect(width(6461)).toBeLessThan(width(10));
    expect(width(6461)).toBeLessThan(width(10000));
    expect(width(10000)).toBeLessThan(width(10));
  });

  it('p-value underflows to 0 instead of overflowing for huge z', () => {
    expect(sequentialPValue(1, 1e-9, 1e6, sequentialRho(0.05, 5000))).toBe(0);
    expect(sequentialPValue(0, 1, 1000, sequentialRho(0.05, 5000))).toBe(1);
  });

  it('is absent unless requested', () => {
    expect(compareToControl('proportion', prop(1000, 100), prop(1000, 130)).sequential).toBeUndefined();
  });
});
