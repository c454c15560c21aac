import { Type, type Static } from '@sinclair/typebox';
import { Nullable, PageQuery } from '../../lib/schemas.js';

/** The events an endpoint can subscribe to (docs/operations.md, "Webhooks", describes each payload). */
export const EVENT_TYPES = [
  'prompt.version_created',
  'prompt.label_moved',
  'experiment.started',
  'experiment.paused',
  'experiment.stopped',
  'experiment.srm_detected',
  'experiment.decision_changed',
  'experiment.advanced',
  'experiment.rolled_back',
  'experiment.shipped',
  'experiment.reweighted',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
/** Sent by `POST /webhooks/{id}/test` to that endpoint only; nobody subscribes to it. */
export const TEST_EVENT = 'webhook.test';

const EventTypeSchema = Type.Union(
  EVENT_TYPES.map((e) => Type.Literal(e)),
  { description: 'an event type' },
);
const Url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'http(s) URL the events are POSTed to',
  examples: ['https://example.com/hooks/promptline'],
});
const Events = Type.Array(EventTypeSchema, {
  minItems: 1,
  maxItems: EVENT_TYPES.length * 2,
  examples: [['prompt.label_moved', 'experiment.decision_changed']],
});
const Description = Type.String({ maxLength: 500 });

export const CreateWebhookBody = Type.Object({
  url: Url,
  events: Events,
  description: Type.Optional(Description),
  enabled: Type.Optional(Type.Boolean({ default: true })),
});
export type WebhookInput = Static<typeof CreateWebhookBody>;

export const PatchWebhookBody = Type.Object({
  url: Type.Optional(Url),
  events: Type.Optional(Events),
  description: Type.Optional(Description),
  enabled: Type.Optional(Type.Boolean({ description: 'false: no new deliveries are queued, and queued ones wait until it is true again' })),
});
export type WebhookPatch = Static<typeof PatchWebhookBody>;

export const WebhookSchema = Type.Object(
  {
    webhook_id: Type.String(),
    url: Type.String(),
    events: Type.Array(Type.String()),
    description: Type.String(),
    enabled: Type.Boolean(),
    created_at: Type.String(),
    updated_at: Type.String(),
  },
  { title: 'Webhook' },
);
export type WebhookView = Static<typeof WebhookSchema>;

export const CreatedWebhookSchema = Type.Composite([
  WebhookSchema,
  Type.Object({ secret: Type.String({ description: 'signs every delivery (Promptline-Signature); shown only in this answer' }) }),
]);
export type CreatedWebhook = Static<typeof CreatedWebhookSchema>;

export const WebhookIdParams = Type.Object({ webhook_id: Type.String({ maxLength: 128 }) });

const DeliveryStatus = Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]);

export const ListDeliveriesQuery = Type.Object({
  status: Type.Optional(DeliveryStatus),
  since: Type.Optional(Type.String({ format: 'date-time', maxLength: 64 })),
  until: Type.Optional(Type.String({ format: 'date-time', maxLength: 64, description: 'exclusive' })),
  ...PageQuery,
});
export type ListDeliveriesInput = Static<typeof ListDeliveriesQuery>;

export const DeliverySchema = Type.Object(
  {
    delivery_id: Type.String(),
    event_id: Type.String({ description: 'the same for every endpoint the event went to: deduplicate on it' }),
    event_type: Type.String(),
    status: DeliveryStatus,
    attempts: Type.Integer(),
    next_attempt_at: Nullable(Type.String({ description: 'pending: when the next attempt is due' })),
    last_attempt_at: Nullable(Type.String()),
    last_status_code: Nullable(Type.Integer({ description: "the receiver's HTTP status on the last attempt; null when none came" })),
    last_error: Nullable(Type.String({ description: 'why the last attempt failed' })),
    created_at: Type.String(),
    finished_at: Nullable(Type.String({ description: 'when it was delivered, or given up after 24 hours' })),
    payload: Type.Unknown({ description: 'the event exactly as sent' }),
  },
  { title: 'WebhookDelivery' },
);
export const DeliveryPageSchema = Type.Object({ data: Type.Array(DeliverySchema), next_cursor: Nullable(Type.String()) });
export type DeliveryView = Static<typeof DeliverySchema>;
