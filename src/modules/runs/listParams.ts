import { valueError } from '../../http/httpError.js';
import { InvalidCursor, type ListPage } from '../../db/pagination.js';

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

/** Shared by the run and outcome lists: time bounds normalised to the stored ISO form, the default page size. */
export function pageBounds(query: PageQuery): { since: string | undefined; until: string | undefined; cursor: string | undefined; limit: number } {
  return { since: isoOrThrow('since', query.since), until: isoOrThrow('until', query.until), cursor: query.cursor, limit: query.limit ?? 50 };
}

/** Runs a list query; a cursor that names no row of this list is the request's fault (422). */
export function page<T extends { id: string }, V>(cursor: string | undefined, list: () => ListPage<T>, view: (row: T) => V): { data: V[]; next_cursor: string | null } {
  try {
    const result = list();
    return { data: result.rows.map(view), next_cursor: result.nextCursor };
  } catch (error) {
    if (error instanceof InvalidCursor) throw valueError(['query', 'cursor'], cursor, 'invalid cursor');
    throw error;
  }
}
