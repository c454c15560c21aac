import type { ExperimentResults } from './results.schemas.js';

/**
 * Results as CSV (RFC 4180, CRLF), one row per metric × variant. The control's row leaves the
 * comparison columns empty. Numbers are written exactly as in the JSON (JavaScript's shortest
 * round-trip form), so both agree to the last digit; null is an empty cell.
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
] as const;

type Cell = string | number | boolean | null | undefined;

/** Text a spreadsheet would run as a formula gets a leading apostrophe (OWASP CSV injection advice). */
function neutralise(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

function cell(value: Cell): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function resultsToCsv(report: ExperimentResults): string {
  const lines = [CSV_COLUMNS.join(',')];
  for (const m of report.metrics) {
    for (const v of m.variants) {
      const c = m.comparisons.find((x) => x.variant === v.key);
      const row: Cell[] = [
        neutralise(report.experiment_id),
        neutralise(m.event_type),
        m.kind,
        m.primary,
        neutralise(v.key),
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
      ];
      lines.push(row.map(cell).join(','));
    }
  }
  return `${lines.join('\r\n')}\r\n`;
}
