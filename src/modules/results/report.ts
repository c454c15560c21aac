import { nanoToUsd } from '../../providers/prices.js';
import { DEFAULT_ALPHA, minimumDetectableEffect, sampleRatioMismatch, usersNeeded } from '../../stats/index.js';
import { decide } from './decision.js';
import type { Measured, ResultsData, ResultsOptions } from './measured.js';
import { compareMetric, holmOverGoals, metricView, powerBasis, type Compared, type ViewContext } from './metricReport.js';
import type { DecisionView, ExperimentResults } from './results.schemas.js';
import { buildTimeseries, countMismatchedUsers } from './timeseries.js';

/** Power used for the minimum detectable effect and the users still needed (the usual 80%). */
const MDE_POWER = 0.8;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** Exposures per day since the experiment started (at least an hour counted, so the first minutes do not read as a flood). */
function exposuresPerDay(users: number, startedAt: string | null, until: string): number | null {
  if (startedAt === null || users === 0) return null;
  const elapsed = Math.max(HOUR_MS, Date.parse(until) - Date.parse(startedAt));
  return Number.isFinite(elapsed) ? users / (elapsed / DAY_MS) : null;
}

/** Assembles the results document from SQL aggregates and the statistics engine (pure). */
export function buildReport(data: ResultsData, options: ResultsOptions): ExperimentResults {
  const { experiment: e } = data;
  const keys = e.variants.map((v) => v.key);
  const { usersOf, all: allUsers } = data.exposures;

  const labels = new Map<string, Record<string, number>>();
  for (const row of data.labels) {
    const k = `${row.event_type}\u0000${row.variant}`;
    labels.set(k, { ...labels.get(k), [row.label]: row.n });
  }
  const ctx: ViewContext = { control: e.control, usersOf, labels, cupedDays: e.cuped_days };

  // Goal metrics: the primary first, then the secondaries in declaration order.
  const compare = (m: Measured) => compareMetric(m, keys, e.control, options);
  const byRole = (role: string) => data.measured.filter((m) => m.def.role === role).map(compare);
  const goals = [...byRole('primary'), ...byRole('secondary')];
  const guardrails = byRole('guardrail');
  const adjusted = holmOverGoals(goals);
  const metrics = goals.map((g, i) => metricView(g, ctx, adjusted[i]));
  const guardrailViews = guardrails.map((g) => metricView(g, ctx));

  // A bandit's weights move: its exposures are checked period by period against the weights then in force.
  const srm =
    data.bandit?.srm ??
    sampleRatioMismatchOf(
      keys.map(usersOf),
      e.variants.map((v) => v.weight),
    );
  const health = {
    srm,
    users_in_multiple_variants: countMismatchedUsers([...data.joined.values()].flatMap((perVariant) => [...perVariant.values()])),
    unattributed_outcomes: data.unattributedOutcomes,
  };

  const primary = goals.find((g) => g.m.def.role === 'primary');
  const primaryView = primary === undefined ? undefined : metrics[0];
  const basis = primary === undefined ? undefined : powerBasis(primary, e.control);
  const weightOf = (k: string) => e.variants.find((v) => v.key === k)!.weight;
  const renderFailedShare = (k: string) => {
    const users = usersOf(k);
    return users === 0 ? 0 : (data.runs.find((r) => r.variant === k)?.render_failed_users ?? 0) / users;
  };
  const decisions = keys
    .filter((k) => k !== e.control)
    .map((key): DecisionView => {
      const comparison = primaryView?.comparisons.find((c) => c.variant === key);
      const shares = { control: weightOf(e.control), treatment: weightOf(key) };
      const needed = basis === undefined ? null : usersNeeded(basis.kind, basis.control, e.target_mde, shares, { power: MDE_POWER });
      return decide({
        variant: key,
        health: { srmFlagged: srm.flagged, srmPValue: srm.p_value, multipleVariantShare: allUsers > 0 ? health.users_in_multiple_variants / allUsers : 0 },
        renderFailed: { share: renderFailedShare(key), controlShare: renderFailedShare(e.control) },
        primary:
          primary === undefined || comparison === undefined ? null : { name: primary.m.def.name, verdict: comparison.verdict, text: comparison.verdict_text },
        worseGuardrails: guardrailViews.flatMap((g) =>
          g.comparisons.filter((c) => c.variant === key && c.verdict === 'worse').map((c) => ({ name: g.name, text: c.verdict_text })),
        ),
        uncheckedGuardrails: guardrailViews.flatMap((g) =>
          g.comparisons.filter((c) => c.variant === key && c.verdict === 'not_enough_data').map((c) => ({ name: g.name, text: c.verdict_text })),
        ),
        sample: { needed, users: allUsers, perDay: exposuresPerDay(allUsers, e.started_at, e.stopped_at ?? data.generatedAt), targetMde: e.target_mde },
      });
    });

  return {
    experiment_id: e.experiment_id,
    prompt_id: e.prompt_id,
    status: e.status,
    control: e.control,
    primary_metric: e.primary_metric,
    decisions,
    generated_at: data.generatedAt,
    options: {
      sequential: options.sequential,
      prior: options.prior,
      alpha: DEFAULT_ALPHA,
      explore: options.explore,
      cuped: options.cuped,
      target_mde: e.target_mde,
    },
    variants: variantSummaries(data, usersOf),
    metrics,
    guardrails: guardrailViews,
    exploratory: data.explored.map((m) => metricView(compare(m), ctx)),
    primary: primary === undefined ? null : primarySummary(primary, keys, e.control),
    health,
    timeseries_granularity: data.granularity,
    timeseries: buildTimeseries(keys, data.granularity, data.exposuresByPeriod, primaryChart(data, primary)),
    ...(data.bandit === null ? {} : { bandit: data.bandit }),
  };
}

/** The sample-ratio check against the configured weights, as the report writes it. */
function sampleRatioMismatchOf(observed: number[], weights: number[]): ExperimentResults['health']['srm'] {
  const srm = sampleRatioMismatch(observed, weights);
  return { chi_square: srm.chiSquare, df: srm.df, p_value: srm.pValue, checked: srm.checked, flagged: srm.flagged };
}

/** The primary metric and the smallest relative effect it can detect now: the smallest comparable treatment arm (≥ 2 users) bounds it. */
function primarySummary(primary: Compared, keys: readonly string[], control: string): ExperimentResults['primary'] {
  const { def } = primary.m;
  const treatmentNs = keys
    .filter((k) => k !== control)
    .map((k) => primary.suffs.get(k)!.n)
    .filter((n) => n >= 2);
  const basis = powerBasis(primary, control);
  return {
    name: def.name,
    event_type: def.event_type,
    kind: def.kind,
    mde_relative: treatmentNs.length === 0 ? null : minimumDetectableEffect(basis.kind, basis.control, Math.min(...treatmentNs), { power: MDE_POWER }),
  };
}

/** The chart over time follows the primary metric when it reads outcomes (runs metrics have no series over time). */
function primaryChart(data: ResultsData, primary: Compared | undefined) {
  const def = primary?.m.def;
  if (def?.source !== 'outcomes' || def.event_type === null) return null;
  return { kind: def.kind as 'success_rate' | 'mean', perVariant: data.joined.get(def.event_type) ?? new Map() };
}

function variantSummaries(data: ResultsData, usersOf: (variant: string) => number): ExperimentResults['variants'] {
  const runs = new Map(data.runs.map((r) => [r.variant, r]));
  return data.experiment.variants.map((v) => {
    const r = runs.get(v.key);
    const cost = r?.cost_nano_usd ?? 0;
    const latency = data.latency.get(v.key);
    const successful = data.successfulUsers.get(v.key) ?? 0;
    return {
      key: v.key,
      version: v.version,
      weight: v.weight,
      users: usersOf(v.key),
      runs: r?.runs ?? 0,
      errored_runs: r?.errored ?? 0,
      render_failures: r?.render_failures ?? 0,
      latency_ms: { p50: latency?.p50 ?? null, p95: latency?.p95 ?? null },
      tokens: { prompt: r?.prompt_tokens ?? 0, completion: r?.completion_tokens ?? 0, total: r?.total_tokens ?? 0 },
      cost_usd: {
        total: nanoToUsd(cost),
        per_run: r && r.runs > 0 ? nanoToUsd(Math.round(cost / r.runs)) : null,
        per_successful_user: successful > 0 ? nanoToUsd(Math.round(cost / successful)) : null,
      },
    };
  });
}
