import { urlFilters } from './urlFilters.js';

/** The API's webhook shapes (src/modules/webhooks/webhooks.schemas.ts is the reference). */
export interface Webhook {
  webhook_id: string;
  url: string;
  events: string[];
  description: string;
  enabled: boolean;
  created_at: string;
  updated_at: string;
}

/** The answer to a create or a secret rotation: the only time the signing secret is shown. */
export interface WebhookWithSecret extends Webhook {
  secret: string;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface Delivery {
  delivery_id: string;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  finished_at: string | null;
  payload: unknown;
}

/** The events an endpoint can subscribe to, in the API schema's order (a unit test holds them equal). */
export const WEBHOOK_EVENT_TYPES = [
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

export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'delivered', 'failed'];

/** The delivery history's filter, under `GET /webhooks/{id}/deliveries`'s own name. */
export const DELIVERY_FILTERS = urlFilters(['status'] as const);

/**
 * Whether a delivery's first attempt is still on its way: a claimed delivery counts its attempt
 * when the sender takes it, before the receiver answers; an attempt that is over always left a
 * status code or an error.
 */
export function firstAttemptPending(d: Pick<Delivery, 'status' | 'attempts' | 'last_status_code' | 'last_error'>): boolean {
  return d.status === 'pending' && (d.attempts === 0 || (d.attempts === 1 && d.last_status_code === null && d.last_error === null));
}

/** The receiver's answer on the last attempt, in words: its status code, or why none came. */
export function lastAnswer(d: Pick<Delivery, 'attempts' | 'last_status_code' | 'last_error'>): string {
  if (d.attempts === 0) return 'not tried yet';
  // A failed answer's error already names its status ("HTTP 500: …").
  if (d.last_error !== null) return d.last_error;
  return d.last_status_code === null ? '–' : `HTTP ${d.last_status_code}`;
}

/** What the endpoint page leaves in the history entry when it deletes the endpoint, for the list to say. */
export interface DeletedState {
  deletedUrl: string;
}
