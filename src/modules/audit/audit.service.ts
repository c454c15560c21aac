import type { Sql } from '../../db/sql.js';
import type { Store } from '../../db/store.js';
import { timeBound, toPage } from '../../db/pagination.js';
import { newId } from '../../lib/ids.js';
import * as repo from './audit.repo.js';
import type { ListAuditInput } from './audit.schemas.js';
import type { RecordedChange } from '../changes/changeLog.js';

/**
 * The audit subscriber of the change log: one audit_log row per change, in the change's transaction.
 */
export async function auditChange(db: Sql, { projectId, actor, at, change }: RecordedChange): Promise<void> {
  await repo.insertAudit(db, projectId, {
    id: newId('aud'),
    created_at: at,
    key_id: actor.keyId,
    key_name: actor.keyName,
    action: change.action,
    target_type: change.targetType,
    target_id: change.targetId,
    before: change.before ?? null,
    after: change.after ?? null,
  });
}

export function createAuditService(store: Store) {
  return {
    async list(projectId: string, query: ListAuditInput) {
      const q = { ...query, since: timeBound('since', query.since), until: timeBound('until', query.until), cursor: query.cursor, limit: query.limit ?? 50 };
      return toPage(await repo.listAudit(store.sql, projectId, q), (r) => r);
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
