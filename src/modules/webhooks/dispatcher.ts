import type { Store } from '../../db/store.js';
import { postDelivery, type PostOutcome } from './post.js';
import { nextAttemptAt } from './retrySchedule.js';
import { SIGNATURE_HEADER, signatureHeader } from './signature.js';
import * as repo from './webhooks.repo.js';

/** How long one attempt may take before it counts as failed. */
const DELIVERY_TIMEOUT_MS = 10_000;
/** Deliveries in flight at once: a dead receiver can hold this many slots for the timeout, never an API call. */
const CONCURRENCY = 4;
const BATCH = 16;
/** A claimed attempt's lease outlives its timeout by this, so a live attempt is never claimed twice. */
const LEASE_MARGIN_MS = 5_000;
/** Delivered and failed deliveries are kept this long, then pruned. */
const HISTORY_DAYS = 30;
const PRUNE_EVERY_MS = 60 * 60 * 1000;

interface Log {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/**
 * Sends what the queue holds. Each pass claims what is due (a lease in the database), POSTs it
 * signed, and records the outcome: delivered, retried later on the schedule, or given up after the
 * retry window. The queue is the database, so a restart loses nothing: a delivery claimed by a
 * process that died is claimed again when its lease ends.
 */
/** `version`: the service's, named in each delivery's User-Agent (given by the composition root, which knows it). */
export function createWebhookDispatcher(store: Store, options: { allowPrivate: boolean; log: Log; version: string; timeoutMs?: number }) {
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const shutdown = new AbortController();
  let lastPrune = 0;

  async function attempt(d: repo.DueDelivery): Promise<void> {
    const sentAt = store.clock.now();
    const headers = {
      'content-type': 'application/json',
      'user-agent': `Promptline-Webhooks/${options.version}`,
      'promptline-event': d.event_type,
      'promptline-event-id': d.event_id,
      'promptline-delivery': d.id,
      [SIGNATURE_HEADER]: signatureHeader(d.secret, Math.floor(sentAt.getTime() / 1000), d.payload),
    };
    const outcome: PostOutcome = await postDelivery(d.url, d.payload, headers, { timeoutMs, allowPrivate: options.allowPrivate, signal: shutdown.signal });
    if (shutdown.signal.aborted) return; // the lease runs out and the next start tries again
    const at = store.clock.now();
    const next = outcome.error === null ? null : nextAttemptAt(Date.parse(d.created_at), at.getTime(), d.attempts);
    const status = outcome.error === null ? 'delivered' : next === null ? 'failed' : 'pending';
    await store.writer.write((db) =>
      repo.recordAttempt(db, d.project_id, d.id, {
        status,
        statusCode: outcome.statusCode,
        error: outcome.error,
        nextAttemptAt: next === null ? null : new Date(next).toISOString(),
        at: at.toISOString(),
      }),
    );
    if (status !== 'delivered') {
      // The URL stays out of the log: receivers often carry a token in it.
      options.log[status === 'failed' ? 'warn' : 'info'](
        { project_id: d.project_id, delivery_id: d.id, event_type: d.event_type, attempts: d.attempts, status_code: outcome.statusCode, error: outcome.error },
        status === 'failed' ? 'webhook delivery given up after its retry window' : 'webhook delivery failed; it will be retried',
      );
    }
  }

  /** One batch: claims what is due and sends it; returns how many were claimed. */
  async function pass(): Promise<number> {
    const now = store.clock.now().getTime();
    if (!(await repo.anyDue(store.sql, new Date(now).toISOString()))) return 0;
    const due = await store.writer.write((db) =>
      repo.claimDue(db, new Date(now).toISOString(), new Date(now + timeoutMs + LEASE_MARGIN_MS).toISOString(), BATCH),
    );
    // One endpoint's deliveries go one at a time, in event order; endpoints share the slots.
    const groups = new Map<string, repo.DueDelivery[]>();
    for (const d of due) {
      const key = `${d.project_id}\u0000${d.webhook_id}`;
      groups.set(key, [...(groups.get(key) ?? []), d]);
    }
    const byEndpoint = [...groups.values()];
    await Promise.all(
      Array.from({ length: Math.min(CONCURRENCY, byEndpoint.length) }, async () => {
        for (let group = byEndpoint.shift(); group !== undefined; group = byEndpoint.shift()) {
          for (const d of group) await attempt(d);
        }
      }),
    );
    return due.length;
  }

  async function prune(): Promise<void> {
    const now = store.clock.now().getTime();
    if (now - lastPrune < PRUNE_EVERY_MS) return;
    lastPrune = now;
    const before = new Date(now - HISTORY_DAYS * 86_400_000).toISOString();
    while ((await store.writer.write((db) => repo.pruneFinished(db, before, 500))) === 500) {}
  }

  let running: Promise<number> | null = null;
  return {
    /**
     * Sends everything due now, batch after batch; returns how many attempts were made. Calls
     * made while one is running join it (the timer and a test may both ask).
     */
    deliverDue(): Promise<number> {
      running ??= (async () => {
        let total = 0;
        try {
          await prune();
          for (let n = BATCH; n === BATCH && !shutdown.signal.aborted; total += n) n = await pass();
        } finally {
          running = null;
        }
        return total;
      })();
      return running;
    },
    /** Aborts attempts in flight (their leases end and a later start retries them) and waits for the pass. */
    async close(): Promise<void> {
      shutdown.abort();
      await running?.catch(() => undefined);
    },
  };
}

export type WebhookDispatcher = ReturnType<typeof createWebhookDispatcher>;
