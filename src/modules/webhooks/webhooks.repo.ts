import { prepared } from '../../db/prepared.js';
import type { Db } from '../../db/open.js';
import { boundsOf, listNewestFirst, type ListPage, type PageBounds } from '../../db/pagination.js';

export interface WebhookRecord {
  id: string;
  url: string;
  events: string[];
  description: string;
  secret: string;
  enabled: boolean;
  created_at: string;
  updated_at: string;
}

type WebhookRow = Omit<WebhookRecord, 'events' | 'enabled'> & { events: string; enabled: number };

const WEBHOOK_COLUMNS = 'id, url, events, description, secret, enabled, created_at, updated_at';
const decodeWebhook = (row: WebhookRow): WebhookRecord => ({ ...row, events: JSON.parse(row.events) as string[], enabled: row.enabled === 1 });
const encodeWebhook = (projectId: string, w: WebhookRecord) => ({ ...w, project_id: projectId, events: JSON.stringify(w.events), enabled: w.enabled ? 1 : 0 });

export function insertWebhook(db: Db, projectId: string, webhook: WebhookRecord): void {
  prepared(
    db,
    `INSERT INTO webhooks (project_id, ${WEBHOOK_COLUMNS}) VALUES (@project_id, @id, @url, @events, @description, @secret, @enabled, @created_at, @updated_at)`,
  ).run(encodeWebhook(projectId, webhook));
}

export function updateWebhook(db: Db, projectId: string, webhook: WebhookRecord): void {
  prepared(
    db,
    `UPDATE webhooks SET url = @url, events = @events, description = @description, secret = @secret, enabled = @enabled, updated_at = @updated_at
     WHERE project_id = @project_id AND id = @id`,
  ).run(encodeWebhook(projectId, webhook));
}

export function findWebhook(db: Db, projectId: string, id: string): WebhookRecord | undefined {
  const row = prepared(db, `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE project_id = ? AND id = ?`).get(projectId, id) as WebhookRow | undefined;
  return row === undefined ? undefined : decodeWebhook(row);
}

export function listWebhooks(db: Db, projectId: string): WebhookRecord[] {
  return (prepared(db, `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE project_id = ? ORDER BY created_at, id`).all(projectId) as WebhookRow[]).map(
    decodeWebhook,
  );
}

/** A webhook goes with its deliveries: their history is only reachable through it. */
export function deleteWebhook(db: Db, projectId: string, id: string): void {
  prepared(db, 'DELETE FROM webhook_deliveries WHERE project_id = ? AND webhook_id = ?').run(projectId, id);
  prepared(db, 'DELETE FROM webhooks WHERE project_id = ? AND id = ?').run(projectId, id);
}

/** The enabled endpoints of a project that subscribe to an event type. */
export function subscribers(db: Db, projectId: string, eventType: string): string[] {
  return prepared(
    db,
    'SELECT id FROM webhooks WHERE project_id = ? AND enabled = 1 AND EXISTS (SELECT 1 FROM json_each(webhooks.events) WHERE value = ?) ORDER BY id',
  )
    .pluck()
    .all(projectId, eventType) as string[];
}

/** Whether any enabled endpoint, in any project, subscribes to one of these event types. */
export function projectsSubscribedTo(db: Db, eventTypes: readonly string[]): string[] {
  return prepared(
    db,
    `SELECT DISTINCT project_id FROM webhooks WHERE enabled = 1 AND EXISTS (SELECT 1 FROM json_each(webhooks.events) WHERE value IN (${eventTypes.map(() => '?').join(', ')}))`,
  )
    .pluck()
    .all(...eventTypes) as string[];
}

export interface NewDelivery {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  payload: string;
  created_at: string;
}

export function insertDelivery(db: Db, projectId: string, d: NewDelivery): void {
  prepared(
    db,
    `INSERT INTO webhook_deliveries (project_id, id, webhook_id, event_id, event_type, payload, status, next_attempt_at, created_at)
     VALUES (@project_id, @id, @webhook_id, @event_id, @event_type, @payload, 'pending', @created_at, @created_at)`,
  ).run({ ...d, project_id: projectId });
}

export interface DeliveryRecord {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  payload: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  finished_at: string | null;
}

const DELIVERY_COLUMNS =
  'id, webhook_id, event_id, event_type, payload, status, attempts, next_attempt_at, last_attempt_at, last_status_code, last_error, created_at, finished_at';

export function findDelivery(db: Db, projectId: string, id: string): DeliveryRecord | undefined {
  return prepared(db, `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE project_id = ? AND id = ?`).get(projectId, id) as DeliveryRecord | undefined;
}

export interface DeliveryListQuery extends PageBounds {
  status?: string | undefined;
}

export function listDeliveries(db: Db, projectId: string, webhookId: string, q: DeliveryListQuery): ListPage<DeliveryRecord> {
  return listNewestFirst<DeliveryRecord>(db, {
    table: 'webhook_deliveries',
    // The webhook filter is always given and always leads.
    index: 'webhook_deliveries_list',
    columns: DELIVERY_COLUMNS,
    projectId,
    ...boundsOf(q),
    filters: [
      { column: 'webhook_id', value: webhookId, index: 'webhook_deliveries_list' },
      { column: 'status', value: q.status },
    ],
  });
}

/** A delivery due now, with what sending it needs. */
export interface DueDelivery {
  project_id: string;
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  payload: string;
  attempts: number;
  created_at: string;
  url: string;
  secret: string;
}

/** Whether anything is due: a plain read, so an idle queue costs no write transaction. */
export function anyDue(db: Db, now: string): boolean {
  return (
    prepared(
      db,
      `SELECT 1 FROM webhook_deliveries d INDEXED BY webhook_deliveries_due
     JOIN webhooks w ON w.project_id = d.project_id AND w.id = d.webhook_id AND w.enabled = 1
     WHERE d.status = 'pending' AND d.next_attempt_at <= ? LIMIT 1`,
    ).get(now) !== undefined
  );
}

/**
 * Takes up to `limit` due deliveries of enabled endpoints and leases them until `leaseUntil`: each
 * counts one more attempt now, so a process killed mid-request retries it once the lease ends
 * (deliveries are at least once; receivers deduplicate on the event id).
 */
export function claimDue(db: Db, now: string, leaseUntil: string, limit: number): DueDelivery[] {
  const due = prepared(
    db,
    `SELECT d.project_id, d.id, d.webhook_id, d.event_id, d.event_type, d.payload, d.attempts + 1 AS attempts, d.created_at, w.url, w.secret
     FROM webhook_deliveries d INDEXED BY webhook_deliveries_due
     JOIN webhooks w ON w.project_id = d.project_id AND w.id = d.webhook_id AND w.enabled = 1
     WHERE d.status = 'pending' AND d.next_attempt_at <= ? ORDER BY d.next_attempt_at, d.id LIMIT ?`,
  ).all(now, limit) as DueDelivery[];
  const lease = prepared(db, 'UPDATE webhook_deliveries SET attempts = attempts + 1, next_attempt_at = ?, last_attempt_at = ? WHERE project_id = ? AND id = ?');
  for (const d of due) lease.run(leaseUntil, now, d.project_id, d.id);
  return due;
}

export interface AttemptResult {
  statusCode: number | null;
  error: string | null;
  /** delivered, given up (failed), or pending again at nextAttemptAt. */
  status: 'delivered' | 'failed' | 'pending';
  nextAttemptAt: string | null;
  at: string;
}

export function recordAttempt(db: Db, projectId: string, id: string, result: AttemptResult): void {
  prepared(
    db,
    `UPDATE webhook_deliveries SET status = @status, next_attempt_at = @next, last_status_code = @code, last_error = @error,
       finished_at = CASE WHEN @status = 'pending' THEN NULL ELSE @at END
     WHERE project_id = @project_id AND id = @id AND status = 'pending'`,
  ).run({ status: result.status, next: result.nextAttemptAt, code: result.statusCode, error: result.error, at: result.at, project_id: projectId, id });
}

/** Finished deliveries older than `before` go, a batch at a time (the history is kept for a while, not forever). */
export function pruneFinished(db: Db, before: string, limit: number): number {
  return prepared(
    db,
    `DELETE FROM webhook_deliveries WHERE rowid IN (SELECT rowid FROM webhook_deliveries INDEXED BY webhook_deliveries_finished WHERE finished_at < ? LIMIT ?)`,
  ).run(before, limit).changes;
}

export interface SignalRecord {
  srm_flagged: boolean;
  decisions: Record<string, string>;
}

export function findSignals(db: Db, projectId: string, experimentId: string): SignalRecord | undefined {
  const row = prepared(db, 'SELECT srm_flagged, decisions FROM experiment_signals WHERE project_id = ? AND experiment_id = ?').get(projectId, experimentId) as
    | { srm_flagged: number; decisions: string }
    | undefined;
  return row === undefined ? undefined : { srm_flagged: row.srm_flagged === 1, decisions: JSON.parse(row.decisions) as Record<string, string> };
}

export function saveSignals(db: Db, projectId: string, experimentId: string, signals: SignalRecord, checkedAt: string): void {
  prepared(
    db,
    `INSERT INTO experiment_signals (project_id, experiment_id, srm_flagged, decisions, checked_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (project_id, experiment_id) DO UPDATE SET srm_flagged = excluded.srm_flagged, decisions = excluded.decisions, checked_at = excluded.checked_at`,
  ).run(projectId, experimentId, signals.srm_flagged ? 1 : 0, JSON.stringify(signals.decisions), checkedAt);
}
