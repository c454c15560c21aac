import type { ApiError } from '../../lib/errors';
import type { FilterKey, RunFilters } from '../../lib/runFilters.js';
import { UrlFilterForm, type FilterField } from '../filters/UrlFilterForm';

/** The filters with a control of their own (the API's other messages are shown above the table). */
export const FILTER_FIELDS: readonly string[] = ['prompt_id', 'experiment_id', 'variant', 'external_user_id', 'status', 'since', 'until'];

/** The run filters; prompt ids are suggested, but any text is taken. */
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
  const fields: Array<FilterField<FilterKey>> = [
    { key: 'prompt_id', label: 'Prompt', kind: 'text', suggestions: promptIds.map((value) => ({ value })) },
    { key: 'experiment_id', label: 'Experiment', kind: 'text' },
    { key: 'variant', label: 'Variant', kind: 'text' },
    { key: 'external_user_id', label: 'User (external_user_id)', kind: 'text' },
    { key: 'status', label: 'Status', kind: 'select', options: [{ value: 'ok' }, { value: 'error' }, { value: 'cancelled' }] },
    { key: 'since', label: 'Since (UTC)', kind: 'time' },
    { key: 'until', label: 'Until (UTC, not included)', kind: 'time' },
  ];
  return (
    <UrlFilterForm
      name="Filter runs"
      fields={fields}
      filters={filters}
      error={error}
      timeHelp="Times are UTC, like every time in the console; a run counts when it was made."
      onApply={onApply}
    />
  );
}
