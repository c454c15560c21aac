import type { Sql } from '../../db/sql.js';
import { newId } from '../../lib/ids.js';
import type { RecordedChange } from '../changes/changeLog.js';
import * as repo from './webhooks.repo.js';
import { EVENT_TYPES, type EventType } from './webhooks.schemas.js';

/** The body of every delivery (`type` says which event; `before`/`after` are as in the audit log). */
interface EventPayload {
  id: string;
  type: string;
  created_at: string;
  project_id: string;
  /** The API key (or `cli`, `system`) whose change caused the event. */
  actor: { key_id: string | null; key_name: string };
  target: { type: string; id: string };
  before: unknown;
  after: unknown;
}

export type NewEvent = Omit<EventPayload, 'id' | 'project_id'>;

const isEventType = (action: string): action is EventType => (EVENT_TYPES as readonly string[]).includes(action);

/**
 * Queues one delivery of the event per enabled endpoint subscribed to it (or to `only`, for a test
 * event), inside the caller's transaction: an event is queued exactly when its change commits.
 * Returns the ids of the deliveries queued (none when nobody listens).
 */
export async function enqueueEvent(db: Sql, projectId: string, event: NewEvent, only?: string): Promise<string[]> {
  const endpoints = only === undefined ? await repo.subscribers(db, projectId, event.type) : [only];
  if (endpoints.length === 0) return [];
  const payload: EventPayload = {
    id: newId('evt'),
    type: event.type,
    created_at: event.created_at,
    project_id: projectId,
    actor: event.actor,
    target: event.target,
    before: event.before ?? null,
    after: event.after ?? null,
  };
  const body = JSON.stringify(payload);
  const ids: string[] = [];
  for (const webhookId of endpoints) {
    const id = newId('whd');
    await repo.insertDelivery(db, projectId, {
      id,
      webhook_id: webhookId,
      event_id: payload.id,
      event_type: event.type,
      payload: body,
      created_at: event.created_at,
    });
    ids.push(id);
  }
  return ids;
}

/**
 * The webhook subscriber of the change log: a change whose action is also an event type
 * (prompt.label_moved, experiment.started, …) is queued for delivery in the change's transaction.
 */
export async function enqueueChangeEvent(db: Sql, { projectId, actor, at, change }: RecordedChange): Promise<void> {
  if (!isEventType(change.action)) return;
  await enqueueEvent(db, projectId, {
    type: change.action,
    created_at: at,
    actor: { key_id: actor.keyId, key_name: actor.keyName },
    target: { type: change.targetType, id: change.targetId },
    before: change.before ?? null,
    after: change.after ?? null,
  });
}
