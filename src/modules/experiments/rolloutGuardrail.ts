import { isRateSums, moments, rateDifference, sequentialDifference, type Suff } from '../../stats/index.js';

/**
 * One rollout guardrail tested, pure (docs/rollouts-and-bandits.md, "The statistics, in plain
 * words"): the always-valid interval of candidate − production, whether it shows harm (worse) and
 * whether it shows safety (the worse bound inside the guardrail's tolerance). A figure that cannot
 * be computed is never safe: the check holds on it.
 */

/** The confidence sequence's tuning N* (as the results' sequential option): tightest around this many users. */
const TUNING = 5000;

/**
 * Below this many users in either arm the asymptotic interval of an unbounded metric (latency, cost)
 * is not read: the check holds. Simulated coverage (bench/intervalCoverage.ts) holds from here on for
 * log-normal latencies; no interval can be valid at every n for an unbounded mean (see the docs).
 */
const MIN_USERS_ASYMPTOTIC = 30;

/** Kinds whose per-user value lies in [0, 1]: they get the rate's non-asymptotic sequence. */
const RATE_KINDS: ReadonlySet<string> = new Set(['success_rate', 'error_rate', 'schema_valid_rate', 'pass_rate']);
const LATENCY_KINDS: ReadonlySet<string> = new Set(['latency_ms', 'ttft_ms']);
const isRateKind = (kind: string) => RATE_KINDS.has(kind);

/** How much worse than production a guardrail may be and still count as no material harm: max(absolute, relative × |production|). */
export interface Tolerance {
  absolute?: number;
  relative?: number;
}

/**
 * Defaults (docs/rollouts-and-bandits.md, "Tolerances"). Rates: 0.2 absolute (20 percentage
 * points): the always-valid interval of a difference of two rates near 5% is about ±0.19 wide at 75
 * users per arm, so a tighter default would hold every rollout of a few hundred users until it
 * paused; the rollback still fires on any harm the data show. Latency: 10%, at least 100 ms.
 * Anything else: 10%.
 */
export function defaultTolerance(kind: string): Tolerance {
  if (isRateKind(kind)) return { absolute: 0.2 };
  if (LATENCY_KINDS.has(kind)) return { absolute: 100, relative: 0.1 };
  return { relative: 0.1 };
}

function toleranceFor(t: Tolerance, controlMean: number): number {
  return Math.max(t.absolute ?? 0, (t.relative ?? 0) * Math.abs(controlMean));
}

/** One guardrail as the check reads it: each variant's sums over its users, its kind, and which way is better. */
export interface GuardrailSums {
  name: string;
  kind: string;
  direction: 'higher' | 'lower';
  control: Suff;
  candidate: Suff;
}

/** One guardrail as the check saw it: kept in the timeline and shown by the console and the CLI. */
export interface GuardrailFigure {
  name: string;
  direction: 'higher' | 'lower';
  control: { users: number; value: number | null };
  candidate: { users: number; value: number | null };
  /** candidate − control, and its always-valid interval; null while it cannot be computed. */
  difference: number | null;
  interval: [number, number] | null;
  /** How much worse the candidate may be and still pass (in the metric's unit); null without production's value. */
  tolerance: number | null;
  /** The whole interval on the worse side: harm shown. */
  worse: boolean;
  /** The interval's worse bound inside the tolerance: no material harm shown. */
  safe: boolean;
  /** Both arms have users with a value. */
  has_data: boolean;
  /** Why the figure is missing or not yet decisive, when it is. */
  note: string | null;
}

const finiteSuff = (s: Suff) => Number.isFinite(s.n) && Number.isFinite(s.sum) && Number.isFinite(s.sumSquares) && s.n >= 0;
const meanOf = (s: Suff) => (s.n > 0 && finiteSuff(s) ? s.sum / s.n : null);

/** Tests one guardrail at level `alpha` (its share of the rollout's α). */
export function testGuardrail(g: GuardrailSums, alpha: number, tolerance: Tolerance): GuardrailFigure {
  const control = meanOf(g.control);
  const candidate = meanOf(g.candidate);
  const hasData = control !== null && candidate !== null;
  const base = {
    name: g.name,
    direction: g.direction,
    control: { users: g.control.n, value: control },
    candidate: { users: g.candidate.n, value: candidate },
    has_data: hasData,
  };
  const missing = (note: string): GuardrailFigure => ({ ...base, difference: null, interval: null, tolerance: null, worse: false, safe: false, note });
  if (!finiteSuff(g.control) || !finiteSuff(g.candidate)) return missing('its sums are not finite numbers');
  if (!hasData) return missing('no data yet in both variants');
  let interval: [number, number];
  if (isRateKind(g.kind)) {
    if (!isRateSums(g.control) || !isRateSums(g.candidate)) return missing('its values are not rates between 0 and 1');
    interval = rateDifference(g.control, g.candidate, alpha).ci;
  } else {
    const fewest = Math.min(g.control.n, g.candidate.n);
    if (fewest < MIN_USERS_ASYMPTOTIC) return missing(`${fewest} of the ${MIN_USERS_ASYMPTOTIC} users per variant its interval needs`);
    const c = moments('mean', g.control);
    const t = moments('mean', g.candidate);
    const d = c === null || t === null ? null : sequentialDifference({ n: g.control.n, ...c }, { n: g.candidate.n, ...t }, alpha, TUNING);
    if (d === null) return missing('no variation in its values: no interval');
    interval = d.ci;
  }
  const limit = toleranceFor(tolerance, control);
  const [lo, hi] = interval;
  const worse = g.direction === 'lower' ? lo > 0 : hi < 0;
  const safe = g.direction === 'lower' ? hi <= limit : lo >= -limit;
  const ok = [lo, hi, limit].every(Number.isFinite);
  return {
    ...base,
    difference: candidate - control,
    interval: ok ? interval : null,
    tolerance: Number.isFinite(limit) ? limit : null,
    worse: ok && worse,
    safe: ok && safe,
    note: ok ? (safe || worse ? null : 'not yet shown within its tolerance') : 'its interval is not a finite number',
  };
}
