/**
 * Token buckets by name, each refilled continuously at `perMinute / 60 000` tokens a millisecond up
 * to `perMinute` tokens: a client may burst a minute's allowance, then goes at the steady rate.
 * Time is a parameter (milliseconds on any monotonic clock), so the arithmetic is testable.
 *
 * Memory is bounded: past `maxEntries` names, buckets that have refilled completely (which behave
 * exactly like absent ones) are dropped, then the oldest if that is not enough.
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly maxEntries: number) {}

  /** Takes one token. Returns 0 when one was taken, else the milliseconds until one will be there. */
  take(name: string, perMinute: number, now: number): number {
    const bucket = this.refilled(name, perMinute, now);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.ceil((1 - bucket.tokens) * (60_000 / perMinute));
  }

  /** Like `take`, without taking: 0 when a token is there. */
  wait(name: string, perMinute: number, now: number): number {
    const bucket = this.buckets.get(name);
    if (bucket === undefined) return 0;
    const tokens = tokensAt({ ...bucket, perMinute }, now);
    return tokens >= 1 ? 0 : Math.ceil((1 - tokens) * (60_000 / perMinute));
  }

  get size(): number {
    return this.buckets.size;
  }

  private refilled(name: string, perMinute: number, now: number): Bucket {
    let bucket = this.buckets.get(name);
    if (bucket === undefined) {
      if (this.buckets.size >= this.maxEntries) this.prune(now);
      bucket = { tokens: perMinute, perMinute, at: now };
      this.buckets.set(name, bucket);
      return bucket;
    }
    bucket.tokens = tokensAt(bucket, now);
    bucket.perMinute = perMinute;
    bucket.at = now;
    return bucket;
  }

  private prune(now: number): void {
    for (const [name, bucket] of this.buckets) {
      if (tokensAt(bucket, now) >= bucket.perMinute) this.buckets.delete(name);
    }
    if (this.buckets.size < this.maxEntries) return;
    // Every bucket is in use: the oldest half goes (a Map keeps insertion order).
    let excess = this.buckets.size - Math.floor(this.maxEntries / 2);
    for (const name of this.buckets.keys()) {
      if (excess-- <= 0) break;
      this.buckets.delete(name);
    }
  }
}

interface Bucket {
  tokens: number;
  perMinute: number;
  at: number;
}

function tokensAt(bucket: Bucket, now: number): number {
  return Math.min(bucket.perMinute, bucket.tokens + ((now - bucket.at) * bucket.perMinute) / 60_000);
}
