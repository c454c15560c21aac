import type { Sql } from '../../db/sql.js';
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

export async function insertWebhook(db: Sql, projectId: string, webhook: WebhookRecord): Promise<void> {
  await db.run(
    `INSERT INTO webhooks (project_id, ${WEBHOOK_COLUMNS}) VALUES (@project_id, @id, @url, @events, @description, @secret, @enabled, @created_at, @updated_at)`,
    encodeWebhook(projectId, webhook),
  );
}

export async function updateWebhook(db: Sql, projectId: string, webhook: WebhookRecord): Promise<void> {
  await db.run(
    `UPDATE webhooks SET url = @url, events = @events, description = @description, secret = @secret, enabled = @enabled, updated_at = @updated_at
     WHERE project_id = @project_id AND id = @id`,
    encodeWebhook(projectId, webhook),
  );
}

export async function findWebhook(db: Sql, projectId: string, id: string): Promise<WebhookRecord | undefined> {
  const row = await db.get<WebhookRow>(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE project_id = ? AND id = ?`, [projectId, id]);
  return row === undefined ? undefined : decodeWebhook(row);
}

export async function listWebhooks(db: Sql, projectId: string): Promise<WebhookRecord[]> {
  return (await db.all<WebhookRow>(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE project_id = ? ORDER BY created_at, id`, [projectId])).map(decodeWebhook);
}

/** A webhook goes with its deliveries: their history is only reachable through it. */
export async function deleteWebhook(db: Sql, projectId: string, id: string): Promise<void> {
  await db.run('DELETE FROM webhook_deliveries WHERE project_id = ? AND webhook_id = ?', [projectId, id]);
  await db.run('DELETE FROM webhooks WHERE project_id = ? AND id = ?', [projectId, id]);
}

/** The enabled endpoints of a project that subscribe to an event type. */
export async function subscribers(db: Sql, projectId: string, eventType: string): Promise<string[]> {
  return db.column<string>(
    `SELECT id FROM webhooks WHERE project_id = ? AND enabled = 1 AND EXISTS (SELECT 1 FROM ${db.dialect.jsonValues('webhooks.events')} WHERE value = ?) ORDER BY id`,
    [projectId, eventType],
  );
}

/** Whether any enabled endpoint, in any project, subscribes to one of these event types. */
export async function projectsSubscribedTo(db: Sql, eventTypes: readonly string[]): Promise<string[]> {
  return db.column<string>(
    `SELECT DISTINCT project_id FROM webhooks WHERE enabled = 1 AND EXISTS (SELECT 1 FROM ${db.dialect.jsonValues('webhooks.events')} WHERE value IN (${eventTypes.map(() => '?').join(', ')}))`,
    eventTypes,
  );
}

export interface NewDelivery {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  payload: string;
  created_at: string;
}

export async function insertDelivery(db: Sql, projectId: string, d: NewDelivery): Promise<void> {
  await db.run(
    `INSERT INTO webhook_deliveries (project_id, id, webhook_id, event_id, event_type, payload, status, next_attempt_at, created_at)
     VALUES (@project_id, @id, @webhook_id, @event_id, @event_type, @payload, 'pending', @created_at, @created_at)`,
    { ...d, project_id: projectId },
  );
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

export async function findDelivery(db: Sql, projectId: string, id: string): Promise<DeliveryRecord | undefined> {
  return db.get<DeliveryRecord>(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE project_id = ? AND id = ?`, [projectId, id]);
}

export interface DeliveryListQuery extends PageBounds {
  status?: string | undefined;
}

export async function listDeliveries(db: Sql, projectId: string, webhookId: string, q: DeliveryListQuery): Promise<ListPage<DeliveryRecord>> {
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
export async function anyDue(db: Sql, now: string): Promise<boolean> {
  return (
    (await db.get(
      `SELECT 1 FROM webhook_deliveries d INDEXED BY webhook_deliveries_due
     JOIN webhooks w ON w.project_id = d.project_id AND w.id = d.webhook_id AND w.enabled = 1
     WHERE d.status = 'pending' AND d.next_attempt_at <= ? LIMIT 1`,
      [now],
    )) !== undefined
  );
}

/**
 * Takes up to `limit` due deliveries of enabled endpoints and leases them until `leaseUntil`: each
 * counts one more attempt now, so a process killed mid-request retries it once the lease ends
 * (deliveries are at least once; receivers deduplicate on the event id).
 */
export async function claimDue(db: Sql, now: string, leaseUntil: string, limit: number): Promise<DueDelivery[]> {
  const due = await db.all<DueDelivery>(
    `SELECT d.project_id, d.id, d.webhook_id, d.event_id, d.event_type, d.payload, d.attempts + 1 AS attempts, d.created_at, w.url, w.secret
     FROM webhook_deliveries d INDEXED BY webhook_deliveries_due
     JOIN webhooks w ON w.project_id = d.project_id AND w.id = d.webhook_id AND w.enabled = 1
     WHERE d.status = 'pending' AND d.next_attempt_at <= ? ORDER BY d.next_attempt_at, d.id LIMIT ?`,
    [now, limit],
  );
  for (const d of due) {
    await db.run('UPDATE webhook_deliveries SET attempts = attempts + 1, next_attempt_at = ?, last_attempt_at = ? WHERE project_id = ? AND id = ?', [
      leaseUntil,
      now,
      d.project_id,
      d.id,
    ]);
  }
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

export async function recordAttempt(db: Sql, projectId: string, id: string, result: AttemptResult): Promise<void> {
  await db.run(
    `UPDATE webhook_deliveries SET status = @status, next_attempt_at = @next, last_status_code = @code, last_error = @error,
       finished_at = CASE WHEN @status = 'pending' THEN NULL ELSE @at END
     WHERE project_id = @project_id AND id = @id AND status = 'pending'`,
    { status: result.status, next: result.nextAttemptAt, code: result.statusCode, error: result.error, at: result.at, project_id: projectId, id },
  );
}

/** Finished deliveries older than `before` go, a batch at a time (the history is kept for a while, not forever). */
export async function pruneFinished(db: Sql, before: string, limit: number): Promise<number> {
  return (
    await db.run(
      `DELETE FROM webhook_deliveries WHERE ${db.dialect.rowId} IN (SELECT ${db.dialect.rowId} FROM webhook_deliveries INDEXED BY webhook_deliveries_finished WHERE finished_at < ? LIMIT ?)`,
      [before, limit],
    )
  ).changes;
}

export interface SignalRecord {
  srm_flagged: boolean;
  decisions: Record<string, string>;
}

export async function findSignals(db: Sql, projectId: string, experimentId: string): Promise<SignalRecord | undefined> {
  const row = await db.get<{ srm_flagged: number; decisions: string }>(
    'SELECT srm_flagged, decisions FROM experiment_signals WHERE project_id = ? AND experiment_id = ?',
    [projectId, experimentId],
  );
  return row === undefined ? undefined : { srm_flagged: row.srm_flagged === 1, decisions: JSON.parse(row.decisions) as Record<string, string> };
}

export async function saveSignals(db: Sql, projectId: string, experimentId: string, signals: SignalRecord, checkedAt: string): Promise<void> {
  await db.run(
    `INSERT INTO experiment_signals (project_id, experiment_id, srm_flagged, decisions, checked_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (project_id, experiment_id) DO UPDATE SET srm_flagged = excluded.srm_flagged, decisions = excluded.decisions, checked_at = excluded.checked_at`,
    [projectId, experimentId, signals.srm_flagged ? 1 : 0, JSON.stringify(signals.decisions), checkedAt],
  );
}
