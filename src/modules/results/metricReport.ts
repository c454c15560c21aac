import {
  compareToControl,
  cupedAdjust,
  DEFAULT_ALPHA,
  guardrailVerdict,
  holmAdjust,
  oneSidedWorsePValue,
  primaryPValue,
  verdictFor,
  type Comparison,
  type CupedResult,
  type FrequentistResult,
  type Suff,
} from '../../stats/index.js';
import type { Measured, ResultsOptions } from './measured.js';
import type { ComparisonView, MetricView } from './results.schemas.js';

/**
 * Per-metric statistics and their three sections (design: goal metrics corrected together,
 * guardrails one-sided on their own, exploratory unadjusted and never part of a decision).
 */

const finite = (x: number): number | null => (Number.isFinite(x) ? x : null);
const ratio = (num: number, den: number): number | null => (den > 0 ? finite(num / den) : null);
const testView = (t: FrequentistResult) => ({ lift: t.lift, se: t.se, ci: t.ci, p_value: t.pValue, df: t.df });

/** A metric's comparisons of every treatment with control, CUPED-adjusted when CUPED applies. */
export interface Compared {
  m: Measured;
  suffs: ReadonlyMap<string, Suff>;
  cuped: CupedResult | null;
  comparisons: Array<{ key: string; c: Comparison; unadjusted: Comparison | null }>;
}

/**
 * Values that cannot be negative cannot fall by more than 100%: every kind but an outcome mean
 * (whose numeric values may be negative) has its relative lower bounds clipped at −1.
 */
const nonNegative = (m: Measured) => m.def.kind !== 'mean';

/** Kinds whose per-user values are shares in [0, 1]: without variation in an arm they are still compared (as proportions at the edge). */
const UNIT_INTERVAL_KINDS: ReadonlySet<string> = new Set(['success_rate', 'error_rate', 'schema_valid_rate', 'pass_rate']);

export function compareMetric(m: Measured, keys: readonly string[], control: string, options: ResultsOptions): Compared {
  const stats = m.def.kind === 'success_rate' ? 'proportion' : 'mean';
  const suffs = new Map(keys.map((k) => [k, suffOf(m, k)]));
  const cuped =
    m.cuped === null
      ? null
      : cupedAdjust(
          keys.map((k) => {
            const y = suffs.get(k)!;
            const x = m.cuped!.get(k)!;
            return { n: y.n, sumY: y.sum, sumY2: y.sumSquares, sumX: x.sum_x, sumX2: x.sum_x2, sumXY: x.sum_xy };
          }),
        );
  const adjusted = cuped?.adjusted ? new Map(keys.map((k, i) => [k, cuped.adjusted![i]!])) : null;
  const compareOptions = {
    prior: options.prior,
    sequential: options.sequential,
    nonNegative: nonNegative(m),
    unitInterval: UNIT_INTERVAL_KINDS.has(m.def.kind),
  };
  const comparisons = keys
    .filter((k) => k !== control)
    .map((key) => {
      const plain = compareToControl(stats, suffs.get(control)!, suffs.get(key)!, compareOptions);
      if (adjusted === null) return { key, c: plain, unadjusted: null };
      return { key, c: compareToControl('mean', adjusted.get(control)!, adjusted.get(key)!, compareOptions), unadjusted: plain };
    });
  return { m, suffs, cuped, comparisons };
}

/**
 * The control's statistics that power calculations (minimum detectable effect, users still needed)
 * should use: the CUPED-adjusted ones when CUPED applied, since the adjusted test is the one run.
 */
export function powerBasis(metric: Compared, control: string): { kind: 'proportion' | 'mean'; control: Suff } {
  const i = [...metric.suffs.keys()].indexOf(control);
  const adjusted = metric.cuped?.adjusted?.[i];
  if (adjusted !== undefined) return { kind: 'mean', control: adjusted };
  return { kind: metric.m.def.kind === 'success_rate' ? 'proportion' : 'mean', control: metric.suffs.get(control)! };
}

function suffOf(m: Measured, key: string): Suff {
  const v = m.perVariant.get(key);
  return v === undefined ? { n: 0, sum: 0, sumSquares: 0 } : { n: v.n, sum: v.sum, sumSquares: v.sumSquares };
}

/** The one-sided "got worse" p-value of a guardrail: on the relative lift, or the absolute one when the control's mean is 0. */
function worsePValue(c: Comparison, direction: 'higher' | 'lower'): number | null {
  const t = c.relative.se !== null ? c.relative : c.absolute;
  // Both arms all-0 (or all-1): the data show no difference at all, so no sign of harm.
  if (t.se === null) return c.enoughData && t.lift === 0 ? 1 : null;
  if (t.lift === null) return null;
  // Two proportions at the edge are tested with the pooled z-test: a normal, with no degrees of freedom.
  if (t.df === null) return c.enoughData ? oneSidedWorsePValue(t.lift, t.se, Number.POSITIVE_INFINITY, direction) : null;
  return oneSidedWorsePValue(t.lift, t.se, t.df, direction);
}

const controlName = (control: string) => (control === 'control' ? 'control' : `control ${control}`);

/** What the p-value a verdict reads is, by section: goals Holm-adjust theirs, guardrails test "worse" one-sided, exploratory adjust nothing. */
type VerdictPKind = ComparisonView['verdict_p_kind'];

/** The words a verdict sentence puts before its p, so that it names the p the tables show. */
const P_WORDS: Record<VerdictPKind, string> = {
  holm_adjusted: 'Holm-adjusted',
  sequential_holm_adjusted: 'sequential Holm-adjusted',
  one_sided_worse: 'one-sided',
  unadjusted: '',
  sequential_unadjusted: 'sequential',
};

/** The one p-value a comparison's verdict reads, and what it is. */
function verdictP(role: Measured['def']['role'], c: Comparison, adjustedP: number | null, pWorse: number | null | undefined) {
  const sequential = c.sequential !== undefined;
  if (pWorse !== undefined) return { value: pWorse, kind: 'one_sided_worse' as const };
  if (role === 'exploratory') return { value: primaryPValue(c), kind: sequential ? ('sequential_unadjusted' as const) : ('unadjusted' as const) };
  return { value: adjustedP, kind: sequential ? ('sequential_holm_adjusted' as const) : ('holm_adjusted' as const) };
}

function comparisonView(metric: Compared, { key, c, unadjusted }: Compared['comparisons'][number], control: string, adjustedP: number | null): ComparisonView {
  const { role, direction } = metric.m.def;
  const names = { variant: key, control: controlName(control) };
  const pWorse = role === 'guardrail' ? worsePValue(c, direction) : undefined;
  const p = verdictP(role, c, adjustedP, pWorse);
  const { verdict, text } =
    pWorse !== undefined ? guardrailVerdict(c, pWorse, DEFAULT_ALPHA, names) : verdictFor(c, adjustedP, DEFAULT_ALPHA, names, direction, P_WORDS[p.kind]);
  const chance = c.bayes.chanceToWin;
  return {
    variant: key,
    control,
    absolute: testView(c.absolute),
    relative: testView(c.relative),
    p_value_adjusted: adjustedP,
    ...(pWorse !== undefined ? { p_value_worse: pWorse } : {}),
    bayes: { chance_to_win: chance === null || direction === 'higher' ? chance : 1 - chance, ci: c.bayes.ci },
    ...(c.sequential ? { sequential: { ci: c.sequential.ci, p_value: c.sequential.pValue } } : {}),
    enough_data: c.enoughData,
    ...(c.reason !== undefined ? { reason: c.reason } : {}),
    verdict,
    verdict_text: role === 'exploratory' ? `${text} [exploratory: unadjusted, not part of any decision]` : text,
    ...(unadjusted !== null ? { unadjusted: { absolute: testView(unadjusted.absolute), relative: testView(unadjusted.relative) } } : {}),
    verdict_p_value: verdict === 'not_enough_data' ? null : p.value,
    verdict_p_kind: p.kind,
  };
}

/** What every metric view shares: the experiment's control, exposures, outcome labels and CUPED window. */
export interface ViewContext {
  control: string;
  usersOf: (variant: string) => number;
  labels: ReadonlyMap<string, Record<string, number>>;
  cupedDays: number;
}

/** The metric as the API shows it; `adjusted` holds the Holm-adjusted p of each comparison, in order (goal metrics only). */
export function metricView(metric: Compared, ctx: ViewContext, adjusted: ReadonlyArray<number | null> | null = null): MetricView {
  const { control, labels, cupedDays } = ctx;
  const { def, perVariant, cap, cuped: pre } = metric.m;
  const adjustedMeans = metric.cuped?.adjusted ?? null;
  return {
    name: def.name,
    source: def.source,
    event_type: def.event_type,
    ...(def.evaluator === undefined ? {} : { evaluator: def.evaluator }),
    kind: def.kind,
    role: def.role,
    direction: def.direction,
    primary: def.role === 'primary',
    cap: def.cap === null ? null : { value: cap, percentile: typeof def.cap === 'number' ? null : def.cap.percentile },
    cuped:
      pre === null
        ? null
        : {
            theta: metric.cuped?.theta ?? null,
            variance_reduction: metric.cuped?.varianceReduction ?? null,
            users_with_pre_data: [...pre.values()].reduce((n, s) => n + s.users_with_pre, 0),
            days: cupedDays,
            applied: adjustedMeans !== null,
          },
    variants: [...metric.suffs].map(([key, s], i) => {
      const adjustedSuff = adjustedMeans?.[i];
      const adjustedValue = adjustedSuff === undefined ? null : ratio(adjustedSuff.sum, adjustedSuff.n);
      return {
        key,
        users: ctx.usersOf(key),
        users_with_event: perVariant.get(key)?.usersWithData ?? 0,
        value: ratio(s.sum, s.n),
        ...(adjustedValue !== null ? { adjusted_value: adjustedValue } : {}),
        n: s.n,
        sum: finite(s.sum),
        sum_squares: finite(s.sumSquares),
        labels: (def.event_type !== null && labels.get(`${def.event_type}\u0000${key}`)) || {},
      };
    }),
    comparisons: metric.comparisons.map((c, i) => comparisonView(metric, c, control, adjusted?.[i] ?? null)),
  };
}

/** Holm's correction over the goal metrics × variants only: guardrails and exploratory metrics never take part. */
export function holmOverGoals(goals: readonly Compared[]): Array<Array<number | null>> {
  const flat = holmAdjust(goals.flatMap((g) => g.comparisons.map(({ c }) => primaryPValue(c))));
  let next = 0;
  return goals.map((g) => g.comparisons.map(() => flat[next++] ?? null));
}
