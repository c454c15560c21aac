import tCdf from '@stdlib/stats-base-dists-t-cdf';
import { describe, expect, it } from 'vitest';
import { type Direction, oneSidedWorsePValue } from '../../../src/stats/index.js';
import { close } from './helpers.js';

describe('oneSidedWorsePValue (guardrail: "the metric got worse")', () => {
  // p = F_t(t; ν) for 'higher', 1 − F_t(t; ν) for 'lower', t = lift/se, checked against @stdlib's
  // t CDF called directly. The last column is SciPy (scipy.stats.t.cdf / t.sf), an independent
  // implementation, so the tails (t = ±8) are checked to relative precision too.
  it.each<[string, number, number, number, Direction, number]>([
    ['higher is better, lift down (t = −2.5)', -0.05, 0.02, 100, 'higher', 0.007022894562038586],
    ['lower is better, lift down: not worse', -0.05, 0.02, 100, 'lower', 0.9929771054379614],
    ['lower is better, lift up (t = 2.5)', 0.05, 0.02, 100, 'lower', 0.007022894562038586],
    ['higher is better, small positive lift, df 5', 0.01, 0.1, 5, 'higher', 0.5378849294226697],
    ['no change', 0, 1, 3, 'higher', 0.5],
    ['fractional df', -0.024, 0.003, 2.5, 'higher', 0.0038283220655217234],
    ['left tail t = −8, df 10', -8, 1, 10, 'higher', 5.887471394833083e-6],
    ['right tail t = 8, df 10', 8, 1, 10, 'lower', 5.887471394833083e-6],
    ['t = 8 when higher is better: clearly not worse', 8, 1, 10, 'higher', 0.9999941125286052],
    ['df 1e6, t = −8', -0.8, 0.1, 1e6, 'higher', 6.227531716601252e-16],
    ['df 1e6, t = 8', 0.8, 0.1, 1e6, 'lower', 6.227531716601252e-16],
    ['df 1e6, t = 1.3', 0.13, 0.1, 1e6, 'lower', 0.09680063440456263],
  ])('%s', (_name, lift, se, df, direction, scipy) => {
    const t = lift / se;
    const p = oneSidedWorsePValue(lift, se, df, direction);
    const stdlib = direction === 'higher' ? tCdf(t, df) : 1 - tCdf(t, df);
    close(p, stdlib, 1e-15);
    // Relative precision in the tails, where 1 − F_t would have lost every digit.
    expect(Math.abs(p - scipy) / scipy).toBeLessThan(1e-9);
  });

  it.each<[number, number, number]>([
    [-0.05, 0.02, 100],
    [0.3, 0.1, 7],
    [-8, 1, 10],
    [8, 1, 1e6],
    [0, 0.5, 2],
  ])('p_higher + p_lower = 1 (lift %s, se %s, df %s)', (lift, se, df) => {
    close(oneSidedWorsePValue(lift, se, df, 'higher') + oneSidedWorsePValue(lift, se, df, 'lower'), 1, 1e-15);
  });

  it('df = ∞ is the normal: Φ(−2)', () => {
    close(oneSidedWorsePValue(-1, 0.5, Number.POSITIVE_INFINITY, 'higher'), 0.022750131948179195, 1e-12);
  });

  it.each<[string, number, number, number]>([
    ['se 0', 0.1, 0, 10],
    ['negative se', 0.1, -1, 10],
    ['NaN se', 0.1, Number.NaN, 10],
    ['NaN lift', Number.NaN, 1, 10],
    ['df 0', 0.1, 1, 0],
    ['NaN df', 0.1, 1, Number.NaN],
  ])('throws RangeError for %s', (_name, lift, se, df) => {
    expect(() => oneSidedWorsePValue(lift, se, df, 'higher')).toThrow(RangeError);
  });
});
