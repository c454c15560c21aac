/**
 * The run list's filters, kept in the page's query string under the API's own names, so a filtered
 * view is a link and `GET /runs` gets the same parameters.
 */
const FILTER_KEYS = ['prompt_id', 'experiment_id', 'variant', 'external_user_id', 'status', 'since', 'until'] as const;
export type FilterKey = (typeof FILTER_KEYS)[number];
export type RunFilters = Partial<Record<FilterKey, string>>;

/** The filters a query string holds: known names only, blank values dropped, values trimmed. */
export function filtersFromSearch(search: string): RunFilters {
  const params = new URLSearchParams(search);
  const filters: RunFilters = {};
  for (const key of FILTER_KEYS) {
    const value = params.get(key)?.trim();
    if (value !== undefined && value !== '') filters[key] = value;
  }
  return filters;
}

/** The query string (without "?") for the filters, in a stable order; "" when none is set. */
export function searchFromFilters(filters: RunFilters): string {
  const params = new URLSearchParams();
  for (const key of FILTER_KEYS) {
    const value = filters[key]?.trim();
    if (value !== undefined && value !== '') params.set(key, value);
  }
  return params.toString();
}

/** The API path of one page of runs. */
export function runsPath(filters: RunFilters, cursor: string | null = null, limit = 50): string {
  const params = new URLSearchParams(searchFromFilters(filters));
  params.set('limit', String(limit));
  if (cursor !== null) params.set('cursor', cursor);
  return `/runs?${params.toString()}`;
}

const LOCAL = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(:\d{2}(\.\d{1,3})?)?$/;

/**
 * A `datetime-local` value read as UTC ("2026-03-01T12:30" → "2026-03-01T12:30:00Z"); "" → null;
 * anything else is passed on unchanged (the API checks dates: its 422 says what is wrong).
 */
export function utcLocalToIso(local: string): string | null {
  const value = local.trim();
  if (value === '') return null;
  const m = LOCAL.exec(value);
  if (m === null) return value;
  return `${m[1]}T${m[2]}${m[3] ?? ':00'}Z`;
}

/** An ISO date-time as a `datetime-local` value in UTC, seconds only when there are any; "" when unreadable. */
export function isoToUtcLocal(iso: string | undefined): string {
  if (iso === undefined || iso === '') return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const full = d.toISOString();
  return full.slice(17, 19) === '00' && full.slice(20, 23) === '000' ? full.slice(0, 16) : full.slice(0, 19);
}
