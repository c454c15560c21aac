import { urlFilters, type Filters } from './urlFilters.js';

export { isoToUtcLocal, utcLocalToIso } from './urlFilters.js';

/** The run list's filters, kept in the page's query string under `GET /runs`'s own names. */
const RUN_FILTERS = urlFilters(['prompt_id', 'experiment_id', 'variant', 'external_user_id', 'status', 'since', 'until'] as const);
export type FilterKey = (typeof RUN_FILTERS.keys)[number];
export type RunFilters = Filters<FilterKey>;

export const filtersFromSearch = RUN_FILTERS.fromSearch;
export const searchFromFilters = RUN_FILTERS.toSearch;

/** The API path of one page of runs. */
export function runsPath(filters: RunFilters, cursor: string | null = null, limit = 50): string {
  return RUN_FILTERS.pagePath('/runs', filters, cursor, limit);
}
