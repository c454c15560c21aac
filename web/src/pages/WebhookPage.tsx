import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'wouter';
import type { Role } from '../lib/api';
import { api } from '../lib/api';
import { formatTime } from '../lib/format.js';
import type { Webhook } from '../lib/webhooks.js';
import { AdminOnly } from './AdminOnly';
import { ErrorNote } from './parts';
import { Deliveries } from './webhooks/Deliveries';
import { FocusedNotice } from './webhooks/FocusedNotice';
import { StateChip } from './webhooks/StateChip';
import { WebhookActions } from './webhooks/WebhookActions';
import './runs.css';
import './admin.css';

/** One webhook endpoint (admin keys only): its settings, what can be done to it, and its delivery history. */
export function WebhookPage({ webhookId, role }: { webhookId: string; role: Role }) {
  if (role !== 'admin') return <AdminOnly title="Webhook" what="only they manage webhooks" />;
  return <WebhookDetail webhookId={webhookId} />;
}

function WebhookDetail({ webhookId }: { webhookId: string }) {
  const hook = useQuery({ queryKey: ['webhook', webhookId], queryFn: () => api<Webhook>('GET', `/webhooks/${encodeURIComponent(webhookId)}`) });
  // The last action's result in words ("Saved.", "Disabled: …"), made anew (and focused) each time.
  const [notice, setNotice] = useState<{ text: string; n: number } | null>(null);
  const say = (text: string) => setNotice((last) => ({ text, n: (last?.n ?? 0) + 1 }));
  const w = hook.data;

  return (
    <section aria-labelledby="webhook-title">
      <p className="crumbs">
        <Link href="/webhooks">Webhooks</Link>
      </p>
      <h1 id="webhook-title" className="webhook-title">
        Webhook {w === undefined ? webhookId : w.url}
      </h1>
      <ErrorNote error={hook.error} />
      {hook.isPending && <p className="loading">Loading…</p>}
      {w !== undefined && (
        <>
          <dl className="facts webhook-facts">
            <dt>Id</dt>
            <dd>
              <code>{w.webhook_id}</code>
            </dd>
            <dt>URL</dt>
            <dd>
              <code>{w.url}</code>
            </dd>
            <dt>Events</dt>
            <dd>
              {w.events.map((e) => (
                <span key={e} className="chip">
                  {e}
                </span>
              ))}
            </dd>
            <dt>Description</dt>
            <dd>{w.description === '' ? <span className="muted">none</span> : w.description}</dd>
            <dt>State</dt>
            <dd>
              <StateChip enabled={w.enabled} />
            </dd>
            <dt>Created</dt>
            <dd>{formatTime(w.created_at)}</dd>
            <dt>Changed</dt>
            <dd>{formatTime(w.updated_at)}</dd>
          </dl>
          {notice !== null && <FocusedNotice key={notice.n} text={notice.text} />}
          <WebhookActions webhook={w} onDone={say} />
          <Deliveries webhookId={w.webhook_id} enabled={w.enabled} />
        </>
      )}
    </section>
  );
}
