import { lazy, Suspense } from 'react';
import type { Role } from '../lib/api';

/**
 * The Audit log and Webhooks pages, for admin keys only, load on first visit: the first page's
 * JavaScript does not grow for them. App.tsx only routes to these.
 */
const AuditPage = lazy(() => import('./AuditPage').then((m) => ({ default: m.AuditPage })));
const WebhooksPage = lazy(() => import('./WebhooksPage').then((m) => ({ default: m.WebhooksPage })));
const WebhookPage = lazy(() => import('./WebhookPage').then((m) => ({ default: m.WebhookPage })));

const loading = <p className="loading">Loading…</p>;

export function AuditRoute({ role }: { role: Role }) {
  return (
    <Suspense fallback={loading}>
      <AuditPage role={role} />
    </Suspense>
  );
}

export function WebhooksRoute({ role }: { role: Role }) {
  return (
    <Suspense fallback={loading}>
      <WebhooksPage role={role} />
    </Suspense>
  );
}

export function WebhookRoute({ webhookId, role }: { webhookId: string; role: Role }) {
  return (
    <Suspense fallback={loading}>
      <WebhookPage webhookId={webhookId} role={role} />
    </Suspense>
  );
}
