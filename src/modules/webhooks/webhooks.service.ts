import type { Sql } from '../../db/sql.js';
import type { Store } from '../../db/store.js';
import { timeBound, toPage } from '../../db/pagination.js';
import { isoNow } from '../../lib/clock.js';
import { invalid, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { SYSTEM_ACTOR, type Actor, type ChangeLog } from '../changes/changeLog.js';
import { registrationProblem } from './destination.js';
import { enqueueEvent } from './events.js';
import * as repo from './webhooks.repo.js';
import { newWebhookSecret } from './signature.js';
import {
  TEST_EVENT,
  type CreatedWebhook,
  type DeliveryView,
  type ListDeliveriesInput,
  type WebhookInput,
  type WebhookPatch,
  type WebhookView,
} from './webhooks.schemas.js';

/** The public view: never the secret (it is shown once, when made). */
function toView(w: repo.WebhookRecord): WebhookView {
  return { webhook_id: w.id, url: w.url, events: w.events, description: w.description, enabled: w.enabled, created_at: w.created_at, updated_at: w.updated_at };
}

function toDeliveryView(d: repo.DeliveryRecord): DeliveryView {
  const { id, webhook_id: _webhook, payload, ...rest } = d;
  return { delivery_id: id, ...rest, payload: JSON.parse(payload) as unknown };
}

/** Subscribing twice to one event means once. */
const distinct = (events: readonly string[]) => [...new Set(events)];

export function createWebhookService(store: Store, changeLog: ChangeLog, allowPrivate: boolean) {
  const require = async (db: Sql, projectId: string, id: string) => {
    const found = await repo.findWebhook(db, projectId, id);
    if (found === undefined) throw notFound(`Webhook '${id}' not found`);
    return found;
  };
  /** Read, edit, write and audit one webhook in one transaction (the audit shows the public view only). */
  const change = (
    projectId: string,
    id: string,
    action: 'webhook.updated' | 'webhook.secret_rotated',
    actor: Actor,
    edit: (before: repo.WebhookRecord) => Partial<repo.WebhookRecord>,
  ): Promise<repo.WebhookRecord> =>
    store.writer.write(async (db) => {
      const before = await require(db, projectId, id);
      const after: repo.WebhookRecord = { ...before, ...edit(before), updated_at: isoNow(store.clock) };
      await repo.updateWebhook(db, projectId, after);
      await changeLog.record(db, projectId, actor, { action, targetType: 'webhook', targetId: id, before: toView(before), after: toView(after) });
      return after;
    });
  const checkUrl = async (url: string) => {
    const problem = await registrationProblem(url, allowPrivate);
    if (problem !== null) throw invalid('body', ['url'], problem);
  };

  return {
    async create(projectId: string, input: WebhookInput, actor: Actor = SYSTEM_ACTOR): Promise<CreatedWebhook> {
      await checkUrl(input.url);
      const now = isoNow(store.clock);
      const record: repo.WebhookRecord = {
        id: newId('whk'),
        url: input.url,
        events: distinct(input.events),
        description: input.description ?? '',
        secret: newWebhookSecret(),
        enabled: input.enabled ?? true,
        created_at: now,
        updated_at: now,
      };
      await store.writer.write(async (db) => {
        await repo.insertWebhook(db, projectId, record);
        await changeLog.record(db, projectId, actor, { action: 'webhook.created', targetType: 'webhook', targetId: record.id, after: toView(record) });
      });
      return { ...toView(record), secret: record.secret };
    },

    async list(projectId: string): Promise<WebhookView[]> {
      return (await repo.listWebhooks(store.sql, projectId)).map(toView);
    },

    async get(projectId: string, id: string): Promise<WebhookView> {
      return toView(await require(store.sql, projectId, id));
    },

    async update(projectId: string, id: string, patch: WebhookPatch, actor: Actor = SYSTEM_ACTOR): Promise<WebhookView> {
      if (patch.url !== undefined) await checkUrl(patch.url);
      const after = await change(projectId, id, 'webhook.updated', actor, (before) => ({
        url: patch.url ?? before.url,
        events: patch.events === undefined ? before.events : distinct(patch.events),
        description: patch.description ?? before.description,
        enabled: patch.enabled ?? before.enabled,
      }));
      return toView(after);
    },

    /** A new secret, effective for the next delivery; the old one stops working at once. */
    async rotateSecret(projectId: string, id: string, actor: Actor = SYSTEM_ACTOR): Promise<CreatedWebhook> {
      const after = await change(projectId, id, 'webhook.secret_rotated', actor, () => ({ secret: newWebhookSecret() }));
      return { ...toView(after), secret: after.secret };
    },

    async remove(projectId: string, id: string, actor: Actor = SYSTEM_ACTOR): Promise<void> {
      await store.writer.write(async (db) => {
        const before = await require(db, projectId, id);
        await repo.deleteWebhook(db, projectId, id);
        await changeLog.record(db, projectId, actor, { action: 'webhook.deleted', targetType: 'webhook', targetId: id, before: toView(before) });
      });
    },

    /** Queues a `webhook.test` event to this endpoint alone (enabled or not, it waits like any other). */
    async sendTest(projectId: string, id: string, actor: Actor = SYSTEM_ACTOR): Promise<DeliveryView> {
      return store.writer.write(async (db) => {
        await require(db, projectId, id);
        const [deliveryId] = await enqueueEvent(
          db,
          projectId,
          {
            type: TEST_EVENT,
            created_at: isoNow(store.clock),
            actor: { key_id: actor.keyId, key_name: actor.keyName },
            target: { type: 'webhook', id },
            before: null,
            after: null,
          },
          id,
        );
        const queued = (await repo.findDelivery(db, projectId, deliveryId!))!;
        return toDeliveryView(queued);
      });
    },

    async deliveries(projectId: string, id: string, query: ListDeliveriesInput) {
      await require(store.sql, projectId, id);
      const q = {
        status: query.status,
        since: timeBound('since', query.since),
        until: timeBound('until', query.until),
        cursor: query.cursor,
        limit: query.limit ?? 50,
      };
      return toPage(await repo.listDeliveries(store.sql, projectId, id, q), toDeliveryView);
    },
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
