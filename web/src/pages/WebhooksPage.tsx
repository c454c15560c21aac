import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { Link } from 'wouter';
import type { Role } from '../lib/api';
import { api } from '../lib/api';
import { formatTime } from '../lib/format.js';
import type { DeletedState, Webhook, WebhookWithSecret } from '../lib/webhooks.js';
import { AdminOnly } from './AdminOnly';
import { ErrorNote, TableScroll } from './parts';
import { FocusedNotice } from './webhooks/FocusedNotice';
import { NewSecret } from './webhooks/NewSecret';
import { StateChip } from './webhooks/StateChip';
import { WebhookForm, type WebhookFields } from './webhooks/WebhookForm';
import './runs.css';
import './admin.css';

/** The project's webhook endpoints (admin keys only): list, and create (the signing secret is shown once). */
export function WebhooksPage({ role }: { role: Role }) {
  if (role !== 'admin') return <AdminOnly title="Webhooks" what="only they manage webhooks" />;
  return <Webhooks />;
}

function Webhooks() {
  const hooks = useQuery({ queryKey: ['webhooks'], queryFn: () => api<{ data: Webhook[] }>('GET', '/webhooks') });
  const [deleted] = useState(() => (window.history.state as Partial<DeletedState> | null)?.deletedUrl);
  useEffect(() => {
    // Said once: a reload of the list does not say it again.
    if (deleted !== undefined) window.history.replaceState(null, '', window.location.href);
  }, [deleted]);
  const list = hooks.data?.data ?? [];
  const listTitle = useRef<HTMLHeadingElement>(null);
  return (
    <section aria-labelledby="webhooks-title">
      <h1 id="webhooks-title">Webhooks</h1>
      <p className="help">
        Promptline POSTs a signed JSON event to each endpoint when something it subscribes to happens (a version made, a label moved, an experiment started,
        paused, stopped, flagged or decided), and tries again for 24 hours if the receiver fails.
      </p>
      {deleted !== undefined && <FocusedNotice text={`Deleted the endpoint ${deleted}, with its queued deliveries and their history.`} />}
      <CreateWebhook onSecretHidden={() => listTitle.current?.focus()} />
      <h2 id="endpoints-title" ref={listTitle} tabIndex={-1}>
        Endpoints
      </h2>
      <ErrorNote error={hooks.error} />
      {hooks.isPending ? (
        <p className="loading">Loading…</p>
      ) : list.length === 0 ? (
        hooks.isSuccess && <p className="empty">No webhook endpoints yet.</p>
      ) : (
        <TableScroll>
          <table className="webhooks">
            <thead>
              <tr>
                <th scope="col">URL</th>
                <th scope="col">Events</th>
                <th scope="col">State</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {list.map((w) => (
                <tr key={w.webhook_id} data-webhook-id={w.webhook_id} className={w.enabled ? undefined : 'inactive'}>
                  <td>
                    <Link href={`/webhooks/${encodeURIComponent(w.webhook_id)}`}>{w.url}</Link>
                    {w.description !== '' && <p className="muted">{w.description}</p>}
                  </td>
                  <td>
                    {w.events.map((e) => (
                      <span key={e} className="chip">
                        {e}
                      </span>
                    ))}
                  </td>
                  <td>
                    <StateChip enabled={w.enabled} />
                  </td>
                  <td>{formatTime(w.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </section>
  );
}

/** A new endpoint; once its secret is hidden, `onSecretHidden` moves the focus on (to the list, where it now is). */
function CreateWebhook({ onSecretHidden }: { onSecretHidden: () => void }) {
  const queryClient = useQueryClient();
  // The form is made anew after each create, so it starts empty.
  const [formKey, setFormKey] = useState(0);
  const create = useMutation({
    mutationFn: (fields: WebhookFields) =>
      api<WebhookWithSecret>('POST', '/webhooks', {
        url: fields.url,
        events: fields.events,
        ...(fields.description.trim() === '' ? {} : { description: fields.description }),
      }),
    onSuccess: async () => {
      setFormKey((k) => k + 1);
      await queryClient.invalidateQueries({ queryKey: ['webhooks'] });
    },
  });
  const created = create.data;
  return (
    <section aria-labelledby="create-webhook-title">
      <h2 id="create-webhook-title">New endpoint</h2>
      {created !== undefined && (
        <NewSecret
          title={`Endpoint ${created.url} created`}
          secret={created.secret}
          onDone={() => {
            create.reset();
            onSecretHidden();
          }}
        >
          <p>
            <Link href={`/webhooks/${encodeURIComponent(created.webhook_id)}`}>Open the endpoint</Link> to send it a test event.
          </p>
        </NewSecret>
      )}
      <WebhookForm
        key={formKey}
        idPrefix="new-webhook"
        submitLabel="Create endpoint"
        pending={create.isPending}
        error={create.error}
        onSubmit={(f) => create.mutate(f)}
      />
    </section>
  );
}
