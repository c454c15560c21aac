import type { Sql } from '../../db/sql.js';
import type { Store } from '../../db/store.js';
import { timeBound, toPage } from '../../db/pagination.js';
import { isoNow, type Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import * as repo from './audit.repo.js';
import type { ListAuditInput } from './audit.schemas.js';
import { enqueueEvent, isEventType } from '../webhooks/events.js';

/** Who made a change: an API key (its id and its name at the time), or the CLI, which uses none. */
export interface Actor {
  keyId: string | null;
  keyName: string;
}

export const CLI_ACTOR: Actor = Object.freeze({ keyId: null, keyName: 'cli' });
/** Changes the service makes on its own (the start-up bootstrap). */
export const SYSTEM_ACTOR: Actor = Object.freeze({ keyId: null, keyName: 'system' });

export interface Change {
  action: string;
  targetType: 'prompt' | 'experiment' | 'key' | 'user' | 'webhook';
  targetId: string;
  /** The prompt an experiment change concerns, so other replicas drop only that prompt's cached experiment. */
  promptId?: string;
  before?: unknown;
  after?: unknown;
}

/**
 * Records one management change. Call it inside the write that makes the change, so both commit
 * or neither does: the log never says something happened that did not, nor misses what did.
 */
export async function recordChange(db: Sql, projectId: string, actor: Actor, clock: Clock, change: Change): Promise<void> {
  const createdAt = isoNow(clock);
  await repo.insertAudit(db, projectId, {
    id: newId('aud'),
    created_at: createdAt,
    key_id: actor.keyId,
    key_name: actor.keyName,
    action: change.action,
    target_type: change.targetType,
    target_id: change.targetId,
    before: change.before ?? null,
    after: change.after ?? null,
  });
  // Every management change passes here, in its own transaction: other replicas hear of it when
  // (and only if) it commits, and drop what they cached of its target (that key, that prompt).
  await repo.announceChange(db, {
    projectId,
    targetType: change.targetType,
    targetId: change.targetId,
    ...(change.promptId === undefined ? {} : { promptId: change.promptId }),
  });
  // A change that is also a webhook event (prompt.label_moved, experiment.started, …) is queued
  // for delivery here, in the same transaction, so no caller can record one and forget the other.
  if (isEventType(change.action)) {
    await enqueueEvent(db, projectId, {
      type: change.action,
      created_at: createdAt,
      actor: { key_id: actor.keyId, key_name: actor.keyName },
      target: { type: change.targetType, id: change.targetId },
      before: change.before ?? null,
      after: change.after ?? null,
    });
  }
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

/** The actor of an API request: the key that authenticated it. */
export const actorOf = (auth: { keyId: string; keyName: string }): Actor => ({ keyId: auth.keyId, keyName: auth.keyName });
