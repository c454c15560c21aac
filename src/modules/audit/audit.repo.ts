import { prepared } from '../../db/prepared.js';
import type { Db } from '../../db/open.js';
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

export function insertAudit(db: Db, projectId: string, record: AuditRecord): void {
  prepared(db, `INSERT INTO audit_log (project_id, ${SELECT}) VALUES (@project_id, ${COLUMNS.map((c) => `@${c}`).join(', ')})`).run({
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

export function listAudit(db: Db, projectId: string, q: AuditListQuery): ListPage<AuditRecord> {
  return mapPage(
    listNewestFirst<AuditRow>(db, {
      table: 'audit_log',
      index: 'audit_created',
      columns: SELECT,
      projectId,
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
