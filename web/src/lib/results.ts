import { DASH, metricValue, pct, pValue, range, relPct } from './numbers.js';
import type { Comparison, ExperimentResults, MetricResult, TimeseriesPoint } from './types.js';

// ---- The toggles, in the page's query string and passed on to the API as they are ----

export interface Toggles {
  sequential: boolean;
  /** null: the experiment's own setting (the API's default). */
  cuped: boolean | null;
  prior: 'flat' | 'proper';
  /** Undeclared event types as exploratory metrics; null: the API's default (on only when no goal metric is declared). */
  explore: boolean | null;
}

export const DEFAULT_TOGGLES: Toggles = { sequential: false, cuped: null, prior: 'flat', explore: null };

const bool = (v: string | null): boolean | null => (v === 'true' ? true : v === 'false' ? false : null);

/** The toggles a page URL's query string asks for (unknown values are the defaults). */
export function parseToggles(search: string): Toggles {
  const q = new URLSearchParams(search);
  return {
    sequential: bool(q.get('sequential')) ?? false,
    cuped: bool(q.get('cuped')),
    prior: q.get('prior') === 'proper' ? 'proper' : 'flat',
    explore: bool(q.get('explore')),
  };
}

/** The query string for both the page and the API: only what differs from the defaults. */
export function togglesQuery(t: Toggles): string {
  const q = new URLSearchParams();
  if (t.sequential) q.set('sequential', 'true');
  if (t.cuped !== null) q.set('cuped', String(t.cuped));
  if (t.prior === 'proper') q.set('prior', 'proper');
  if (t.explore !== null) q.set('explore', String(t.explore));
  return q.toString();
}

export function resultsPath(experimentId: string, t: Toggles, format?: 'csv'): string {
  const q = new URLSearchParams(togglesQuery(t));
  if (format !== undefined) q.set('format', format);
  const query = q.toString();
  return `/experiments/${encodeURIComponent(experimentId)}/results${query === '' ? '' : `?${query}`}`;
}

/** The filename the API's Content-Disposition names, else one made the same way. */
export function csvFilename(contentDisposition: string | null, experimentId: string): string {
  const named = /filename="([^"]+)"/.exec(contentDisposition ?? '')?.[1];
  return named ?? `${experimentId.replace(/[^A-Za-z0-9_.-]/g, '_')}-results.csv`;
}

// ---- The scorecard ----

export type Tone = 'good' | 'bad' | 'inconclusive';

/** A lift's colour: the verdict already reads the interval in the metric's direction. */
export function toneOf(verdict: Comparison['verdict'] | undefined): Tone {
  return verdict === 'better' ? 'good' : verdict === 'worse' ? 'bad' : 'inconclusive';
}

/** The interval drawn and printed (the always-valid one when sequential is on), as [low, high]. */
function shownInterval(c: Comparison, sequential: boolean): [number, number] | null {
  const ci = sequential ? (c.sequential?.ci ?? null) : c.relative.ci;
  return ci === null || ci.length < 2 ? null : [ci[0]!, ci[1]!];
}

export type Section = 'goal' | 'guardrail' | 'exploratory';

/** What the one p-value a verdict reads is, as a column header says it (the verdict's sentence names it too). */
const P_LABELS: Record<Comparison['verdict_p_kind'], string> = {
  holm_adjusted: 'p (Holm-adjusted)',
  sequential_holm_adjusted: 'p (sequential, Holm-adjusted)',
  one_sided_worse: 'p (worse, one-sided)',
  unadjusted: 'p (unadjusted)',
  sequential_unadjusted: 'p (sequential, unadjusted)',
};

/** A section's p column header: what its comparisons' verdicts read, else what they would read with these options. */
export function pLabel(metrics: readonly MetricResult[], section: Section, sequential: boolean): string {
  const kind = metrics.flatMap((m) => m.comparisons)[0]?.verdict_p_kind;
  if (kind !== undefined) return P_LABELS[kind];
  if (section === 'guardrail') return P_LABELS.one_sided_worse;
  if (section === 'goal') return P_LABELS[sequential ? 'sequential_holm_adjusted' : 'holm_adjusted'];
  return P_LABELS[sequential ? 'sequential_unadjusted' : 'unadjusted'];
}

const VERDICT_LABELS: Record<Comparison['verdict'], string> = {
  better: 'better',
  worse: 'worse',
  no_detectable_difference: 'no detectable difference',
  not_enough_data: 'not enough data',
};

export interface ScoreRow {
  metric: string;
  variant: string;
  control: boolean;
  users: number;
  value: string;
  /** numerator / denominator: the successes or the sum of values, over the users the metric is over. */
  ratio: string;
  adjusted: string | null;
  lift: string;
  interval: [number, number] | null;
  intervalText: string;
  chanceToWin: string;
  /** The Bayesian interval on the lift under the prior asked for, as the API computed it. */
  credible: string;
  p: string;
  verdict: string;
  tone: Tone;
  verdictText: string;
}

/** One row per variant of a metric, formatted as the CLI formats them. */
export function scoreRows(m: MetricResult, sequential: boolean): ScoreRow[] {
  return m.variants.map((v) => {
    const c = m.comparisons.find((x) => x.variant === v.key);
    const interval = c ? shownInterval(c, sequential) : null;
    return {
      metric: m.name,
      variant: v.key,
      control: c === undefined,
      users: v.users,
      value: metricValue(m.kind, v.value),
      ratio: `${metricValue(m.kind, v.sum)} / ${v.n}`,
      adjusted: m.cuped?.applied ? (v.adjusted_value === undefined ? DASH : metricValue(m.kind, v.adjusted_value)) : null,
      lift: c ? pct(c.relative.lift, true) : '(control)',
      interval,
      intervalText: c ? range(interval, relPct) : '',
      chanceToWin: c ? pct(c.bayes.chance_to_win) : '',
      credible: c ? range(c.bayes.ci, relPct) : '',
      p: c ? pValue(c.verdict_p_value) : '',
      verdict: c ? VERDICT_LABELS[c.verdict] : '',
      tone: toneOf(c?.verdict),
      verdictText: c?.verdict_text ?? '',
    };
  });
}

// ---- The interval bar: an SVG around zero ----

/** The axis every bar of one table shares: symmetric around 0, wide enough for every interval (at most ±200%). */
export function barDomain(intervals: ReadonlyArray<readonly [number, number] | null>, max = 2): number {
  const widest = Math.max(0.01, ...intervals.flatMap((ci) => (ci ? [Math.abs(ci[0]), Math.abs(ci[1])] : [])));
  return Math.min(max, widest * 1.1);
}

export interface BarGeometry {
  zero: number;
  x0: number;
  x1: number;
  point: number | null;
  clippedLow: boolean;
  clippedHigh: boolean;
}

/** Where a lift and its interval go on a bar `width` wide whose ends are −domain and +domain. */
export function barGeometry(ci: readonly [number, number], lift: number | null, domain: number, width: number): BarGeometry {
  // Rounded to a hundredth of a pixel: finer than a screen draws, and the same on every machine.
  const x = (v: number) => Math.round(((Math.max(-domain, Math.min(domain, v)) + domain) / (2 * domain)) * width * 100) / 100;
  return {
    zero: x(0),
    x0: x(ci[0]),
    x1: x(ci[1]),
    point: lift === null ? null : x(lift),
    clippedLow: ci[0] < -domain,
    clippedHigh: ci[1] > domain,
  };
}

// ---- The charts' series ----

export type Granularity = ExperimentResults['timeseries_granularity'];

export interface ChartData {
  granularity: Granularity;
  /** Unix seconds of each period's start (UTC midnight, or the hour), as uPlot takes its x values. */
  x: number[];
  /** Each period as people read it: "2026-03-01", or "2026-03-01 14:00" for an hour (UTC). */
  periods: string[];
  keys: string[];
  /** Each variant's share of the users exposed so far, in %. */
  share: Array<Array<number | null>>;
  /** The configured split, in %, per variant. */
  expected: number[];
  /** The primary metric over the users exposed so far, per variant (null: not yet defined). */
  value: Array<Array<number | null>>;
  hasValue: boolean;
}

/** A period's start (unix seconds) as people read it: the UTC day, with the hour when the series is hourly. */
export function periodLabel(seconds: number, granularity: Granularity): string {
  const iso = new Date(seconds * 1000).toISOString();
  return granularity === 'hour' ? `${iso.slice(0, 10)} ${iso.slice(11, 16)}` : iso.slice(0, 10);
}

export function chartData(points: readonly TimeseriesPoint[], variants: ExperimentResults['variants'], granularity: Granularity): ChartData {
  const keys = variants.map((v) => v.key);
  const totals = points.map((p) => keys.reduce((sum, k) => sum + (p.variants[k]?.cumulative_exposures ?? 0), 0));
  const share = keys.map((k) => points.map((p, i) => (totals[i]! > 0 ? ((p.variants[k]?.cumulative_exposures ?? 0) / totals[i]!) * 100 : null)));
  const value = keys.map((k) => points.map((p) => p.variants[k]?.cumulative_value ?? null));
  const x = points.map((p) => Date.parse(p.start) / 1000);
  return {
    granularity,
    x,
    periods: x.map((s) => periodLabel(s, granularity)),
    keys,
    share,
    expected: variants.map((v) => v.weight * 100),
    value,
    hasValue: value.some((s) => s.some((y) => y !== null)),
  };
}

/** A decision as a badge's words. */
export const DECISION_LABELS: Record<ExperimentResults['decisions'][number]['decision'], string> = {
  ship: 'Ship',
  rollback: 'Roll back',
  keep_running: 'Keep running',
  unhealthy: 'Unhealthy',
};
