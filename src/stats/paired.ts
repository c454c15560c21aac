/**
 * Paired comparisons of two versions scored on the same items (docs/evaluations.md, "The
 * statistics"). Every difference is candidate − baseline, item by item, so a positive mean says the
 * candidate scored higher. Pure: arrays in, numbers out; checked against SciPy's `ttest_rel` and
 * `binomtest` (test/fixtures/stats/paired_vectors.py).
 */
import binomialCdf from '@stdlib/stats-base-dists-binomial-cdf';
import { tQuantile, tSurvival } from './distributions.js';

export interface PairedT {
  n: number;
  /** Mean of candidate − baseline; null without items. */
  mean_diff: number | null;
  /** Sample standard deviation of the differences (n − 1 in the denominator); null below 2 items. */
  sd_diff: number | null;
  /** Standard error of the mean difference; null below 2 items. */
  se: number | null;
  /** mean / se; null below 2 items, and when every difference is the same non-zero number (infinite). */
  t: number | null;
  df: number | null;
  /** Two-sided; null below 2 items. */
  p_value: number | null;
  level: number;
  ci_low: number | null;
  ci_high: number | null;
}

/**
 * Student's paired t test of candidate − baseline. Where SciPy answers NaN we answer:
 * - fewer than 2 items: null for everything that needs a variance (SciPy: nan);
 * - every difference zero: t = 0, p = 1 and the interval [0, 0] — the versions agree on every item,
 *   so there is no evidence of a difference (SciPy: nan, nan, from 0/0);
 * - every difference the same non-zero d: t = null (SciPy: ±inf), p = 0 (as SciPy) and the
 *   interval [d, d].
 */
export function pairedT(baseline: readonly number[], candidate: readonly number[], level = 0.95): PairedT {
  if (baseline.length !== candidate.length) throw new Error('pairedT: the two vectors must pair up');
  if (!(level > 0 && level < 1)) throw new Error('pairedT: level must be in (0, 1)');
  const n = baseline.length;
  const diffs = baseline.map((b, i) => candidate[i]! - b);
  const none = { sd_diff: null, se: null, t: null, df: null, p_value: null, ci_low: null, ci_high: null };
  if (n === 0) return { n, mean_diff: null, level, ...none };
  const mean = diffs.reduce((s, d) => s + d, 0) / n;
  if (n < 2) return { n, mean_diff: mean, level, ...none };
  // Two passes: the sum of squared deviations from the mean, not E[x²] − E[x]², which cancels.
  const ss = diffs.reduce((s, d) => s + (d - mean) ** 2, 0);
  const sd = Math.sqrt(ss / (n - 1));
  const se = sd / Math.sqrt(n);
  const df = n - 1;
  if (se === 0) {
    return { n, mean_diff: mean, sd_diff: sd, se, t: mean === 0 ? 0 : null, df, p_value: mean === 0 ? 1 : 0, level, ci_low: mean, ci_high: mean };
  }
  const t = mean / se;
  const half = tQuantile(1 - (1 - level) / 2, df) * se;
  return { n, mean_diff: mean, sd_diff: sd, se, t, df, p_value: Math.min(1, 2 * tSurvival(Math.abs(t), df)), level, ci_low: mean - half, ci_high: mean + half };
}

export interface McNemar {
  /** Items the baseline passed and the candidate failed. */
  losses: number;
  /** Items the baseline failed and the candidate passed. */
  wins: number;
  /** Exact two-sided p of the discordant pairs: SciPy's binomtest(losses, losses + wins, 0.5). 1 without discordant pairs. */
  p_value: number;
}

/**
 * McNemar's exact test: under "no difference" each discordant item is a fair coin, so the losses
 * are Binomial(losses + wins, ½). The distribution is symmetric, so the two-sided p is twice the
 * smaller tail (SciPy's binomtest sums the same terms). Without discordant items there is nothing
 * to test: p = 1 (SciPy refuses n = 0).
 */
export function mcnemarExact(losses: number, wins: number): McNemar {
  const n = losses + wins;
  if (n === 0 || losses === wins) return { losses, wins, p_value: 1 };
  return { losses, wins, p_value: Math.min(1, 2 * binomialCdf(Math.min(losses, wins), n, 0.5)) };
}

export interface WinTieLoss {
  wins: number;
  ties: number;
  losses: number;
}

/** Items where the candidate scored higher, the same, lower. */
export function winTieLoss(baseline: readonly number[], candidate: readonly number[]): WinTieLoss {
  const out = { wins: 0, ties: 0, losses: 0 };
  baseline.forEach((b, i) => {
    const c = candidate[i]!;
    if (c > b) out.wins++;
    else if (c < b) out.losses++;
    else out.ties++;
  });
  return out;
}

/** One item scored by both versions. */
interface ScoredPair {
  item_id: string;
  baseline: number;
  candidate: number;
}

/** One item as the two versions' scoring left it: null where a version could not score it (a judge error). */
export interface ItemScores {
  item_id: string;
  baseline: number | null;
  candidate: number | null;
}

export interface PairedComparison {
  scale: 'pass_fail' | 'score';
  /** Items both versions scored: the comparison is over these. */
  n: number;
  /** Items left out because a version could not score them, counted apart (never as a fail). */
  unscored: { baseline: number; candidate: number; both: number };
  baseline_mean: number | null;
  candidate_mean: number | null;
  win_tie_loss: WinTieLoss;
  paired_t: PairedT;
  /** pass/fail only (scores 1 and 0). */
  mcnemar: McNemar | null;
  /** Items where the two differ first (largest difference first), then the rest; each group in item order. */
  items: Array<ScoredPair & { diff: number }>;
}

/**
 * The comparison of one evaluator over the items both versions scored; an item either could not
 * score is left out of every statistic and counted in `unscored`. Pass/fail scores are 1 and 0:
 * McNemar on the discordant pairs, and the paired t on the 0/1 differences (the difference of
 * pass rates).
 */
export function comparePaired(scored: readonly ItemScores[], scale: 'pass_fail' | 'score', level = 0.95): PairedComparison {
  const unscored = { baseline: 0, candidate: 0, both: 0 };
  const pairs: ScoredPair[] = [];
  for (const { item_id, baseline, candidate } of scored) {
    if (baseline !== null && candidate !== null) pairs.push({ item_id, baseline, candidate });
    else if (baseline === null && candidate === null) unscored.both++;
    else if (baseline === null) unscored.baseline++;
    else unscored.candidate++;
  }
  const baseline = pairs.map((p) => p.baseline);
  const candidate = pairs.map((p) => p.candidate);
  const wtl = winTieLoss(baseline, candidate);
  const mean = (xs: number[]) => (xs.length === 0 ? null : xs.reduce((s, x) => s + x, 0) / xs.length);
  const items = pairs
    .map((p, index) => ({ ...p, diff: p.candidate - p.baseline, index }))
    .sort((a, b) => Number(b.diff !== 0) - Number(a.diff !== 0) || Math.abs(b.diff) - Math.abs(a.diff) || a.index - b.index)
    .map(({ index: _index, ...rest }) => rest);
  return {
    scale,
    n: pairs.length,
    unscored,
    baseline_mean: mean(baseline),
    candidate_mean: mean(candidate),
    win_tie_loss: wtl,
    paired_t: pairedT(baseline, candidate, level),
    mcnemar: scale === 'pass_fail' ? mcnemarExact(wtl.losses, wtl.wins) : null,
    items,
  };
}
