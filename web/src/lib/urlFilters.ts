/**
 * A list's filters kept in the page's query string under the API's own parameter names, so a
 * filtered view is a link and the list's API request gets the same parameters. Each list names
 * its keys once (`urlFilters([...])`); unknown names in the URL are ignored.
 */
export type Filters<K extends string> = Partial<Record<K, string>>;

export function urlFilters<K extends string>(keys: readonly K[]) {
  /** The filters a query string holds: known names only, blank values dropped, values trimmed. */
  const fromSearch = (search: string): Filters<K> => {
    const params = new URLSearchParams(search);
    const filters: Filters<K> = {};
    for (const key of keys) {
      const value = params.get(key)?.trim();
      if (value !== undefined && value !== '') filters[key] = value;
    }
    return filters;
  };
  /** The query string (without "?") for the filters, in a stable order; "" when none is set. */
  const toSearch = (filters: Filters<K>): string => {
    const params = new URLSearchParams();
    for (const key of keys) {
      const value = filters[key]?.trim();
      if (value !== undefined && value !== '') params.set(key, value);
    }
    return params.toString();
  };
  /** The API path of one page of the list (`base` like "/runs"), from `cursor` on. */
  const pagePath = (base: string, filters: Filters<K>, cursor: string | null = null, limit = 50): string => {
    const params = new URLSearchParams(toSearch(filters));
    params.set('limit', String(limit));
    if (cursor !== null) params.set('cursor', cursor);
    return `${base}?${params.toString()}`;
  };
  /** The console's own path of the list with these filters (`base` like "/runs"). */
  const href = (base: string, filters: Filters<K>): string => {
    const qs = toSearch(filters);
    return qs === '' ? base : `${base}?${qs}`;
  };
  return { keys, fromSearch, toSearch, pagePath, href };
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
