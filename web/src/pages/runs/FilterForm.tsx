import { useState, type FormEvent } from 'react';
import type { ApiError } from '../../lib/errors';
import { isoToUtcLocal, utcLocalToIso, type FilterKey, type RunFilters } from '../../lib/runFilters.js';
import { FieldError } from '../parts';

/** The filters with a control of their own (the API's other messages are shown above the table). */
export const FILTER_FIELDS: readonly string[] = ['prompt_id', 'experiment_id', 'variant', 'external_user_id', 'status', 'since', 'until'];

const TEXT_FIELDS: Array<[FilterKey, string]> = [
  ['prompt_id', 'Prompt'],
  ['experiment_id', 'Experiment'],
  ['variant', 'Variant'],
  ['external_user_id', 'User (external_user_id)'],
];

/**
 * The run filters as a form: applied on submit (one request, one URL change), not on every
 * keystroke. Times are typed and shown in UTC, as the API and the rest of the console use.
 */
export function FilterForm({
  filters,
  error,
  promptIds,
  onApply,
}: {
  filters: RunFilters;
  error: ApiError | null;
  promptIds: string[];
  onApply: (filters: RunFilters) => void;
}) {
  const [draft, setDraft] = useState<RunFilters>({ ...filters, since: isoToUtcLocal(filters.since), until: isoToUtcLocal(filters.until) });
  const set = (key: FilterKey, value: string) => setDraft({ ...draft, [key]: value });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply({ ...draft, since: utcLocalToIso(draft.since ?? '') ?? undefined, until: utcLocalToIso(draft.until ?? '') ?? undefined });
  };
  const control = (key: FilterKey) => ({
    id: `filter-${key}`,
    value: draft[key] ?? '',
    'aria-invalid': error?.forField(key) !== undefined,
  });

  return (
    <form className="filters" onSubmit={submit} aria-label="Filter runs">
      <div className="filter-grid">
        {TEXT_FIELDS.map(([key, label]) => (
          <div key={key}>
            <label htmlFor={`filter-${key}`}>{label}</label>
            <input
              {...control(key)}
              type="text"
              list={key === 'prompt_id' ? 'filter-prompt-ids' : undefined}
              onChange={(e) => set(key, e.target.value)}
              autoComplete="off"
            />
            <FieldError message={error?.forField(key)} />
          </div>
        ))}
        <div>
          <label htmlFor="filter-status">Status</label>
          <select {...control('status')} onChange={(e) => set('status', e.target.value)}>
            <option value="">any</option>
            <option value="ok">ok</option>
            <option value="error">error</option>
          </select>
          <FieldError message={error?.forField('status')} />
        </div>
        <div>
          <label htmlFor="filter-since">Since (UTC)</label>
          <input {...control('since')} type="datetime-local" step={1} onChange={(e) => set('since', e.target.value)} aria-describedby="filter-time-help" />
          <FieldError message={error?.forField('since')} />
        </div>
        <div>
          <label htmlFor="filter-until">Until (UTC, not included)</label>
          <input {...control('until')} type="datetime-local" step={1} onChange={(e) => set('until', e.target.value)} aria-describedby="filter-time-help" />
          <FieldError message={error?.forField('until')} />
        </div>
      </div>
      <datalist id="filter-prompt-ids">
        {promptIds.map((id) => (
          <option key={id} value={id} />
        ))}
      </datalist>
      <p id="filter-time-help" className="help">
        Times are UTC, like every time in the console; a run counts when it was made.
      </p>
      <div className="pair">
        <button type="submit">Apply filters</button>
        <button
          type="button"
          onClick={() => {
            setDraft({});
            onApply({});
          }}
        >
          Clear filters
        </button>
      </div>
    </form>
  );
}
