import { APIConnectionError, APIConnectionTimeoutError, AuthenticationError, BadRequestError, InternalServerError, RateLimitError } from 'openai';
import { describe, expect, it } from 'vitest';
import { ConcurrencyLimiter, QueueAbortedError, QueueTimeoutError } from '../../../src/providers/limiter.js';
import { backoffMs, parseRetryAfterMs, scrub } from '../../../src/providers/retry.js';
import { classifyFailure, MalformedResponseError } from '../../../src/providers/openaiCompatible.js';

describe('backoffMs (full jitter, base 200 ms, cap 5 s)', () => {
  it('is random() times min(cap, base·2^n)', () => {
    expect([0, 1, 2, 3, 4, 5, 6].map((n) => backoffMs(n, () => 1))).toEqual([200, 400, 800, 1600, 3200, 5000, 5000]);
    expect(backoffMs(2, () => 0.25)).toBe(200);
    expect(backoffMs(9, () => 0)).toBe(0);
  });
});

describe('parseRetryAfterMs', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');
  it.each([
    [{ 'retry-after': '2' }, 2000],
    [{ 'retry-after': '0.5' }, 500],
    [{ 'retry-after-ms': '150', 'retry-after': '9' }, 150],
    [{ 'retry-after': 'Wed, 01 Jan 2025 00:00:03 GMT' }, 3000],
    [{ 'retry-after': 'Tue, 31 Dec 2024 23:59:00 GMT' }, 0],
    [{ 'retry-after': 'soon' }, null],
    [{}, null],
  ])('%j → %s', (headers, expected) => {
    expect(parseRetryAfterMs(new Headers(headers), now)).toBe(expected);
  });
});

describe('classifyFailure', () => {
  const headers = new Headers({ 'retry-after': '1' });
  it('retries 429 and 5xx with their Retry-After, never other 4xx', () => {
    expect(classifyFailure(new RateLimitError(429, { message: 'slow down' }, undefined, headers), 'openai', [], 30_000)).toEqual({
      kind: 'retryable',
      status: 429,
      reason: 'openai returned 429: slow down',
      retryAfterMs: 1000,
      timedOut: false,
    });
    expect(classifyFailure(new InternalServerError(503, undefined, 'oops', new Headers()), 'x', [], 30_000).kind).toBe('retryable');
    const bad = classifyFailure(new BadRequestError(400, { message: 'bad temperature' }, undefined, new Headers()), 'x', [], 30_000);
    expect(bad).toEqual({ kind: 'fatal', status: 400, reason: 'x returned 400: bad temperature' });
  });

  it('names connection errors from the cause chain', () => {
    const cause = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    expect(classifyFailure(new APIConnectionError({ cause }), 'x', [], 30_000)).toMatchObject({
      kind: 'retryable',
      reason: 'x: connection reset',
    });
    const refused = Object.assign(new Error('connect'), { code: 'ECONNREFUSED' });
    expect(classifyFailure(new APIConnectionError({ cause: refused }), 'x', [], 30_000).reason).toBe('x: connection refused');
  });

  it("retries a call that outlived the provider's time limit, saying which limit", () => {
    expect(classifyFailure(new APIConnectionTimeoutError(), 'x', [], 150)).toEqual({
      kind: 'retryable',
      status: null,
      reason: 'x timed out after 150 ms',
      retryAfterMs: null,
      timedOut: true,
    });
  });

  it('treats a malformed answer as fatal', () => {
    expect(classifyFailure(new SyntaxError('Unexpected end of JSON input'), 'x', [], 30_000).kind).toBe('fatal');
    expect(classifyFailure(new MalformedResponseError('no choices'), 'x', [], 30_000).reason).toContain('malformed');
  });

  it('never lets a key through', () => {
    const secret = 'my-very-secret-key-123';
    const err = new AuthenticationError(401, { message: `Incorrect API key provided: ${secret} / sk-abc****wxyz` }, undefined, new Headers());
    const reason = classifyFailure(err, 'x', [secret], 30_000).reason;
    expect(reason).not.toContain(secret);
    expect(reason).not.toContain('sk-abc');
    expect(scrub('gsk_abcdef token', [])).toBe('[redacted] token');
  });
});

describe('ConcurrencyLimiter', () => {
  it('admits up to max, queues FIFO, and hands slots over on release', async () => {
    const limiter = new ConcurrencyLimiter(2);
    const r1 = await limiter.acquire(1000);
    const r2 = await limiter.acquire(1000);
    const order: number[] = [];
    const w3 = limiter.acquire(1000).then((r) => {
      order.push(3);
      return r;
    });
    const w4 = limiter.acquire(1000).then((r) => {
      order.push(4);
      return r;
    });
    expect(limiter.queued).toBe(2);
    r1();
    r1(); // idempotent: must not free a second slot
    const r3 = await w3;
    expect(limiter.inFlight).toBe(2);
    expect(limiter.queued).toBe(1);
    r2();
    const r4 = await w4;
    expect(order).toEqual([3, 4]);
    r3();
    r4();
    expect(limiter.inFlight).toBe(0);
  });

  it('times out a waiter and lets it go on abort', async () => {
    const limiter = new ConcurrencyLimiter(1);
    const release = await limiter.acquire(0);
    await expect(limiter.acquire(0)).rejects.toBeInstanceOf(QueueTimeoutError);
    const started = performance.now();
    await expect(limiter.acquire(50)).rejects.toBeInstanceOf(QueueTimeoutError);
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    const ac = new AbortController();
    const waiting = limiter.acquire(5000, [ac.signal]);
    ac.abort();
    await expect(waiting).rejects.toBeInstanceOf(QueueAbortedError);
    expect(limiter.queued).toBe(0);
    release();
    expect(limiter.inFlight).toBe(0);
  });
});
