import type { Sql } from '../../db/sql.js';
import { boundsOf, listNewestFirst, mapPage, type ListPage, type PageBounds } from '../../db/pagination.js';

export interface AuditRecord {
  id: string;
  created_at: string;
  key_id: string | null;
  key_name: string;
  action: string;
  target_type: string;
  target_id: string;
  before: unknown;
  after: unknown;
}

type AuditRow = Omit<AuditRecord, 'before' | 'after'> & { before: string | null; after: string | null };

const COLUMNS = ['id', 'created_at', 'key_id', 'key_name', 'action', 'target_type', 'target_id', 'before', 'after'];
const SELECT = COLUMNS.join(', ');

export async function insertAudit(db: Sql, projectId: string, record: AuditRecord): Promise<void> {
  await db.run(`INSERT INTO audit_log (project_id, ${SELECT}) VALUES (@project_id, ${COLUMNS.map((c) => `@${c}`).join(', ')})`, {
    ...record,
    project_id: projectId,
    before: record.before === undefined || record.before === null ? null : JSON.stringify(record.before),
    after: record.after === undefined || record.after === null ? null : JSON.stringify(record.after),
  });
}

export interface AuditListQuery extends PageBounds {
  action?: string | undefined;
  target_type?: string | undefined;
  target_id?: string | undefined;
  key_id?: string | undefined;
}

export async function listAudit(db: Sql, projectId: string, q: AuditListQuery): Promise<ListPage<AuditRecord>> {
  return mapPage(
    await listNewestFirst<AuditRow>(db, {
      table: 'audit_log',
      index: 'audit_created',
      columns: SELECT,
      projectId,
      // An entry can hold two versions of a long template: read a page in steps, within its text budget.
      chunkRows: 20,
      ...boundsOf(q),
      filters: [
        { column: 'target_id', value: q.target_id, index: 'audit_target_list' },
        { column: 'key_id', value: q.key_id, index: 'audit_key_list' },
        { column: 'action', value: q.action, index: 'audit_action_list' },
        { column: 'target_type', value: q.target_type },
      ],
    }),
    (row) => ({ ...row, before: row.before === null ? null : JSON.parse(row.before), after: row.after === null ? null : JSON.parse(row.after) }),
  );
}
