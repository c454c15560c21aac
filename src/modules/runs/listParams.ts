import { valueError } from '../../http/httpError.js';
import type { ListFilter } from '../../db/listQuery.js';

export interface PageQuery {
  since?: string;
  until?: string;
  limit?: number;
  cursor?: string;
}

function isoOrThrow(field: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw valueError(['query', field], value, `${field} must be an ISO-8601 date-time`);
  return new Date(ms).toISOString();
}

/** Shared by the run and outcome lists: time bounds normalised to stored ISO form, an id cursor. */
export function toListFilter(query: PageQuery, equals: ListFilter['equals']): ListFilter {
  const since = isoOrThrow('since', query.since);
  const until = isoOrThrow('until', query.until);
  return {
    equals,
    ...(since !== undefined ? { since } : {}),
    ...(until !== undefined ? { until } : {}),
    ...(query.cursor !== undefined ? { cursor: query.cursor } : {}),
  };
}

/** Fetches one row more than asked to know whether a next page exists. */
export function page<T extends { id: string }, V>(rows: T[], limit: number, view: (row: T) => V): { data: V[]; next_cursor: string | null } {
  const data = rows.slice(0, limit);
  return { data: data.map(view), next_cursor: rows.length > limit ? data[data.length - 1]!.id : null };
}
