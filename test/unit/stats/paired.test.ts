import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { comparePaired, mcnemarExact, pairedT, winTieLoss } from '../../../src/stats/paired.js';

/** SciPy's answers (test/fixtures/stats/paired_vectors.py writes them; its docstring has the command). */
interface Vectors {
  paired_t: Array<{ name: string; baseline: number[]; candidate: number[]; level: number; t: number; df: number; p_value: number; ci_low: number; ci_high: number }>;
  mcnemar: Array<{ losses: number; wins: number; p_value: number }>;
}
const vectors = JSON.parse(readFileSync(new URL('../../fixtures/stats/paired_vectors.json', import.meta.url), 'utf8')) as Vectors;

function close(actual: number | null, expected: number, tol = 1e-9): void {
  expect(actual).toBeTypeOf('number');
  if (Math.abs(actual! - expected) > tol) throw new Error(`expected ${actual} to be within ${tol} of ${expected}`);
}

describe('pairedT against scipy.stats.ttest_rel', () => {
  it.each(vectors.paired_t.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const r = pairedT(c.baseline, c.candidate, c.level);
    close(r.t, c.t);
    close(r.df, c.df);
    close(r.p_value, c.p_value);
    close(r.ci_low, c.ci_low);
    close(r.ci_high, c.ci_high);
    close(r.mean_diff, (c.ci_low + c.ci_high) / 2);
  });
});

describe('pairedT where SciPy answers nan', () => {
  it.each<[string, number[], number[], Partial<ReturnType<typeof pairedT>>]>([
    ['no items', [], [], { n: 0, mean_diff: null, t: null, p_value: null, ci_low: null, ci_high: null }],
    ['one item', [1], [3], { n: 1, mean_diff: 2, sd_diff: null, t: null, df: null, p_value: null, ci_low: null }],
    ['every difference zero: p = 1, interval [0, 0]', [1, 2, 3], [1, 2, 3], { mean_diff: 0, se: 0, t: 0, df: 2, p_value: 1, ci_low: 0, ci_high: 0 }],
    ['every difference the same d: p = 0, interval [d, d]', [1, 2, 3], [2, 3, 4], { mean_diff: 1, se: 0, t: null, p_value: 0, ci_low: 1, ci_high: 1 }],
  ])('%s', (_name, baseline, candidate, expected) => {
    expect(pairedT(baseline, candidate)).toMatchObject(expected);
  });

  it('refuses vectors that do not pair up, and a level outside (0, 1)', () => {
    expect(() => pairedT([1], [1, 2])).toThrow(/pair up/);
    expect(() => pairedT([1, 2], [1, 2], 1)).toThrow(/level/);
  });
});

describe('mcnemarExact against scipy.stats.binomtest(losses, losses + wins, 0.5)', () => {
  it.each(vectors.mcnemar.map((c) => [`${c.losses} losses, ${c.wins} wins`, c] as const))('%s', (_name, c) => {
    const r = mcnemarExact(c.losses, c.wins);
    close(r.p_value, c.p_value);
    expect(r).toMatchObject({ losses: c.losses, wins: c.wins });
  });

  it('no discordant pairs: p = 1 (SciPy refuses n = 0)', () => {
    expect(mcnemarExact(0, 0).p_value).toBe(1);
  });
});

describe('winTieLoss and comparePaired', () => {
  it('counts the candidate higher, equal, lower', () => {
    expect(winTieLoss([1, 2, 3, 4], [2, 2, 1, 5])).toEqual({ wins: 2, ties: 1, losses: 1 });
  });

  it('lists the items where the versions differ first, largest difference first, then the rest in order', () => {
    const c = comparePaired(
      [
        { item_id: 'a', baseline: 3, candidate: 3 },
        { item_id: 'b', baseline: 2, candidate: 3 },
        { item_id: 'c', baseline: 5, candidate: 1 },
        { item_id: 'd', baseline: 4, candidate: 4 },
        { item_id: 'e', baseline: 1, candidate: 2 },
      ],
      'score',
    );
    expect(c.items.map((i) => i.item_id)).toEqual(['c', 'b', 'e', 'a', 'd']);
    expect(c.items[0]!.diff).toBe(-4);
    expect(c).toMatchObject({ n: 5, baseline_mean: 3, candidate_mean: 2.6, mcnemar: null, win_tie_loss: { wins: 2, ties: 2, losses: 1 } });
  });

  it('leaves out the items a version could not score (a judge error), counted apart, never as a fail', () => {
    const c = comparePaired(
      [
        { item_id: 'a', baseline: 1, candidate: 0 },
        { item_id: 'b', baseline: null, candidate: 1 },
        { item_id: 'c', baseline: 1, candidate: null },
        { item_id: 'd', baseline: null, candidate: null },
        { item_id: 'e', baseline: 0, candidate: 1 },
        { item_id: 'f', baseline: 1, candidate: 1 },
      ],
      'pass_fail',
    );
    expect(c).toMatchObject({ n: 3, unscored: { baseline: 1, candidate: 1, both: 1 }, win_tie_loss: { wins: 1, ties: 1, losses: 1 } });
    expect(c.items.map((i) => i.item_id)).toEqual(['a', 'e', 'f']);
    expect(c.mcnemar).toEqual({ losses: 1, wins: 1, p_value: 1 });
  });

  it('pass/fail: McNemar on the discordant pairs, the t test on the 0/1 differences', () => {
    const baseline = [1, 0, 1, 1, 0, 0, 1, 0, 1, 1];
    const candidate = [1, 1, 1, 0, 1, 0, 1, 1, 1, 1];
    const c = comparePaired(
      baseline.map((b, i) => ({ item_id: `i${i}`, baseline: b, candidate: candidate[i]! })),
      'pass_fail',
    );
    expect(c.mcnemar).toEqual(mcnemarExact(1, 3));
    const scipy = vectors.paired_t.find((v) => v.name === 'pass/fail as 0/1')!;
    close(c.paired_t.p_value, scipy.p_value);
    expect(c.items.slice(0, 4).map((i) => i.item_id)).toEqual(['i1', 'i3', 'i4', 'i7']);
  });
});
