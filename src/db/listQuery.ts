/**
 * Builds the WHERE clause of a newest-first, cursor-paginated list. Ids are time-ordered (UUIDv7),
 * so `id < cursor` pages stably even while rows are being added. Column names come from code,
 * never from the request; values are always bound.
 */
export interface ListFilter {
  equals: Record<string, string | number | undefined>;
  since?: string;
  until?: string;
  cursor?: string;
}

export function buildListWhere(projectId: string, filter: ListFilter): { where: string; args: unknown[] } {
  const clauses = ['project_id = ?'];
  const args: unknown[] = [projectId];
  for (const [column, value] of Object.entries(filter.equals)) {
    if (value === undefined) continue;
    clauses.push(`${column} = ?`);
    args.push(value);
  }
  if (filter.since !== undefined) {
    clauses.push('created_at >= ?');
    args.push(filter.since);
  }
  if (filter.until !== undefined) {
    clauses.push('created_at < ?');
    args.push(filter.until);
  }
  if (filter.cursor !== undefined) {
    clauses.push('id < ?');
    args.push(filter.cursor);
  }
  return { where: clauses.join(' AND '), args };
}
