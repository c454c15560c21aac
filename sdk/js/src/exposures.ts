import { randomUUID } from 'node:crypto';

/**
 * Users this client assigned locally, reported to the server (`POST /sdk/exposures`) so results
 * count them as if `/get_prompt` had been called: gathered per (experiment, user), sent at most
 * every second in batches of at most 1 000, each under its own Idempotency-Key. A batch that failed
 * is sent again as it was (same key, same body) before anything newer, so a batch whose answer was
 * lost is stored once; one the server refuses (a 4xx but 429) is dropped and counted. The queue is bounded: past `maxPending` users, new ones are counted as
 * dropped rather than growing memory during a long outage.
 */

interface Pending {
  experiment_id: string;
  external_user_id: string;
  variant: string;
  calls: number;
  first: number;
  last: number;
}

export interface ExposureBatch {
  key: string;
  body: { exposures: Array<{ experiment_id: string; external_user_id: string; variant: string; calls: number; first_seen: string; last_seen: string }> };
}

const BATCH_SIZE = 1000;

export class ExposureQueue {
  private pending = new Map<string, Pending>();
  /** Taken from `pending`, not yet acknowledged: sent again first. */
  private unsent: ExposureBatch[] = [];
  private unsentItems = 0;
  private flushing: Promise<void> | null = null;
  sent = 0;
  dropped = 0;

  constructor(
    private readonly send: (batch: ExposureBatch) => Promise<void>,
    /** A failure worth sending the batch again for (no answer, 5xx, 429); any other drops it. */
    private readonly retriable: (error: unknown) => boolean,
    private readonly maxPending = 100_000,
  ) {}

  /** Users waiting to be sent. */
  get size(): number {
    return this.pending.size + this.unsentItems;
  }

  add(experimentId: string, userId: string, variant: string, now = Date.now()): void {
    const key = `${experimentId}\u0000${userId}`;
    const known = this.pending.get(key);
    if (known !== undefined) {
      known.calls++;
      known.last = now;
    } else if (this.size >= this.maxPending) {
      this.dropped++;
    } else {
      this.pending.set(key, { experiment_id: experimentId, external_user_id: userId, variant, calls: 1, first: now, last: now });
    }
  }

  /** Sends everything gathered so far; rejects with the first failure (what may yet be stored stays queued). */
  flush(): Promise<void> {
    this.flushing ??= this.sendAll().finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }

  private async sendAll(): Promise<void> {
    const items = [...this.pending.values()];
    this.pending = new Map();
    for (let i = 0; i < items.length; i += BATCH_SIZE) {
      const exposures = items.slice(i, i + BATCH_SIZE).map((p) => ({
        experiment_id: p.experiment_id,
        external_user_id: p.external_user_id,
        variant: p.variant,
        calls: p.calls,
        first_seen: new Date(p.first).toISOString(),
        last_seen: new Date(p.last).toISOString(),
      }));
      this.unsent.push({ key: randomUUID(), body: { exposures } });
      this.unsentItems += exposures.length;
    }
    let refused: unknown = null;
    while (this.unsent.length > 0) {
      const batch = this.unsent[0]!;
      const size = batch.body.exposures.length;
      try {
        await this.send(batch);
        this.sent += size;
      } catch (error) {
        if (this.retriable(error)) throw error;
        // Refused for good (a revoked key, say): sending it again would be refused again.
        this.dropped += size;
        refused ??= error;
      }
      this.unsent.shift();
      this.unsentItems -= size;
    }
    if (refused !== null) throw refused;
  }
}
