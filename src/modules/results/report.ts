import { nanoToUsd } from '../../providers/prices.js';
import type { ExperimentView } from '../experiments/experiments.schemas.js';
import {
  compareToControl,
  DEFAULT_ALPHA,
  holmAdjust,
  minimumDetectableEffect,
  primaryPValue,
  sampleRatioMismatch,
  verdictFor,
  type Comparison,
  type FrequentistResult,
} from './stats/index.js';
import type { JoinedAgg, MetricAgg, RunAgg } from './results.repo.js';
import type { ComparisonView, ExperimentResults, MetricView } from './results.schemas.js';
import { METRIC_KINDS, type MetricKindName } from './metricKinds.js';
import { buildTimeseries, countMismatchedUsers, EMPTY_AGG } from './timeseries.js';

export interface ResultsOptions {
  sequential: boolean;
  prior: 'flat' | 'proper';
}

/** Everything the report needs, already aggregated in SQL; the assembly below is pure. */
export interface ResultsData {
  experiment: ExperimentView;
  generatedAt: string;
  exposuresByDay: ReadonlyArray<{ variant: string; day: string; n: number }>;
  runs: readonly RunAgg[];
  latency: ReadonlyMap<string, { p50: number | null; p95: number | null }>;
  /** Per event_type (in SQL order), per variant. */
  events: ReadonlyMap<string, ReadonlyMap<string, MetricAgg>>;
  /** Per variant, the event_type checked against assignments: the primary metric's, else the widest. */
  joined: ReadonlyMap<string, ReadonlyMap<string, JoinedAgg>>;
  labels: ReadonlyArray<{ event_type: string; variant: string; label: string; n: number }>;
  /** Users with any success per variant; only needed (and given) without a primary metric. */
  successfulUsersAny: ReadonlyMap<string, number> | null;
  unattributedOutcomes: number;
}

/** Power used for the minimum detectable effect (the usual 80%). */
const MDE_POWER = 0.8;

const finite = (x: number): number | null => (Number.isFinite(x) ? x : null);
const ratio = (num: number, den: number): number | null => (den > 0 ? finite(num / den) : null);

interface MetricDef {
  eventType: string;
  kind: MetricKindName;
  primary: boolean;
}

/** Every kind each event type carries (success_rate when any outcome has is_success, …); the primary first even if unseen. */
function metricDefs(events: ResultsData['events'], primary: ExperimentView['primary_metric']): MetricDef[] {
  const defs: MetricDef[] = [];
  for (const [eventType, perVariant] of events) {
    const aggs = [...perVariant.values()];
    for (const kind of Object.keys(METRIC_KINDS) as MetricKindName[]) {
      if (aggs.some((a) => METRIC_KINDS[kind].present(a))) defs.push({ eventType, kind, primary: false });
    }
  }
  if (primary === null) return defs;
  const rest = defs.filter((d) => !(d.eventType === primary.event_type && d.kind === primary.kind));
  return [{ eventType: primary.event_type, kind: primary.kind, primary: true }, ...rest];
}

const testView = (t: FrequentistResult) => ({ lift: t.lift, se: t.se, ci: t.ci, p_value: t.pValue, df: t.df });

function comparisonView(variant: string, control: string, c: Comparison, adjusted: number | null): ComparisonView {
  // "control a" reads well; a control variant keyed "control" should not read "control control".
  const controlName = control === 'control' ? 'control' : `control ${control}`;
  const { verdict, text } = verdictFor(c, adjusted, DEFAULT_ALPHA, { variant, control: controlName });
  return {
    variant,
    control,
    absolute: testView(c.absolute),
    relative: testView(c.relative),
    p_value_adjusted: adjusted,
    bayes: { chance_to_win: c.bayes.chanceToWin, ci: c.bayes.ci },
    ...(c.sequential ? { sequential: { ci: c.sequential.ci, p_value: c.sequential.pValue } } : {}),
    enough_data: c.enoughData,
    ...(c.reason !== undefined ? { reason: c.reason } : {}),
    verdict,
    verdict_text: text,
  };
}

/** Assembles the results document (design.md §7) from SQL aggregates and the statistics engine. */
export function buildReport(data: ResultsData, options: ResultsOptions): ExperimentResults {
  const { experiment: e } = data;
  const keys = e.variants.map((v) => v.key);
  const exposures = new Map<string, number>();
  for (const row of data.exposuresByDay) exposures.set(row.variant, (exposures.get(row.variant) ?? 0) + row.n);
  const usersOf = (key: string) => exposures.get(key) ?? 0;

  const labels = new Map<string, Record<string, number>>();
  for (const row of data.labels) {
    const k = `${row.event_type}\u0000${row.variant}`;
    labels.set(k, { ...labels.get(k), [row.label]: row.n });
  }

  // Compare first, then Holm-adjust across every variant × metric, then word the verdicts.
  const defs = metricDefs(data.events, e.primary_metric);
  const raw = defs.map((def) => {
    const perVariant = data.events.get(def.eventType) ?? new Map<string, MetricAgg>();
    const suffs = new Map(keys.map((k) => [k, METRIC_KINDS[def.kind].suff(usersOf(k), perVariant.get(k) ?? EMPTY_AGG)]));
    const comparisons = keys
      .filter((k) => k !== e.control)
      .map((k) => ({
        key: k,
        c: compareToControl(METRIC_KINDS[def.kind].stats, suffs.get(e.control)!, suffs.get(k)!, { prior: options.prior, sequential: options.sequential }),
      }));
    return { def, perVariant, suffs, comparisons };
  });
  const adjusted = holmAdjust(raw.flatMap((m) => m.comparisons.map(({ c }) => primaryPValue(c))));
  let next = 0;

  const metrics: MetricView[] = raw.map(({ def, perVariant, suffs, comparisons }) => ({
    event_type: def.eventType,
    kind: def.kind,
    primary: def.primary,
    variants: keys.map((k) => {
      const s = suffs.get(k)!;
      return {
        key: k,
        users: usersOf(k),
        users_with_event: (perVariant.get(k) ?? EMPTY_AGG).users_with_event,
        value: ratio(s.sum, s.n),
        n: s.n,
        sum: finite(s.sum),
        sum_squares: finite(s.sumSquares),
        labels: labels.get(`${def.eventType}\u0000${k}`) ?? {},
      };
    }),
    comparisons: comparisons.map(({ key, c }) => comparisonView(key, e.control, c, adjusted[next++] ?? null)),
  }));

  const primaryDef = raw.find((m) => m.def.primary);
  // The smallest treatment arm that can be compared at all (≥ 2 users) bounds what the comparisons can detect.
  const treatmentNs = keys
    .filter((k) => k !== e.control)
    .map(usersOf)
    .filter((n) => n >= 2);
  const primary =
    primaryDef === undefined
      ? null
      : {
          event_type: primaryDef.def.eventType,
          kind: primaryDef.def.kind,
          mde_relative:
            treatmentNs.length === 0
              ? null
              : minimumDetectableEffect(METRIC_KINDS[primaryDef.def.kind].stats, primaryDef.suffs.get(e.control)!, Math.min(...treatmentNs), {
                  power: MDE_POWER,
                }),
        };

  const successful = (k: string): number =>
    primaryDef !== undefined ? (primaryDef.perVariant.get(k) ?? EMPTY_AGG).successes : (data.successfulUsersAny?.get(k) ?? 0);
  const runs = new Map(data.runs.map((r) => [r.variant, r]));
  const variants = e.variants.map((v) => {
    const r = runs.get(v.key);
    const cost = r?.cost_nano_usd ?? 0;
    const latency = data.latency.get(v.key);
    return {
      key: v.key,
      version: v.version,
      weight: v.weight,
      users: usersOf(v.key),
      runs: r?.runs ?? 0,
      errored_runs: r?.errored ?? 0,
      latency_ms: { p50: latency?.p50 ?? null, p95: latency?.p95 ?? null },
      tokens: { prompt: r?.prompt_tokens ?? 0, completion: r?.completion_tokens ?? 0, total: r?.total_tokens ?? 0 },
      cost_usd: {
        total: nanoToUsd(cost),
        per_run: r && r.runs > 0 ? nanoToUsd(Math.round(cost / r.runs)) : null,
        per_successful_user: successful(v.key) > 0 ? nanoToUsd(Math.round(cost / successful(v.key))) : null,
      },
    };
  });

  const srm = sampleRatioMismatch(
    keys.map(usersOf),
    e.variants.map((v) => v.weight),
  );
  const primaryJoined = e.primary_metric === null ? undefined : data.joined.get(e.primary_metric.event_type);
  return {
    experiment_id: e.experiment_id,
    prompt_id: e.prompt_id,
    status: e.status,
    control: e.control,
    primary_metric: e.primary_metric,
    generated_at: data.generatedAt,
    options: { sequential: options.sequential, prior: options.prior, alpha: DEFAULT_ALPHA },
    variants,
    metrics,
    primary,
    health: {
      srm: { chi_square: srm.chiSquare, df: srm.df, p_value: srm.pValue, checked: srm.checked, flagged: srm.flagged },
      users_in_multiple_variants: countMismatchedUsers([...data.joined.values()].flatMap((perVariant) => [...perVariant.values()])),
      unattributed_outcomes: data.unattributedOutcomes,
    },
    timeseries: buildTimeseries(
      keys,
      data.exposuresByDay,
      e.primary_metric === null ? null : { kind: e.primary_metric.kind, perVariant: primaryJoined ?? new Map() },
    ),
  };
}
