import type { Static } from '@sinclair/typebox';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { AuditPageSchema, ListAuditQuery } from '../../../src/modules/audit/audit.schemas.js';
import {
  EVENT_TYPES,
  type CreatedWebhookSchema,
  type DeliverySchema,
  type ListDeliveriesQuery,
  type WebhookSchema,
} from '../../../src/modules/webhooks/webhooks.schemas.js';
import { type AUDIT_FILTERS, type AUDIT_TARGET_TYPES, targetHref, type AuditEntry } from '../../../web/src/lib/audit.js';
import { clipped, jsonDiff } from '../../../web/src/lib/jsonDiff.js';
import { urlFilters } from '../../../web/src/lib/urlFilters.js';
import { type DELIVERY_STATUSES, firstAttemptPending, lastAnswer, WEBHOOK_EVENT_TYPES, type Delivery, type Webhook, type WebhookWithSecret } from '../../../web/src/lib/webhooks.js';

describe("the Audit log and Webhooks pages' types and lists fit the API's schemas", () => {
  it('answers fit what the console reads', () => {
    expectTypeOf<Static<typeof AuditPageSchema>['data'][number]>().toExtend<AuditEntry>();
    expectTypeOf<Static<typeof WebhookSchema>>().toExtend<Webhook>();
    expectTypeOf<Static<typeof CreatedWebhookSchema>>().toExtend<WebhookWithSecret>();
    expectTypeOf<Static<typeof DeliverySchema>>().toExtend<Delivery>();
  });

  it('the event types, target types and delivery statuses offered are exactly those the API takes', () => {
    expect(WEBHOOK_EVENT_TYPES).toEqual(EVENT_TYPES);
    expectTypeOf<(typeof AUDIT_TARGET_TYPES)[number]>().toEqualTypeOf<NonNullable<Static<typeof ListAuditQuery>['target_type']>>();
    expectTypeOf<(typeof DELIVERY_STATUSES)[number]>().toEqualTypeOf<NonNullable<Static<typeof ListDeliveriesQuery>['status']>>();
    // Every filter is a parameter of the API's list (the URL's names are the API's).
    expectTypeOf<(typeof AUDIT_FILTERS.keys)[number]>().toExtend<keyof Static<typeof ListAuditQuery>>();
  });
});

describe('list filters in the URL', () => {
  const f = urlFilters(['a', 'b'] as const);
  it('reads known names only, trimmed, blank ones dropped, and writes them in a stable order', () => {
    expect(f.fromSearch('?b=%202%20&a=&c=3&cursor=x')).toEqual({ b: '2' });
    expect(f.toSearch({ b: '2', a: 'x&y' })).toBe('a=x%26y&b=2');
    expect(f.href('/audit', {})).toBe('/audit');
    expect(f.href('/audit', { a: ' ' })).toBe('/audit');
    expect(f.href('/audit', { b: 'q' })).toBe('/audit?b=q');
    expect(f.pagePath('/audit', { a: '1' })).toBe('/audit?a=1&limit=50');
    expect(f.pagePath('/audit', { a: '1' }, 'c/1', 10)).toBe('/audit?a=1&limit=10&cursor=c%2F1');
  });
});

describe('jsonDiff: what changed between two JSON documents', () => {
  it('a changed field reads before → after; unchanged ones are left out', () => {
    expect(jsonDiff({ label: 'production', version: 1 }, { label: 'production', version: 2 })).toEqual([{ path: 'version', before: '1', after: '2' }]);
  });
  it('nested objects by dotted path, arrays of objects by index, arrays of plain values whole', () => {
    const before = { params: { temperature: 0.2 }, variants: [{ key: 'a', weight: 50 }], events: ['x', 'y'], gone: true };
    const after = { params: { temperature: 0.7, top_p: 1 }, variants: [{ key: 'a', weight: 70 }], events: ['x', 'z'] };
    expect(jsonDiff(before, after)).toEqual([
      { path: 'params.temperature', before: '0.2', after: '0.7' },
      { path: 'params.top_p', after: '1' },
      { path: 'variants[0].weight', before: '50', after: '70' },
      { path: 'events', before: '["x","y"]', after: '["x","z"]' },
      { path: 'gone', before: 'true' },
    ]);
  });
  it('a new object is its fields added, a removed one its fields removed; empty containers and nulls count', () => {
    expect(jsonDiff(null, { id: 'w', labels: {}, model: null })).toEqual([
      { path: 'id', after: '"w"' },
      { path: 'labels', after: '{}' },
      { path: 'model', after: 'null' },
    ]);
    expect(jsonDiff({ label: 'canary', version: 3 }, null)).toEqual([
      { path: 'label', before: '"canary"' },
      { path: 'version', before: '3' },
    ]);
    expect(jsonDiff({ a: { b: 1 } }, { a: {} })).toEqual([
      { path: 'a', after: '{}' },
      { path: 'a.b', before: '1' },
    ]);
    expect(jsonDiff({ same: [1] }, { same: [1] })).toEqual([]);
  });
  it('clips long values for the one-line summary', () => {
    expect(clipped('"short"')).toBe('"short"');
    expect(clipped('x'.repeat(200), 10)).toBe(`${'x'.repeat(9)}…`);
  });
});

describe('audit targets and delivery answers in words', () => {
  it('links a target to its console page where there is one', () => {
    expect(targetHref({ target_type: 'prompt', target_id: 'a b', action: 'prompt.created' })).toBe('/prompts/a%20b');
    expect(targetHref({ target_type: 'experiment', target_id: 'e', action: 'experiment.started' })).toBe('/experiments/e');
    expect(targetHref({ target_type: 'webhook', target_id: 'whk_1', action: 'webhook.updated' })).toBe('/webhooks/whk_1');
    expect(targetHref({ target_type: 'webhook', target_id: 'whk_1', action: 'webhook.deleted' })).toBeNull();
    expect(targetHref({ target_type: 'key', target_id: 'key_1', action: 'key.revoked' })).toBe('/keys');
    expect(targetHref({ target_type: 'user', target_id: 'u', action: 'user.forgotten' })).toBeNull();
  });
  it("says the receiver's last answer", () => {
    expect(lastAnswer({ attempts: 0, last_status_code: null, last_error: null })).toBe('not tried yet');
    expect(lastAnswer({ attempts: 1, last_status_code: 204, last_error: null })).toBe('HTTP 204');
    expect(lastAnswer({ attempts: 2, last_status_code: 500, last_error: 'HTTP 500: down' })).toBe('HTTP 500: down');
    expect(lastAnswer({ attempts: 3, last_status_code: null, last_error: 'connection refused' })).toBe('connection refused');
  });
  it('follows a test delivery until its first attempt is over, not merely taken by the sender', () => {
    const d = { status: 'pending' as const, attempts: 0, last_status_code: null, last_error: null };
    expect(firstAttemptPending(d)).toBe(true);
    expect(firstAttemptPending({ ...d, attempts: 1 })).toBe(true); // claimed: the receiver has not answered yet
    expect(firstAttemptPending({ ...d, attempts: 1, last_error: 'connection refused' })).toBe(false);
    expect(firstAttemptPending({ ...d, attempts: 1, last_status_code: 500, last_error: 'HTTP 500' })).toBe(false);
    expect(firstAttemptPending({ ...d, status: 'delivered' as const, attempts: 1, last_status_code: 204 })).toBe(false);
    expect(firstAttemptPending({ ...d, attempts: 2 })).toBe(false);
  });
});
