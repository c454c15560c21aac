import { useQuery } from '@tanstack/react-query';
import { api } from '../../lib/api';
import type { ApiError } from '../../lib/errors';
import type { EvaluatorKind, SettingsForm } from '../../lib/evaluators';
import { sortedLabels } from '../../lib/format';
import type { Page, Prompt } from '../../lib/types';
import { FieldError } from '../parts';

interface Props {
  /** Prefixes the controls' ids: the page may hold two of these forms. */
  idPrefix: string;
  kind: EvaluatorKind;
  form: SettingsForm;
  onChange: (change: Partial<SettingsForm>) => void;
  error: ApiError | null;
  /** A problem found in the page before sending (the schema's JSON). */
  schemaProblem: string | null;
}

/** The settings of one kind of evaluator, each with the API's objection to it right below. */
export function SettingsFields({ idPrefix, kind, form, onChange, error, schemaProblem }: Props) {
  const id = (name: string) => `${idPrefix}-${name}`;
  const tick = (name: 'case_sensitive' | 'normalize_whitespace' | 'relative', label: string) => (
    <>
      <label className="inline">
        <input type="checkbox" checked={form[name]} onChange={(e) => onChange({ [name]: e.target.checked })} /> {label}
      </label>
      <FieldError message={error?.forField(name)} />
    </>
  );
  const line = (name: 'value' | 'pattern' | 'flags' | 'tolerance' | 'min_chars' | 'max_chars', label: string, inputMode?: 'decimal' | 'numeric') => (
    <>
      <label htmlFor={id(name)}>{label}</label>
      <input id={id(name)} value={form[name]} inputMode={inputMode} onChange={(e) => onChange({ [name]: e.target.value })} />
      <FieldError message={error?.forField(name)} />
    </>
  );
  switch (kind) {
    case 'exact_match':
      return (
        <>
          {tick('case_sensitive', 'Case-sensitive')}
          {tick('normalize_whitespace', 'Trim and collapse whitespace first')}
        </>
      );
    case 'contains':
      return (
        <>
          {line('value', "Text to find (empty: the item's expected text)")}
          {tick('case_sensitive', 'Case-sensitive')}
        </>
      );
    case 'regex':
      return (
        <>
          {line('pattern', 'Pattern (searched in the output; anchor with ^ and $ for the whole of it)')}
          {line('flags', 'Flags (any of i, m, s)')}
        </>
      );
    case 'json_schema':
      return (
        <>
          <label htmlFor={id('schema')}>JSON Schema (empty: valid JSON is enough)</label>
          <textarea id={id('schema')} rows={5} value={form.schema} onChange={(e) => onChange({ schema: e.target.value })} />
          <FieldError message={schemaProblem ?? error?.forField('schema')} />
        </>
      );
    case 'numeric':
      return (
        <>
          {line('tolerance', 'Tolerance (the largest difference that passes)', 'decimal')}
          {tick('relative', "Tolerance is a share of the expected number's size")}
        </>
      );
    case 'length':
      return (
        <>
          {line('min_chars', 'Fewest characters', 'numeric')}
          {line('max_chars', 'Most characters', 'numeric')}
        </>
      );
    case 'llm_judge':
      return <JudgeFields id={id} form={form} onChange={onChange} error={error} />;
  }
}

/** The judge: a prompt of this project, its version (by label or number), the scale and the rubric. */
function JudgeFields({ id, form, onChange, error }: { id: (name: string) => string; form: SettingsForm; onChange: Props['onChange']; error: ApiError | null }) {
  const prompts = useQuery({ queryKey: ['prompts'], queryFn: () => api<Page<Prompt>>('GET', '/prompts?limit=500') });
  const chosen = prompts.data?.data.find((p) => p.prompt_id === form.prompt_id);
  const latest = chosen?.latest_version ?? 0;
  return (
    <>
      <label htmlFor={id('prompt_id')}>Judge prompt</label>
      <select id={id('prompt_id')} value={form.prompt_id} onChange={(e) => onChange({ prompt_id: e.target.value, judge_version: '' })}>
        <option value="">Choose a prompt…</option>
        {(prompts.data?.data ?? []).map((p) => (
          <option key={p.prompt_id} value={p.prompt_id}>
            {p.prompt_id}
          </option>
        ))}
      </select>
      <FieldError message={error?.forField('prompt_id')} />
      <label htmlFor={id('judge-version')}>Judge prompt version</label>
      <select id={id('judge-version')} value={form.judge_version} onChange={(e) => onChange({ judge_version: e.target.value })}>
        <option value="">production, else the latest (the default)</option>
        {chosen !== undefined &&
          sortedLabels(chosen.labels)
            .filter(([label]) => label !== 'production')
            .map(([label, v]) => (
              <option key={label} value={`label:${label}`}>
                label {label} (now v{v})
              </option>
            ))}
        {Array.from({ length: latest }, (_, i) => latest - i).map((v) => (
          <option key={v} value={`version:${v}`}>
            v{v}
          </option>
        ))}
      </select>
      <FieldError message={error?.forField('label') ?? error?.forField('version')} />
      <label htmlFor={id('scale')}>Scale</label>
      <select id={id('scale')} value={form.scale} onChange={(e) => onChange({ scale: e.target.value as SettingsForm['scale'] })}>
        <option value="pass_fail">pass / fail</option>
        <option value="1-5">1 to 5</option>
      </select>
      <FieldError message={error?.forField('scale')} />
      <label htmlFor={id('rubric')}>Rubric (the judge prompt's {'{{rubric}}'} variable)</label>
      <textarea id={id('rubric')} rows={4} value={form.rubric} onChange={(e) => onChange({ rubric: e.target.value })} />
      <FieldError message={error?.forField('rubric')} />
    </>
  );
}
