import { useState, type FormEvent } from 'react';
import type { ApiError } from '../../lib/errors';
import { isoToUtcLocal, utcLocalToIso, type Filters } from '../../lib/urlFilters.js';
import { FieldError } from '../parts';

interface Choice {
  value: string;
  label?: string;
}

/** One filter control: free text (with suggestions), a choice ("any" first), or a UTC time. */
export type FilterField<K extends string> =
  | { key: K; label: string; kind: 'text'; suggestions?: readonly Choice[] }
  | { key: K; label: string; kind: 'select'; options: readonly Choice[] }
  | { key: K; label: string; kind: 'time' };

/**
 * A list's filters as a form: applied on submit (one request, one URL change), not on every
 * keystroke. Times are typed and shown in UTC, as the API and the rest of the console use. The
 * API's objection to a filter appears under its control (ids are `filter-<API name>`).
 */
export function UrlFilterForm<K extends string>({
  name,
  fields,
  filters,
  error,
  timeHelp,
  onApply,
}: {
  /** What is filtered, for the form's accessible name ("Filter runs"). */
  name: string;
  fields: ReadonlyArray<FilterField<K>>;
  filters: Filters<K>;
  error: ApiError | null;
  timeHelp?: string;
  onApply: (filters: Filters<K>) => void;
}) {
  const times = fields.filter((f) => f.kind === 'time').map((f) => f.key);
  const [draft, setDraft] = useState<Filters<K>>(() => {
    const shown: Filters<K> = { ...filters };
    for (const key of times) shown[key] = isoToUtcLocal(filters[key]);
    return shown;
  });
  const set = (key: K, value: string) => setDraft({ ...draft, [key]: value });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const applied: Filters<K> = { ...draft };
    for (const key of times) applied[key] = utcLocalToIso(draft[key] ?? '') ?? undefined;
    onApply(applied);
  };
  const control = (key: K) => ({
    id: `filter-${key}`,
    value: draft[key] ?? '',
    'aria-invalid': error?.forField(key) !== undefined,
  });

  return (
    <form className="filters" onSubmit={submit} aria-label={name}>
      <div className="filter-grid">
        {fields.map((field) => (
          <div key={field.key}>
            <label htmlFor={`filter-${field.key}`}>{field.label}</label>
            {field.kind === 'text' ? (
              <>
                <input
                  {...control(field.key)}
                  type="text"
                  list={field.suggestions === undefined ? undefined : `filter-${field.key}-suggestions`}
                  onChange={(e) => set(field.key, e.target.value)}
                  autoComplete="off"
                />
                {field.suggestions !== undefined && (
                  <datalist id={`filter-${field.key}-suggestions`}>
                    {field.suggestions.map((s) => (
                      <option key={s.value} value={s.value} label={s.label} />
                    ))}
                  </datalist>
                )}
              </>
            ) : field.kind === 'select' ? (
              <select {...control(field.key)} onChange={(e) => set(field.key, e.target.value)}>
                <option value="">any</option>
                {field.options.map((o) => (
                  <option key={o.value} value={o.value}>
                    {o.label ?? o.value}
                  </option>
                ))}
              </select>
            ) : (
              <input
                {...control(field.key)}
                type="datetime-local"
                step={1}
                onChange={(e) => set(field.key, e.target.value)}
                aria-describedby={timeHelp === undefined ? undefined : 'filter-time-help'}
              />
            )}
            <FieldError message={error?.forField(field.key)} />
          </div>
        ))}
      </div>
      {timeHelp !== undefined && (
        <p id="filter-time-help" className="help">
          {timeHelp}
        </p>
      )}
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
