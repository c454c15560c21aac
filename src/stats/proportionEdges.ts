import betaln from '@stdlib/math-base-special-betaln';
import { normalCdf, normalQuantile } from './distributions.js';
import { rateDifference } from './rateSequence.js';

/**
 * Two proportions where the Welch test says nothing: an arm in which every user has the same value
 * (0/n or n/n), so its variance estimate is 0. The tests here are defined there:
 * - the pooled two-proportion z-test (the variance under "no difference" pools both arms, so it is
 *   positive unless both arms are all-0 or all-1, where the data show no difference at all: p = 1),
 *   or Fisher's exact test where an expected cell count is below 5 (tiny n), where the normal
 *   approximation is not to be trusted;
 * - Newcombe's hybrid score interval of the difference (Newcombe 1998, method 10), from each arm's
 *   Wilson score interval: it stays inside [−1, 1] and is defined at 0/n and n/n;
 * - the chance to win under independent Beta(1 + x, 1 + n − x) posteriors (a uniform prior), exact;
 * - an always-valid p-value from the rate's confidence sequence (rateSequence.ts), for results read
 *   with sequential=true.
 */

/** One arm: n users, x of whom had the outcome. */
export interface Counts {
  n: number;
  x: number;
}

/** Two-sided pooled z-test of pT − pC: the z statistic (null when both arms are all-0 or all-1) and its p-value. */
export function pooledZTest(control: Counts, treatment: Counts): { z: number | null; se: number | null; pValue: number } {
  const pooled = (control.x + treatment.x) / (control.n + treatment.n);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / control.n + 1 / treatment.n));
  const difference = treatment.x / treatment.n - control.x / control.n;
  if (!(se > 0)) return { z: null, se: null, pValue: 1 };
  const z = difference / se;
  return { z, se, pValue: Math.min(1, 2 * normalCdf(-Math.abs(z))) };
}

const logChoose = (n: number, k: number) => -Math.log(n + 1) - betaln(n - k + 1, k + 1);

/**
 * Fisher's exact test of the 2×2 table, two-sided: the sum of the probabilities (hypergeometric, the
 * margins fixed) of every table no more likely than the one observed.
 */
export function fisherExactTest(control: Counts, treatment: Counts): number {
  const m = control.x + treatment.x;
  const N = control.n + treatment.n;
  const logP = (k: number) => logChoose(treatment.n, k) + logChoose(control.n, m - k) - logChoose(N, m);
  const observed = logP(treatment.x);
  let total = 0;
  for (let k = Math.max(0, m - control.n); k <= Math.min(treatment.n, m); k++) {
    const lp = logP(k);
    if (lp <= observed + 1e-7) total += Math.exp(lp);
  }
  return Math.min(1, total);
}

/** Below this smallest expected cell count the normal approximation of the pooled test is not trusted: Fisher's exact test decides. */
const MIN_EXPECTED = 5;

/** The smallest expected count of the 2×2 table under "no difference". */
function smallestExpected(control: Counts, treatment: Counts): number {
  const N = control.n + treatment.n;
  const m = control.x + treatment.x;
  return (Math.min(control.n, treatment.n) * Math.min(m, N - m)) / N;
}

/** The two-sided p of "no difference" at the edge: Fisher's exact test for small tables, else the pooled z-test. */
export function edgeTest(control: Counts, treatment: Counts): { method: 'fisher_exact' | 'pooled_z'; se: number | null; pValue: number } {
  const z = pooledZTest(control, treatment);
  if (smallestExpected(control, treatment) < MIN_EXPECTED) return { method: 'fisher_exact', se: z.se, pValue: fisherExactTest(control, treatment) };
  return { method: 'pooled_z', se: z.se, pValue: z.pValue };
}

/** Wilson's score interval of one proportion at two-sided level 1 − α. */
function wilsonInterval(c: Counts, alpha: number): [number, number] {
  const z = normalQuantile(1 - alpha / 2);
  const p = c.x / c.n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * c.n)) / (1 + z2 / c.n);
  const half = (z / (1 + z2 / c.n)) * Math.sqrt((p * (1 - p)) / c.n + z2 / (4 * c.n * c.n));
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/** Newcombe's hybrid score interval of pT − pC (method 10). */
export function newcombeInterval(control: Counts, treatment: Counts, alpha: number): [number, number] {
  const pC = control.x / control.n;
  const pT = treatment.x / treatment.n;
  const [lC, uC] = wilsonInterval(control, alpha);
  const [lT, uT] = wilsonInterval(treatment, alpha);
  const d = pT - pC;
  const lower = d - Math.sqrt((pT - lT) ** 2 + (uC - pC) ** 2);
  const upper = d + Math.sqrt((uT - pT) ** 2 + (pC - lC) ** 2);
  return [Math.max(-1, lower), Math.min(1, upper)];
}

/** Beyond this many terms the posteriors are near-normal and the normal approximation is used. */
const MAX_TERMS = 200_000;

/** Σ_{i<aB} B(aA+i, bA+bB) / ((bB+i) B(1+i, bB) B(aA, bA)) = P(X_B > X_A) for X ~ Beta(a, b) (Evan Miller's formula). */
function sumForm(aA: number, bA: number, aB: number, bB: number): number {
  let total = 0;
  const base = betaln(aA, bA);
  for (let i = 0; i < aB; i++) total += Math.exp(betaln(aA + i, bA + bB) - Math.log(bB + i) - betaln(1 + i, bB) - base);
  return total;
}

/**
 * P(pT > pC) for pT ~ Beta(1 + xT, 1 + nT − xT) and pC ~ Beta(1 + xC, 1 + nC − xC), exact: the sum
 * over whichever of the four parameters is smallest (by the symmetries p > q ⇔ 1 − q > 1 − p and
 * P(p > q) = 1 − P(q > p)), or the normal approximation when even that is huge.
 */
export function betaChanceToWin(control: Counts, treatment: Counts): number {
  const aC = 1 + control.x;
  const bC = 1 + control.n - control.x;
  const aT = 1 + treatment.x;
  const bT = 1 + treatment.n - treatment.x;
  const fewest = Math.min(aC, bC, aT, bT);
  let p: number;
  if (fewest > MAX_TERMS) {
    const mean = (a: number, b: number) => a / (a + b);
    const variance = (a: number, b: number) => (a * b) / ((a + b) ** 2 * (a + b + 1));
    p = normalCdf((mean(aT, bT) - mean(aC, bC)) / Math.sqrt(variance(aT, bT) + variance(aC, bC)));
  } else if (fewest === aT) p = sumForm(aC, bC, aT, bT);
  else if (fewest === aC) p = 1 - sumForm(aT, bT, aC, bC);
  else if (fewest === bC) p = sumForm(bT, aT, bC, aC);
  else p = 1 - sumForm(bC, aC, bT, aT);
  return Math.min(1, Math.max(0, p));
}

/**
 * The always-valid p-value of "no difference" from the rates' sequence: the smallest α at which the
 * interval of the difference excludes 0 (found by bisection on ln α; the intervals are nested in α).
 */
export function rateSequencePValue(control: Counts, treatment: Counts): number {
  const excludes = (alpha: number) => {
    const [lo, hi] = rateDifference({ n: control.n, sum: control.x }, { n: treatment.n, sum: treatment.x }, alpha).ci;
    return lo > 0 || hi < 0;
  };
  if (!excludes(1 - 1e-12)) return 1;
  let lo = Math.log(1e-300);
  let hi = Math.log(1 - 1e-12);
  if (excludes(Math.exp(lo))) return 0;
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (excludes(Math.exp(mid))) hi = mid;
    else lo = mid;
  }
  return Math.exp(hi);
}
