import { escapeFormula } from '../../lib/csvFormulas.js';
import type { ExperimentResults } from './results.schemas.js';

/**
 * Results as CSV (RFC 4180, CRLF), one row per metric × variant: goal metrics, then guardrails,
 * then exploratory metrics (the `role` column says which). The control's row leaves the comparison
 * and decision columns empty. Numbers are written exactly as in the JSON (JavaScript's shortest
 * round-trip form), so both agree to the last digit; null is an empty cell. Columns added after
 * the first release go at the end, so readers that count columns keep working.
 */
export const CSV_COLUMNS = [
  'experiment_id',
  'event_type',
  'kind',
  'primary',
  'variant',
  'is_control',
  'users',
  'users_with_event',
  'value',
  'n',
  'sum',
  'sum_squares',
  'abs_lift',
  'abs_se',
  'abs_ci_low',
  'abs_ci_high',
  'abs_p_value',
  'abs_df',
  'rel_lift',
  'rel_se',
  'rel_ci_low',
  'rel_ci_high',
  'rel_p_value',
  'rel_df',
  'p_value_adjusted',
  'chance_to_win',
  'bayes_ci_low',
  'bayes_ci_high',
  'seq_ci_low',
  'seq_ci_high',
  'seq_p_value',
  'enough_data',
  'reason',
  'verdict',
  'verdict_text',
  'labels',
  'name',
  'source',
  'role',
  'direction',
  'cap',
  'adjusted_value',
  'cuped_theta',
  'cuped_variance_reduction',
  'unadj_rel_lift',
  'unadj_rel_ci_low',
  'unadj_rel_ci_high',
  'unadj_rel_p_value',
  'p_value_worse',
  'decision',
  'decision_reason',
  'verdict_p_value',
  'verdict_p_kind',
] as const;

type Cell = string | number | boolean | null | undefined;

function cell(value: Cell): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function resultsToCsv(report: ExperimentResults): string {
  const lines = [CSV_COLUMNS.join(',')];
  for (const m of [...report.metrics, ...report.guardrails, ...report.exploratory]) {
    for (const v of m.variants) {
      const c = m.comparisons.find((x) => x.variant === v.key);
      const d = report.decisions.find((x) => x.variant === v.key);
      const row: Cell[] = [
        escapeFormula(report.experiment_id),
        m.event_type === null ? null : escapeFormula(m.event_type),
        m.kind,
        m.primary,
        escapeFormula(v.key),
        v.key === report.control,
        v.users,
        v.users_with_event,
        v.value,
        v.n,
        v.sum,
        v.sum_squares,
        c?.absolute.lift,
        c?.absolute.se,
        c?.absolute.ci?.[0],
        c?.absolute.ci?.[1],
        c?.absolute.p_value,
        c?.absolute.df,
        c?.relative.lift,
        c?.relative.se,
        c?.relative.ci?.[0],
        c?.relative.ci?.[1],
        c?.relative.p_value,
        c?.relative.df,
        c?.p_value_adjusted,
        c?.bayes.chance_to_win,
        c?.bayes.ci?.[0],
        c?.bayes.ci?.[1],
        c?.sequential?.ci?.[0],
        c?.sequential?.ci?.[1],
        c?.sequential?.p_value,
        c?.enough_data,
        c?.reason,
        c?.verdict,
        c?.verdict_text,
        JSON.stringify(v.labels),
        escapeFormula(m.name),
        m.source,
        m.role,
        m.direction,
        m.cap?.value,
        v.adjusted_value,
        m.cuped?.theta,
        m.cuped?.variance_reduction,
        c?.unadjusted?.relative.lift,
        c?.unadjusted?.relative.ci?.[0],
        c?.unadjusted?.relative.ci?.[1],
        c?.unadjusted?.relative.p_value,
        c?.p_value_worse,
        d?.decision,
        d?.reason,
        c?.verdict_p_value,
        c?.verdict_p_kind,
      ];
      lines.push(row.map(cell).join(','));
    }
  }
  return `${lines.join('\r\n')}\r\n`;
}
