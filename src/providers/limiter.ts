// Per-provider cap on concurrent calls. Callers beyond the cap wait in FIFO order for a bounded
// time, so one slow provider queues its own callers and nobody else's.

export class QueueTimeoutError extends Error {
  override readonly name = 'QueueTimeoutError';
}
export class QueueAbortedError extends Error {
  override readonly name = 'QueueAbortedError';
}

interface Waiter {
  grant: (release: () => void) => void;
  fail: (err: Error) => void;
}

export class ConcurrencyLimiter {
  private active = 0;
  // A Set iterates in insertion order, so its first element is the oldest waiter, and a waiter
  // that gives up is removed in O(1).
  private readonly waiters = new Set<Waiter>();

  constructor(readonly max: number) {}

  get inFlight(): number {
    return this.active;
  }
  get queued(): number {
    return this.waiters.size;
  }

  /** Resolves to a release function (idempotent). Rejects after `timeoutMs` or on abort. */
  acquire(timeoutMs: number, signals: readonly AbortSignal[] = []): Promise<() => void> {
    if (this.active < this.max && this.waiters.size === 0) {
      this.active += 1;
      return Promise.resolve(this.releaser());
    }
    if (signals.some((s) => s.aborted)) return Promise.reject(new QueueAbortedError('aborted while queued'));
    if (timeoutMs <= 0) return Promise.reject(new QueueTimeoutError('queue full'));
    return new Promise((resolve, reject) => {
      const cleanup = () => {
        clearTimeout(timer);
        for (const s of signals) s.removeEventListener('abort', onAbort);
        this.waiters.delete(waiter);
      };
      const waiter: Waiter = {
        grant: (release) => {
          cleanup();
          resolve(release);
        },
        fail: (err) => {
          cleanup();
          reject(err);
        },
      };
      const onAbort = () => waiter.fail(new QueueAbortedError('aborted while queued'));
      const timer = setTimeout(() => waiter.fail(new QueueTimeoutError(`no slot within ${timeoutMs} ms`)), timeoutMs);
      for (const s of signals) s.addEventListener('abort', onAbort, { once: true });
      this.waiters.add(waiter);
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiters.values().next();
      // Hand the slot straight to the oldest waiter: `active` stays the same.
      if (!next.done) next.value.grant(this.releaser());
      else this.active -= 1;
    };
  }
}
