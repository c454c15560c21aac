import { describe, expect, it } from 'vitest';
import {
  type ArmShares,
  type MdeOptions,
  type MetricKind,
  minimumDetectableEffect,
  moments,
  type Suff,
  usersNeeded,
} from '../../../src/stats/index.js';
import { fromMeanSd, prop } from './helpers.js';

describe('usersNeeded', () => {
  // N = z²σ²(1/sT + (1+d)²/sC)/(d²μ²), rounded up. z = Φ⁻¹(0.975) + Φ⁻¹(0.8)
  // = 1.959963984540054 + 0.8416212335729143 = 2.8015852181129683, z² = 7.848879734349088;
  // α = 0.01, power 0.9: z = 2.5758293035489004 + 1.2815515655446004 = 3.857380869093501, z² = 14.879387169248531.
  it.each<[string, MetricKind, Suff, number, ArmShares, MdeOptions | undefined, number]>([
    // σ²/μ² = 0.09/0.01 = 9; 1/0.5 + 1.1²/0.5 = 4.42; N = 7.848879734349088·9·4.42/0.01 = 31222.84 → 31223.
    ['10% baseline, d = 0.1, 50/50', 'proportion', prop(1000, 100), 0.1, { control: 0.5, treatment: 0.5 }, undefined, 31223],
    // Same with z² = 14.879387169248531: 14.879387169248531·3978 = 59190.20 → 59191.
    ['alpha 0.01, power 0.9', 'proportion', prop(1000, 100), 0.1, { control: 0.5, treatment: 0.5 }, { alpha: 0.01, power: 0.9 }, 59191],
    // 1/0.4 + 1.2²/0.6 = 4.9; N = 7.848879734349088·9·4.9/0.04 = 8653.39 → 8654.
    ['10% baseline, d = 0.2, 60/40', 'proportion', prop(500, 50), 0.2, { control: 0.6, treatment: 0.4 }, undefined, 8654],
    // μ = 10, σ = 5: σ²/μ² = 0.25; 1/0.25 + 1.05²/0.25 = 8.41; N = 7.848879734349088·0.25·8.41/0.0025 = 6600.91 → 6601.
    ['mean 10 ± 5, d = 0.05, four arms of 25%', 'mean', fromMeanSd(1000, 10, 5), 0.05, { control: 0.25, treatment: 0.25 }, undefined, 6601],
    ['negative control mean uses |μ|', 'mean', fromMeanSd(1000, -10, 5), 0.05, { control: 0.25, treatment: 0.25 }, undefined, 6601],
    // μ = 100, σ = 1: N = 7.848879734349088·1e-4·4.42/0.01 = 0.35, but each arm needs 2 users → 4.
    ['tiny N is raised to 2 users per arm', 'mean', fromMeanSd(1000, 100, 1), 0.1, { control: 0.5, treatment: 0.5 }, undefined, 4],
    // N = 7.848879734349088·1e-4·(10 + 12.1)/0.01 = 1.73, but 2/0.1 = 20.
    ['2 users per arm with 10% shares', 'mean', fromMeanSd(1000, 100, 1), 0.1, { control: 0.1, treatment: 0.1 }, undefined, 20],
  ])('%s', (_name, kind, control, d, shares, opts, expected) => {
    expect(usersNeeded(kind, control, d, shares, opts)).toBe(expected);
  });

  // Inverse of minimumDetectableEffect: with N users split by the shares (same mean and variance in
  // the control), the MDE is the target (slightly below: N is rounded up), and with N − 1 it is above.
  it.each<[string, MetricKind, Suff, number, ArmShares, MdeOptions | undefined]>([
    ['proportion 50/50', 'proportion', prop(1000, 100), 0.1, { control: 0.5, treatment: 0.5 }, undefined],
    ['proportion 60/40, α 0.01, power 0.9', 'proportion', prop(500, 50), 0.2, { control: 0.6, treatment: 0.4 }, { alpha: 0.01, power: 0.9 }],
    ['proportion 30% baseline, 20/50', 'proportion', prop(200, 60), 0.03, { control: 0.2, treatment: 0.5 }, undefined],
    ['mean, four arms', 'mean', fromMeanSd(1000, 10, 5), 0.05, { control: 0.25, treatment: 0.25 }, undefined],
    ['mean, large effect', 'mean', fromMeanSd(50, 3, 9), 0.5, { control: 0.3, treatment: 0.3 }, { power: 0.95 }],
  ])('consistent with minimumDetectableEffect: %s', (_name, kind, control, d, shares, opts) => {
    const n = usersNeeded(kind, control, d, shares, opts)!;
    const m = moments(kind, control)!;
    const controlAt = (total: number): Suff =>
      kind === 'proportion' ? prop(total * shares.control, m.mean * total * shares.control) : fromMeanSd(total * shares.control, m.mean, Math.sqrt(m.variance));
    const mde = minimumDetectableEffect(kind, controlAt(n), n * shares.treatment, opts)!;
    expect(Math.abs(mde - d) / d).toBeLessThan(1e-3);
    expect(mde).toBeLessThanOrEqual(d);
    expect(minimumDetectableEffect(kind, controlAt(n - 1), (n - 1) * shares.treatment, opts)!).toBeGreaterThan(d);
  });

  it.each<[string, MetricKind, Suff]>([
    ['control has 1 user', 'proportion', prop(1, 1)],
    ['control has no users', 'mean', { n: 0, sum: 0, sumSquares: 0 }],
    ['control mean 0', 'proportion', prop(1000, 0)],
    ['zero variance', 'proportion', prop(1000, 1000)],
    ['constant numeric values', 'mean', { n: 4, sum: 8, sumSquares: 16 }],
    ['invalid control', 'proportion', prop(10, 20)],
    ['NaN sum', 'mean', { n: 10, sum: Number.NaN, sumSquares: 10 }],
    ['N overflows (σ/μ = 1e200)', 'mean', fromMeanSd(10, 1e-200, 1)],
  ])('null when %s', (_name, kind, control) => {
    expect(usersNeeded(kind, control, 0.1, { control: 0.5, treatment: 0.5 })).toBeNull();
  });

  it.each<[string, number, ArmShares, MdeOptions | undefined]>([
    ['target 0', 0, { control: 0.5, treatment: 0.5 }, undefined],
    ['negative target', -0.1, { control: 0.5, treatment: 0.5 }, undefined],
    ['NaN target', Number.NaN, { control: 0.5, treatment: 0.5 }, undefined],
    ['infinite target', Number.POSITIVE_INFINITY, { control: 0.5, treatment: 0.5 }, undefined],
    ['control share 0', 0.1, { control: 0, treatment: 0.5 }, undefined],
    ['control share above 1', 0.1, { control: 1.2, treatment: 0.5 }, undefined],
    ['NaN treatment share', 0.1, { control: 0.5, treatment: Number.NaN }, undefined],
    ['shares summing to more than 1', 0.1, { control: 0.6, treatment: 0.6 }, undefined],
    ['alpha 0', 0.1, { control: 0.5, treatment: 0.5 }, { alpha: 0 }],
    ['alpha 1', 0.1, { control: 0.5, treatment: 0.5 }, { alpha: 1 }],
    ['power 1', 0.1, { control: 0.5, treatment: 0.5 }, { power: 1 }],
  ])('throws RangeError for %s', (_name, d, shares, opts) => {
    expect(() => usersNeeded('proportion', prop(1000, 100), d, shares, opts)).toThrow(RangeError);
  });

  it('checks the configuration even when the data give null', () => {
    expect(() => usersNeeded('proportion', prop(1, 1), 0, { control: 0.5, treatment: 0.5 })).toThrow(RangeError);
  });
});
