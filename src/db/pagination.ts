import { invalid } from '../lib/errors.js';
import type { Sql } from './sql.js';

/**
 * Newest-first, cursor-paginated lists whose cost is bounded by the page, not by the history.
 *
 * Rows are ordered by (created_at DESC, id DESC). The first filter given that has an index leads:
 * its index, of shape (project_id, <filter>, created_at, id) — or (project_id, created_at, id)
 * without one — yields the rows already in order, so the page reads only what it returns. Further
 * filters are checked on a scan of at most SCAN_BUDGET index entries: when that scan ends before
 * the page is full, the page is returned short with a cursor to go on from, so one request never
 * reads more than the budget however rare the matches are.
 *
 * Table and column names come from code, never from the request; values are always bound (or,
 * for `literal` enum values that a partial index names, checked against a strict pattern).
 */
export const SCAN_BUDGET = 5_000;

/**
 * A page stops growing once the text of its rows passes this many characters (about bytes), and
 * comes back short with a cursor: however large each row may be (an audit entry holding two
 * versions of a 200 000-character template), a page's answer stays near a megabyte, so no list
 * request can take hundreds of megabytes of memory or stall the process while it is serialised.
 * It always holds at least one row, so paging always moves on.
 */
export const PAGE_TEXT_BUDGET = 1 << 20;

/** The text a row carries: what its answer costs to build and send. */
function rowText(row: Record<string, unknown>): number {
  let n = 0;
  for (const value of Object.values(row)) if (typeof value === 'string') n += value.length;
  return n;
}

interface ListFilter {
  column: string;
  /** undefined: no filter; null: the column must be NULL. */
  value: string | number | null | undefined;
  /** The index of shape (project_id, column, created_at, id) that serves this filter when it leads. */
  index?: string;
  /** Inline the value so a partial index on it (e.g. `WHERE status = 'error'`) applies. */
  literal?: boolean;
}

export interface ListRequest {
  table: string;
  /** The row's id within the project (ties in created_at are ordered by it; cursors name it). Default `id`. */
  key?: string;
  /** The (project_id, created_at, id) index, used when no filter with an index leads. */
  index: string;
  /** Select list of the returned rows. */
  columns: string;
  projectId: string;
  /** In priority order: the first present one picks the index. */
  filters: readonly ListFilter[];
  since?: string | undefined;
  until?: string | undefined;
  /** The id of the last row of the previous page (its `next_cursor`). */
  cursor?: string | undefined;
  limit: number;
  /**
   * Read the page this many rows per statement, letting other requests run in between: for tables
   * whose rows can be large, where even reading past their large columns (SQLite walks their
   * pages to reach the columns stored after them) adds up over a page. Rows must carry created_at
   * and the key.
   */
  chunkRows?: number;
}

export interface ListPage<Row> {
  rows: Row[];
  nextCursor: string | null;
}

/** What every list query has besides its filters: the time window, where to go on from, how many. */
export interface PageBounds {
  since?: string | undefined;
  until?: string | undefined;
  cursor: string | undefined;
  limit: number;
}

/** Just the bounds of a list query (its filters are the repository's to place). */
export function boundsOf(q: PageBounds): PageBounds {
  return { since: q.since, until: q.until, cursor: q.cursor, limit: q.limit };
}

/** The same page with each row turned into something else (a stored row decoded). */
export function mapPage<Row, Out>(page: ListPage<Row>, map: (row: Row) => Out): ListPage<Out> {
  return { rows: page.rows.map(map), nextCursor: page.nextCursor };
}

const LITERAL = /^[a-z_]{1,32}$/;

/** The statements one page runs (with their arguments), apart from running them: tests read their plans. */
export interface ListStatements {
  /** null when the cursor is absent. */
  cursor: { sql: string; args: unknown[] } | null;
  /** The rows of the page directly (no further filter), or the index scan that checks further filters. */
  page: { sql: string; args: unknown[]; scanned: boolean; budgetEnd?: { sql: string; args: unknown[] } };
  /** One full row of a scanned page, by id (a unique-key seek). */
  fetch: { sql: string; args: unknown[] };
}

export function listStatements(req: ListRequest, cursorCreatedAt = ''): ListStatements {
  const key = req.key ?? 'id';
  const present = req.filters.filter((f) => f.value !== undefined);
  const primary = present.find((f) => f.index !== undefined);
  const residual = present.filter((f) => f !== primary);
  const clauses = ['project_id = ?'];
  const args: unknown[] = [req.projectId];
  if (primary !== undefined) {
    if (primary.literal) {
      if (typeof primary.value !== 'string' || !LITERAL.test(primary.value)) throw new Error(`not a literal: ${String(primary.value)}`);
      clauses.push(`${primary.column} = '${primary.value}'`);
    } else {
      clauses.push(`${primary.column} = ?`);
      args.push(primary.value);
    }
  }
  if (req.since !== undefined) {
    clauses.push('created_at >= ?');
    args.push(req.since);
  }
  if (req.until !== undefined) {
    clauses.push('created_at < ?');
    args.push(req.until);
  }
  if (req.cursor !== undefined) {
    clauses.push(`(created_at, ${key}) < (?, ?)`);
    args.push(cursorCreatedAt, req.cursor);
  }
  const where = clauses.join(' AND ');
  // The index is named, not left to the planner: without statistics SQLite sometimes prefers the
  // time range over the filter, and would then read the whole range to find the filter's rows.
  const from = `${req.table} INDEXED BY ${primary?.index ?? req.index}`;
  const order = `ORDER BY created_at DESC, ${key} DESC`;
  const page =
    residual.length === 0
      ? { sql: `SELECT ${req.columns} FROM ${from} WHERE ${where} ${order} LIMIT ?`, args: [...args, req.limit + 1], scanned: false }
      : (() => {
          const scan = `SELECT ${key} AS id, created_at, (${residual.map((f) => `${f.column} IS NOT DISTINCT FROM ?`).join(' AND ')}) AS hit FROM ${from} WHERE ${where} ${order} LIMIT ?`;
          const scanArgs = [...residual.map((f) => f.value), ...args, SCAN_BUDGET];
          return {
            // The hits of at most SCAN_BUDGET index entries, up to one past the page.
            sql: `SELECT id FROM (${scan}) AS scan WHERE hit ${order.replace(key, 'id')} LIMIT ?`,
            args: [...scanArgs, req.limit + 1],
            scanned: true,
            // The last entry the budget reaches, if it reaches that far: where a short page goes on from.
            budgetEnd: { sql: `SELECT id FROM (${scan}) AS scan ${order.replace(key, 'id')} LIMIT 1 OFFSET ${SCAN_BUDGET - 1}`, args: scanArgs },
          };
        })();
  return {
    cursor:
      req.cursor === undefined ? null : { sql: `SELECT created_at FROM ${req.table} WHERE project_id = ? AND ${key} = ?`, args: [req.projectId, req.cursor] },
    page,
    fetch: { sql: `SELECT ${req.columns} FROM ${req.table} WHERE project_id = ? AND ${key} = ?`, args: [req.projectId, 'x'] },
  };
}

export async function listNewestFirst<Row>(db: Sql, req: ListRequest): Promise<ListPage<Row>> {
  let cursorCreatedAt = '';
  if (req.cursor !== undefined) {
    const at = await db.value(listStatements(req).cursor!.sql, [req.projectId, req.cursor]);
    if (typeof at !== 'string') throw invalid('query', ['cursor'], 'invalid cursor');
    cursorCreatedAt = at;
  }
  const { page, fetch } = listStatements(req, cursorCreatedAt);
  const key = req.key ?? 'id';
  if (!page.scanned) {
    const rows = req.chunkRows === undefined ? await db.all<Row & Record<string, unknown>>(page.sql, page.args) : await inChunks<Row>(db, req, cursorCreatedAt);
    const within = withinTextBudget(rows.slice(0, req.limit));
    // A page that reached the budget goes on from its last row (rows after it may not have been read).
    const more = rows.length > within.rows.length || within.full;
    return { rows: within.rows, nextCursor: more ? String(within.rows.at(-1)![key]) : null };
  }
  const ids = await db.column<string>(page.sql, page.args);
  let nextCursor: string | null = null;
  if (ids.length > req.limit) nextCursor = ids[req.limit - 1]!;
  else {
    // Fewer hits than a page: either the scan reached the end, or the budget ran out first.
    nextCursor = (await db.value<string>(page.budgetEnd!.sql, page.budgetEnd!.args)) ?? null;
  }
  const rows: Row[] = [];
  let text = 0;
  for (const id of ids.slice(0, req.limit)) {
    if (req.chunkRows !== undefined && rows.length > 0 && rows.length % req.chunkRows === 0) await nextTurn();
    const row = (await db.get<Row & Record<string, unknown>>(fetch.sql, [req.projectId, id]))!;
    rows.push(row);
    text += rowText(row);
    if (text > PAGE_TEXT_BUDGET && id !== ids[ids.length - 1]) return { rows, nextCursor: id };
  }
  return { rows, nextCursor };
}

/** The first rows whose text stays within PAGE_TEXT_BUDGET and the row that passes it (`full`), or all of them. */
function withinTextBudget<Row extends Record<string, unknown>>(rows: Row[]): { rows: Row[]; full: boolean } {
  let text = 0;
  for (let i = 0; i < rows.length; i++) {
    text += rowText(rows[i]!);
    if (text > PAGE_TEXT_BUDGET) return { rows: rows.slice(0, i + 1), full: true };
  }
  return { rows, full: false };
}

/** A turn of the event loop: SQLite's statements are synchronous, so awaiting one never yields. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The unfiltered page's limit + 1 rows, chunkRows per statement, each chunk going on from the last row. */
async function inChunks<Row>(db: Sql, req: ListRequest, cursorCreatedAt: string): Promise<Array<Row & Record<string, unknown>>> {
  const key = req.key ?? 'id';
  const chunk = req.chunkRows!;
  const rows: Array<Row & Record<string, unknown>> = [];
  let cursor = req.cursor;
  let createdAt = cursorCreatedAt;
  let text = 0;
  while (rows.length < req.limit + 1) {
    const want = Math.min(chunk, req.limit + 1 - rows.length);
    const { page } = listStatements({ ...req, cursor, limit: want - 1 }, createdAt);
    const got = await db.all<Row & Record<string, unknown>>(page.sql, page.args);
    rows.push(...got);
    for (const row of got) text += rowText(row);
    // Past the page's text budget the page ends within what was read: reading on would only add rows to drop.
    if (got.length < want || text > PAGE_TEXT_BUDGET) break;
    const last = got[got.length - 1]!;
    cursor = String(last[key]);
    createdAt = String(last.created_at);
    await nextTurn();
  }
  return rows;
}

/** A list as the API answers it: one page of views and the cursor of the next. */
export function toPage<Row, View>(page: ListPage<Row>, view: (row: Row) => View): { data: View[]; next_cursor: string | null } {
  return { data: page.rows.map(view), next_cursor: page.nextCursor };
}

/** `since`/`until` of a list query, as stored (ISO-8601 UTC with milliseconds); anything else is a 422. */
export function timeBound(field: 'since' | 'until', value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw invalid('query', [field], `${field} must be an ISO-8601 date-time`);
  return new Date(ms).toISOString();
}
