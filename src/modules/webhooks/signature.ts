import crypto from 'node:crypto';

/**
 * Every delivery carries `Promptline-Signature: t=<unix seconds>,v1=<hex>`, where v1 is the
 * HMAC-SHA256, keyed by the endpoint's secret, of `<t>.<the raw body>`. Signing the timestamp with
 * the body lets a receiver refuse a replayed old delivery (check that t is recent, e.g. within
 * 5 minutes) as well as a forged one.
 */
export const SIGNATURE_HEADER = 'promptline-signature';

export function signatureOf(secret: string, timestampSeconds: number, body: string): string {
  return crypto.createHmac('sha256', secret).update(`${timestampSeconds}.${body}`).digest('hex');
}

export function signatureHeader(secret: string, timestampSeconds: number, body: string): string {
  return `t=${timestampSeconds},v1=${signatureOf(secret, timestampSeconds, body)}`;
}

/**
 * What a receiver does, in a few lines (docs/operations.md, "Webhooks", shows it too): parse, recompute, compare in
 * constant time, and refuse a timestamp outside the tolerance.
 */
export function verifySignature(secret: string, header: string, body: string, nowSeconds: number, toleranceSeconds = 300): boolean {
  const parts = new Map(header.split(',').map((part) => part.split('=', 2) as [string, string]));
  const t = Number(parts.get('t'));
  const given = parts.get('v1');
  if (!Number.isInteger(t) || given === undefined || Math.abs(nowSeconds - t) > toleranceSeconds) return false;
  const expected = Buffer.from(signatureOf(secret, t, body), 'hex');
  const actual = Buffer.from(given, 'hex');
  return actual.length === expected.length && crypto.timingSafeEqual(actual, expected);
}

/** A new endpoint secret: 32 random bytes, prefixed so that it is recognisable in a secret scanner. */
export function newWebhookSecret(): string {
  return `whsec_${crypto.randomBytes(32).toString('base64url')}`;
}
