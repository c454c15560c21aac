import { describe, expect, it } from 'vitest';
import { newWebhookSecret, signatureHeader, signatureOf, verifySignature } from '../../../src/modules/webhooks/signature.js';

// Computed independently: printf '1700000000.{"a":1}' | openssl dgst -sha256 -hmac 'whsec_test'
const VECTOR = '38877139021993b830af32feea6e18a8da83eb2f6e49ee50bd9e4cf4ca4d3789';

describe('delivery signatures', () => {
  it('is the HMAC-SHA256 of "<t>.<body>" under the endpoint secret', () => {
    expect(signatureOf('whsec_test', 1_700_000_000, '{"a":1}')).toBe(VECTOR);
    expect(signatureHeader('whsec_test', 1_700_000_000, '{"a":1}')).toBe(`t=1700000000,v1=${VECTOR}`);
  });

  const header = `t=1700000000,v1=${VECTOR}`;
  it.each<[string, string, string, string, number, boolean]>([
    ['the signed body, in time', 'whsec_test', header, '{"a":1}', 1_700_000_000, true],
    ['at the edge of the 5-minute tolerance', 'whsec_test', header, '{"a":1}', 1_700_000_300, true],
    ['a replay after the tolerance', 'whsec_test', header, '{"a":1}', 1_700_000_301, false],
    ['a timestamp from the future beyond it', 'whsec_test', header, '{"a":1}', 1_699_999_699, false],
    ['a changed body', 'whsec_test', header, '{"a":2}', 1_700_000_000, false],
    ['another secret', 'whsec_other', header, '{"a":1}', 1_700_000_000, false],
    ['a timestamp changed without re-signing', 'whsec_test', `t=1700000001,v1=${VECTOR}`, '{"a":1}', 1_700_000_001, false],
    ['no v1', 'whsec_test', 't=1700000000', '{"a":1}', 1_700_000_000, false],
    ['no t', 'whsec_test', `v1=${VECTOR}`, '{"a":1}', 1_700_000_000, false],
    ['a truncated signature', 'whsec_test', `t=1700000000,v1=${VECTOR.slice(0, 10)}`, '{"a":1}', 1_700_000_000, false],
    ['garbage', 'whsec_test', 'nonsense', '{"a":1}', 1_700_000_000, false],
  ])('verify: %s', (_case, secret, given, body, now, expected) => {
    expect(verifySignature(secret, given, body, now)).toBe(expected);
  });

  it('makes secrets of 32 random bytes with a recognisable prefix, never the same twice', () => {
    const a = newWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(newWebhookSecret()).not.toBe(a);
  });
});
