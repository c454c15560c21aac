import { InvalidArgumentError, type Command } from 'commander';
import { resultsToCsv } from '../modules/results/results.csv.js';
import type { ExperimentResults } from '../modules/results/results.schemas.js';
import { withApi } from './api/connect.js';
import { jsonOutput } from './output.js';
import { dash, fixed, metricValue, pct, pValue, range, relPct, usd } from '../lib/numbers.js';
import { formatTable } from './table.js';

type Format = 'table' | 'json' | 'csv';

/** The p column of each section's table, named for the p-value the verdicts read (verdict_p_kind). */
const P_COLUMNS = {
  goal: (sequential: boolean) => (sequential ? 'p_seq_holm' : 'p_holm'),
  guardrail: () => 'p_worse',
  exploratory: (sequential: boolean) => (sequential ? 'p_seq' : 'p'),
} as const;

/** The readable report the CLI prints; every number comes from the same document the API answers. */
export function formatResults(r: ExperimentResults): string {
  const out: string[] = [];
  const primaryName = r.primary?.name ?? 'none';
  out.push(`Experiment ${r.experiment_id} on prompt ${r.prompt_id} (${r.status}); control ${r.control}; primary metric ${primaryName}`);
  out.push(`Options: prior ${r.options.prior}, sequential ${r.options.sequential ? 'yes' : 'no'}, alpha ${r.options.alpha}; generated ${r.generated_at}`);

  out.push(
    '',
    formatTable(
      r.variants.map((v) => ({
        variant: v.key,
        version: v.version,
        weight: pct(v.weight),
        users: v.users,
        runs: v.runs,
        errors: v.errored_runs + v.render_failures, // failed runs and calls that failed to render (422)
        p50_ms: v.latency_ms.p50,
        p95_ms: v.latency_ms.p95,
        tokens: v.tokens.total,
        cost_usd: usd(v.cost_usd.total),
        usd_per_run: usd(v.cost_usd.per_run),
        usd_per_success: usd(v.cost_usd.per_successful_user),
      })),
    ),
  );

  const sequential = r.options.sequential;
  const table = (metrics: ExperimentResults['metrics'], section: 'goal' | 'guardrail' | 'exploratory') =>
    formatTable(
      metrics.flatMap((m) =>
        m.variants.map((v) => {
          const c = m.comparisons.find((x) => x.variant === v.key);
          const row: Record<string, string | number> = {
            metric: `${m.name}${m.primary ? '*' : ''}`,
            better: m.direction,
            variant: v.key,
            users: v.users,
            with_data: v.users_with_event,
            value: metricValue(m.kind, v.value),
          };
          if (m.cuped?.applied) row.adjusted = v.adjusted_value === undefined ? dash : metricValue(m.kind, v.adjusted_value);
          row.lift = c ? pct(c.relative.lift, true) : '(control)';
          if (m.cuped?.applied) row.lift_unadjusted = c?.unadjusted ? pct(c.unadjusted.relative.lift, true) : '';
          row.ci_95 = c ? range(c.relative.ci, relPct) : '';
          if (sequential) row.seq_ci_95 = c ? range(c.sequential?.ci, relPct) : '';
          // One p per row: the one the verdict reads, under a name that says what it is.
          row[P_COLUMNS[section](sequential)] = c ? pValue(c.verdict_p_value) : '';
          row.chance_to_win = c ? pct(c.bayes.chance_to_win) : '';
          row.credible_95 = c ? range(c.bayes.ci, relPct) : '';
          row.verdict = c ? c.verdict : '';
          return row;
        }),
      ),
    );

  if (r.decisions.length > 0) out.push('', 'Decisions:', ...r.decisions.map((d) => `  ${d.variant}: ${d.decision.toUpperCase()}: ${d.reason}`));
  out.push(
    '',
    sequential
      ? 'Goal metrics (* primary; p_seq_holm: sequential p-value, Holm-adjusted across goal metrics x variants):'
      : 'Goal metrics (* primary; p_holm: Holm-adjusted across goal metrics x variants):',
  );
  out.push(r.metrics.length > 0 ? table(r.metrics, 'goal') : '  none declared (declare metrics on the experiment; see --explore for undeclared event types)');
  if (r.guardrails.length > 0) out.push('', 'Guardrails (p_worse: one-sided test for "got worse", unadjusted):', table(r.guardrails, 'guardrail'));
  if (r.options.explore) {
    out.push('', `Exploratory (undeclared event types; ${sequential ? 'p_seq: sequential p-value, ' : ''}unadjusted, never part of a decision):`);
    out.push(r.exploratory.length > 0 ? table(r.exploratory, 'exploratory') : '  no outcomes of undeclared event types');
  }
  out.push(
    `(lift and intervals are relative to control; chance_to_win is the chance of being better in the metric's direction and credible_95 the Bayesian interval, both under the ${r.options.prior} prior)`,
  );

  const adjustments = [...r.metrics, ...r.guardrails].flatMap((m) => {
    const lines: string[] = [];
    if (m.cap)
      lines.push(`  ${m.name}: per-user values capped at ${fixed(m.cap.value)}${m.cap.percentile === null ? '' : ` (percentile ${m.cap.percentile})`}`);
    if (m.cuped) {
      lines.push(
        m.cuped.applied
          ? `  ${m.name}: CUPED theta ${fixed(m.cuped.theta)}, variance reduced by ${pct(m.cuped.variance_reduction)} (${m.cuped.users_with_pre_data} users with data in the ${m.cuped.days} days before exposure)`
          : `  ${m.name}: CUPED not applied (${m.cuped.users_with_pre_data} users with data in the ${m.cuped.days} days before exposure, no variation to use)`,
      );
    }
    return lines;
  });
  if (adjustments.length > 0) out.push('', 'Adjustments:', ...adjustments);

  // Labels belong to an event type, not to a metric kind: list each event type once.
  const labelled = new Map<string, string>();
  for (const m of [...r.metrics, ...r.guardrails, ...r.exploratory]) {
    if (m.event_type === null) continue;
    const parts = m.variants
      .filter((v) => Object.keys(v.labels).length > 0)
      .map(
        (v) =>
          `${v.key}: ${Object.entries(v.labels)
            .map(([label, n]) => `${label}=${n}`)
            .join(' ')}`,
      );
    if (parts.length > 0 && !labelled.has(m.event_type)) labelled.set(m.event_type, `  ${m.event_type}  ${parts.join('; ')}`);
  }
  if (labelled.size > 0) out.push('', 'Labels (outcomes per label):', ...labelled.values());

  if (r.primary) {
    const mde =
      r.primary.mde_relative === null
        ? 'not computable yet (needs users, variation and a non-zero control)'
        : `±${(r.primary.mde_relative * 100).toFixed(1)}% relative`;
    out.push('', `Minimum detectable effect on ${r.primary.name} at the current sample (80% power): ${mde}; target ${pct(r.options.target_mde)}`);
  }

  const srm = r.health.srm;
  const srmText = !srm.checked
    ? 'not checked yet (needs 8 users per variant)'
    : srm.flagged
      ? 'MISMATCH: exposures do not follow the weights; do not trust these results'
      : 'ok';
  out.push('', `Sample ratio: chi-square ${fixed(srm.chi_square)} (df ${srm.df}), p ${pValue(srm.p_value)}: ${srmText}`);
  out.push(`Users seen in more than one variant: ${r.health.users_in_multiple_variants}`);
  out.push(`Unattributed outcomes of the prompt during the experiment: ${r.health.unattributed_outcomes}`);

  const verdicts = [...r.metrics, ...r.guardrails, ...r.exploratory].flatMap((m) => m.comparisons.map((c) => `  ${m.name} (${m.role}): ${c.verdict_text}`));
  if (verdicts.length > 0) out.push('', 'Verdicts:', ...verdicts);
  return `${out.join('\n')}\n`;
}

export function renderResults(report: ExperimentResults, format: Format): string {
  if (format === 'json') return `${JSON.stringify(report, null, 2)}\n`;
  if (format === 'csv') return resultsToCsv(report);
  return formatResults(report);
}

function oneOf<T extends string>(allowed: readonly T[]) {
  return (value: string): T => {
    if (!(allowed as readonly string[]).includes(value)) throw new InvalidArgumentError(`expected one of ${allowed.join(', ')}`);
    return value as T;
  };
}

export function addResultsCommand(experiments: Command): void {
  experiments
    .command('results <experiment_id>')
    .description('results and statistics of an experiment (as GET /experiments/{id}/results)')
    .option('--project <name>', 'project name (local database only, default "default"; over HTTP the API key\'s project)')
    .option('--sequential', 'always-valid intervals and p-values (safe to look every day)', false)
    .option('--explore', 'also report undeclared event types (unadjusted, never part of a decision)')
    .option('--no-explore', 'leave undeclared event types out even when no goal metric is declared')
    .option('--cuped', "adjust declared outcome metrics with users' pre-exposure values")
    .option('--no-cuped', 'turn CUPED off even when the experiment has it on')
    .option('--prior <prior>', 'Bayesian prior on the relative lift: flat | proper', oneOf(['flat', 'proper'] as const), 'flat')
    .option('--format <format>', 'table | json | csv (default: json with --output json, else table)', oneOf(['table', 'json', 'csv'] as const))
    .action((id: string, opts: { project?: string; sequential: boolean; prior: 'flat' | 'proper'; format?: Format; explore?: boolean; cuped?: boolean }) =>
      withApi(opts, async (api) => {
        // The JSON document of GET /experiments/{id}/results; the table and the CSV are made from it here.
        const report = await api.request<ExperimentResults>('GET', `/experiments/${encodeURIComponent(id)}/results`, {
          query: { sequential: opts.sequential, prior: opts.prior, explore: opts.explore, cuped: opts.cuped },
        });
        process.stdout.write(renderResults(report, opts.format ?? (jsonOutput() ? 'json' : 'table')));
      }),
    );
}
