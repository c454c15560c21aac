import { moments, rateDifference, sequentialDifference } from '../src/stats/index.js';
import { gaussian, mulberry32 } from './decisionSimulation.js';

/**
 * Coverage of the intervals the guardrails use, checked at every look (docs/rollouts-and-bandits.md):
 * two arms with the same true value (so the true difference is 0) grow user by user, and at each look
 * the interval must hold 0. A run counts as covered up to n when every look up to n held it: the
 * guarantee of an always-valid interval is exactly this, for all looks at once. Seeded.
 */

/** The looks: every user up to 100, every 10 up to 1 000, every 100 beyond. */
function looksUpTo(max: number): number[] {
  const looks: number[] = [];
  for (let n = 2; n <= max; n += n < 100 ? 1 : n < 1000 ? 10 : 100) looks.push(n);
  return looks;
}

interface Sums {
  n: number;
  sum: number;
  sumSquares: number;
}

/** Which interval a look reads: the rate's mixture sequence, or the asymptotic one on the difference of means. */
export type IntervalKind = 'rate' | 'asymptotic';

/** Whether the interval at this look holds `truth`; null when it is undefined (the asymptotic one on data without variation). */
function holds(kind: IntervalKind, c: Sums, t: Sums, truth: number, alpha: number): boolean | null {
  if (kind === 'rate') {
    const d = rateDifference(c, t, alpha);
    return d.ci[0] <= truth && truth <= d.ci[1];
  }
  const mc = moments('mean', c);
  const mt = moments('mean', t);
  const d = mc === null || mt === null ? null : sequentialDifference({ n: c.n, ...mc }, { n: t.n, ...mt }, alpha, 5000);
  return d === null ? null : d.ci[0] <= truth && truth <= d.ci[1];
}

/** Two arms' values and the true difference of their means (treatment − control). */
export interface ArmPair {
  control: (random: () => number) => number;
  treatment: (random: () => number) => number;
  difference: number;
}

export interface CoverageRow {
  /** What the users' values are (a rate p, or a log-normal latency). */
  data: string;
  interval: IntervalKind;
  /** From this many users per arm on, the interval is looked at (the asymptotic one's minimum). */
  from: number;
  /** Users per arm → share of runs whose interval held the truth at every look up to there (null: none looked at). */
  covered: Record<number, number | null>;
  /** Users per arm → share of runs whose interval was undefined at some look up to there (counted as not covering). */
  undefinedShare: Record<number, number>;
}

/**
 * `runs` pairs of arms drawn from `arms`, looked at from `from` users per arm on, at the checkpoints.
 * An undefined interval at a look counts against coverage (a guardrail reading it learns nothing).
 */
export function coverage(
  data: string,
  arms: ArmPair,
  kind: IntervalKind,
  checkpoints: readonly number[],
  runs: number,
  seed: number,
  from = 2,
  alpha = 0.05,
): CoverageRow {
  const random = mulberry32(seed);
  const max = Math.max(...checkpoints);
  const looks = looksUpTo(max).filter((n) => n >= from);
  const missedBy: number[] = [];
  const undefinedBy: number[] = [];
  for (let r = 0; r < runs; r++) {
    const c: Sums = { n: 0, sum: 0, sumSquares: 0 };
    const t: Sums = { n: 0, sum: 0, sumSquares: 0 };
    let missed = Number.POSITIVE_INFINITY;
    let undef = Number.POSITIVE_INFINITY;
    let next = 0;
    for (let n = 1; n <= max && next < looks.length; n++) {
      for (const [s, draw] of [
        [c, arms.control],
        [t, arms.treatment],
      ] as const) {
        const x = draw(random);
        s.n++;
        s.sum += x;
        s.sumSquares += x * x;
      }
      if (n !== looks[next]) continue;
      next++;
      const held = holds(kind, c, t, arms.difference, alpha);
      if (held === null && undef === Number.POSITIVE_INFINITY) undef = n;
      if (held !== true) {
        missed = n;
        break;
      }
    }
    missedBy.push(missed);
    undefinedBy.push(undef);
  }
  const covered: Record<number, number | null> = {};
  const undefinedShare: Record<number, number> = {};
  for (const n of checkpoints) {
    covered[n] = n < from ? null : missedBy.filter((m) => m > n).length / runs;
    undefinedShare[n] = undefinedBy.filter((m) => m <= n).length / runs;
  }
  return { data, interval: kind, from, covered, undefinedShare };
}

export const CHECKPOINTS = [10, 30, 100, 1000, 10_000] as const;
export const RATES = [0, 0.01, 0.05, 0.3, 1] as const;

/** Per-user latency: log-normal with the given median and shape σ (σ = 1 and more: a heavy tail). */
const logNormal = (median: number, sigma: number) => (random: () => number) => median * Math.exp(sigma * gaussian(random));

/** Production's latency (median 800 ms) against a candidate 50% slower: the difference's distribution is skewed. */
function slowerLatency(sigma: number): ArmPair {
  const mean = (median: number) => median * Math.exp((sigma * sigma) / 2);
  return { control: logNormal(800, sigma), treatment: logNormal(1200, sigma), difference: mean(1200) - mean(800) };
}

/**
 * Latency with timeouts: most calls log-normal around 800 ms (σ = 0.5), a few hit a 30 s timeout
 * (production 1%, the candidate 3%). At small n most samples hold no timeout at all, the hard case
 * for an asymptotic interval.
 */
function moreTimeouts(): ArmPair {
  const body = logNormal(800, 0.5);
  const draw = (share: number) => (random: () => number) => (random() < share ? 30_000 : body(random));
  const mean = (share: number) => share * 30_000 + (1 - share) * 800 * Math.exp(0.125);
  return { control: draw(0.01), treatment: draw(0.03), difference: mean(0.03) - mean(0.01) };
}

const rate = (p: number): ArmPair => {
  const draw = (random: () => number) => (random() < p ? 1 : 0);
  return { control: draw, treatment: draw, difference: 0 };
};

/** The table: the rate interval at each rate (A/A), the asymptotic one on latency (+50%) from 2, 10 and 30 users per arm. */
export function coverageTable(runs: number, checkpoints: readonly number[], seed: number, kindForRates: IntervalKind = 'rate'): CoverageRow[] {
  const rows: CoverageRow[] = [];
  let s = seed;
  for (const p of RATES) rows.push(coverage(`rate ${p}, both arms`, rate(p), kindForRates, checkpoints, runs, s++));
  for (const from of [2, 10, 30]) {
    for (const sigma of [0.5, 1.5]) {
      rows.push(coverage(`latency 800 → 1 200 ms median, log-normal σ=${sigma}`, slowerLatency(sigma), 'asymptotic', checkpoints, runs, s++, from));
    }
    rows.push(coverage('latency with 30 s timeouts, 1% → 3% of calls', moreTimeouts(), 'asymptotic', checkpoints, runs, s++, from));
  }
  return rows;
}

const pct = (x: number | null) => (x === null ? '–' : `${(x * 100).toFixed(1)}%`);

export function formatCoverageTable(rows: readonly CoverageRow[], checkpoints: readonly number[]): string {
  const lines = [
    `| values | interval | looked at from (users per arm) | ${checkpoints.map((n) => `covered at every look up to ${n}`).join(' | ')} |`,
    `|---|---|---|${checkpoints.map(() => '---').join('|')}|`,
  ];
  for (const r of rows) {
    const cells = checkpoints.map((n) => (r.undefinedShare[n]! > 0 ? `${pct(r.covered[n]!)} (undefined in ${pct(r.undefinedShare[n]!)})` : pct(r.covered[n]!)));
    const name = r.interval === 'rate' ? 'beta-binomial mixture (rates)' : 'asymptotic (means)';
    lines.push(`| ${r.data} | ${name} | ${r.from} | ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}
