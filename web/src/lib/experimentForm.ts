import type { Direction, ExperimentStatus, MetricKind } from './types.js';

/**
 * The "New experiment" form as text fields, and the POST /experiments body it makes. What the form
 * cannot judge (a weight of 0, a version that does not exist, a second primary metric) is sent as
 * typed, so the API's 422 names the field and the console shows it next to the control.
 */
export interface VariantRow {
  key: string;
  version: string;
  weight: string;
}

export interface MetricRow {
  source: 'outcomes' | 'runs';
  event_type: string;
  kind: MetricKind;
  role: 'primary' | 'secondary' | 'guardrail';
  /** '' leaves the API's default: higher for outcomes, lower for runs. */
  direction: Direction | '';
}

export interface ExperimentForm {
  experiment_id: string;
  prompt_id: string;
  name: string;
  hypothesis: string;
  variants: VariantRow[];
  /**
   * The control's row in `variants`, by position: the control follows its row when its key is
   * renamed (a copy of the key would keep the old name, and the API would refuse it).
   */
  control: number;
  coverage: string;
  metrics: MetricRow[];
  target_mde: string;
  cuped: boolean;
  cuped_days: string;
}

export const OUTCOME_KINDS: readonly MetricKind[] = ['success_rate', 'mean'];
export const RUN_KINDS: readonly MetricKind[] = ['latency_ms', 'ttft_ms', 'cost_usd', 'error_rate', 'total_tokens', 'schema_valid_rate'];
export const ROLES = ['primary', 'secondary', 'guardrail'] as const;
export const STATUSES: readonly ExperimentStatus[] = ['running', 'paused', 'draft', 'stopped', 'rolled_back', 'shipped'];

export const newMetricRow = (role: MetricRow['role'] = 'secondary'): MetricRow => ({
  source: 'outcomes',
  event_type: '',
  kind: 'success_rate',
  role,
  direction: '',
});

/**
 * A new form for a prompt: control on the production version (else the oldest), the treatment on
 * the newest, 50/50, everyone covered, one primary success-rate metric, the API's defaults elsewhere.
 */
export function initialForm(promptId: string, versions: readonly number[], production: number | undefined): ExperimentForm {
  const newest = versions.length === 0 ? undefined : Math.max(...versions);
  const oldest = versions.length === 0 ? undefined : Math.min(...versions);
  const base = production ?? oldest;
  return {
    experiment_id: '',
    prompt_id: promptId,
    name: '',
    hypothesis: '',
    variants: [
      { key: 'control', version: base === undefined ? '' : String(base), weight: '1' },
      { key: 'treatment', version: newest === undefined ? '' : String(newest), weight: '1' },
    ],
    control: 0,
    coverage: '1',
    metrics: [newMetricRow('primary')],
    target_mde: '0.1',
    cuped: false,
    cuped_days: '14',
  };
}

/** A number as typed: a finite number when it reads as one, else the text itself (the API says why). */
export function numberOrText(text: string): number | string {
  const trimmed = text.trim();
  const n = Number(trimmed);
  return trimmed !== '' && Number.isFinite(n) ? n : trimmed;
}

/** The form without variant row `i`: the control keeps pointing at its row (the first row when its own is removed). */
export function withoutVariant(form: ExperimentForm, i: number): ExperimentForm {
  const control = i === form.control ? 0 : i < form.control ? form.control - 1 : form.control;
  return { ...form, variants: form.variants.filter((_, j) => j !== i), control };
}

/** Switching a metric's source keeps its kind only where the new source has that kind. */
export function withSource(row: MetricRow, source: MetricRow['source']): MetricRow {
  const kinds = source === 'runs' ? RUN_KINDS : OUTCOME_KINDS;
  return { ...row, source, kind: kinds.includes(row.kind) ? row.kind : kinds[0]!, event_type: source === 'runs' ? '' : row.event_type };
}

/** The POST /experiments body: empty optional fields left out, so the API's defaults apply. */
export function requestBody(form: ExperimentForm): Record<string, unknown> {
  const body: Record<string, unknown> = { prompt_id: form.prompt_id };
  const text = (field: 'experiment_id' | 'name' | 'hypothesis') => {
    if (form[field].trim() !== '') body[field] = field === 'experiment_id' ? form[field].trim() : form[field];
  };
  text('experiment_id');
  text('name');
  text('hypothesis');
  body.variants = form.variants.map((v) => ({
    key: v.key.trim(),
    version: numberOrText(v.version),
    ...(v.weight.trim() === '' ? {} : { weight: numberOrText(v.weight) }),
  }));
  const control = form.variants[form.control]?.key.trim() ?? '';
  if (control !== '') body.control = control;
  if (form.coverage.trim() !== '') body.coverage = numberOrText(form.coverage);
  body.metrics = form.metrics.map((m) => ({
    ...(m.source === 'runs' ? { source: 'runs' } : m.event_type.trim() === '' ? {} : { event_type: m.event_type.trim() }),
    kind: m.kind,
    role: m.role,
    ...(m.direction === '' ? {} : { direction: m.direction }),
  }));
  if (form.target_mde.trim() !== '') body.target_mde = numberOrText(form.target_mde);
  if (form.cuped) {
    body.cuped = true;
    if (form.cuped_days.trim() !== '') body.cuped_days = numberOrText(form.cuped_days);
  }
  return body;
}

/** The request fields the form has a control for: the API's other messages go at the top. */
export function formFields(form: ExperimentForm): string[] {
  const fields = ['experiment_id', 'prompt_id', 'name', 'hypothesis', 'control', 'coverage', 'target_mde', 'cuped', 'cuped_days'];
  const variants = form.variants.flatMap((_, i) => [`variants.${i}.key`, `variants.${i}.version`, `variants.${i}.weight`]);
  const metrics = form.metrics.flatMap((_, i) => [`metrics.${i}.event_type`, `metrics.${i}.kind`, `metrics.${i}.role`, `metrics.${i}.direction`]);
  return [...fields, ...variants, ...metrics];
}

/** Weights as the API stores them: each over their sum (shown next to the rows as the split). */
export function normalisedWeights(rows: readonly VariantRow[]): Array<number | null> {
  const weights = rows.map((r) => {
    const w = r.weight.trim() === '' ? 1 : Number(r.weight);
    return Number.isFinite(w) && w > 0 ? w : null;
  });
  if (weights.some((w) => w === null)) return weights.map(() => null);
  const total = (weights as number[]).reduce((a, b) => a + b, 0);
  return (weights as number[]).map((w) => w / total);
}
