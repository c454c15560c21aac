import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { useLocation } from 'wouter';
import { api } from '../../lib/api';
import type { DeletedState, Delivery, Webhook, WebhookWithSecret } from '../../lib/webhooks.js';
import { useFocusOnMount } from '../focus';
import { ErrorNote } from '../parts';
import { ConfirmAction } from './ConfirmAction';
import { NewSecret } from './NewSecret';
import { TestOutcome } from './TestOutcome';
import { WebhookForm, type WebhookFields } from './WebhookForm';

/**
 * Edit, disable or enable, send a test, rotate the secret, delete. Each result is shown where it
 * happened and takes the focus: `onDone` says it in a sentence, a new secret and a test's outcome
 * have panels of their own.
 */
export function WebhookActions({ webhook, onDone }: { webhook: Webhook; onDone: (text: string) => void }) {
  const id = webhook.webhook_id;
  const path = `/webhooks/${encodeURIComponent(id)}`;
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  const [editing, setEditing] = useState(false);
  const editButton = useRef<HTMLButtonElement>(null);
  const testButton = useRef<HTMLButtonElement>(null);
  const refresh = async (changed?: Webhook) => {
    if (changed !== undefined) queryClient.setQueryData(['webhook', id], changed);
    await queryClient.invalidateQueries({ queryKey: ['webhooks'] });
  };

  const save = useMutation({
    mutationFn: (fields: WebhookFields) => api<Webhook>('PATCH', path, fields),
    onSuccess: async (changed) => {
      setEditing(false);
      await refresh(changed);
      onDone('Saved.');
    },
  });
  const toggle = useMutation({
    mutationFn: () => api<Webhook>('PATCH', path, { enabled: !webhook.enabled }),
    onSuccess: async (changed) => {
      await refresh(changed);
      onDone(
        changed.enabled
          ? 'Enabled: events are queued for this endpoint again, and the deliveries that waited are sent.'
          : 'Disabled: no new event is queued for this endpoint, and queued deliveries wait until it is enabled again.',
      );
    },
  });
  const test = useMutation({
    mutationFn: () => api<Delivery>('POST', `${path}/test`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['deliveries', id] }),
  });
  const rotate = useMutation({
    mutationFn: () => api<WebhookWithSecret>('POST', `${path}/rotate_secret`),
    onSuccess: async (changed) => {
      const { secret: _shownOnce, ...view } = changed;
      await refresh(view);
    },
  });
  const remove = useMutation({
    mutationFn: () => api<void>('DELETE', path),
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: ['webhook', id] });
      queryClient.removeQueries({ queryKey: ['deliveries', id] });
      await queryClient.invalidateQueries({ queryKey: ['webhooks'] });
      const state: DeletedState = { deletedUrl: webhook.url };
      navigate('/webhooks', { state });
    },
  });

  return (
    <section aria-labelledby="webhook-actions-title">
      <h2 id="webhook-actions-title" className="visually-hidden">
        Actions
      </h2>
      <div className="actions">
        <button type="button" ref={editButton} onClick={() => setEditing(true)} aria-expanded={editing}>
          Edit
        </button>
        <button type="button" onClick={() => toggle.mutate()} disabled={toggle.isPending}>
          {webhook.enabled ? 'Disable' : 'Enable'}
        </button>
        <button type="button" ref={testButton} onClick={() => test.mutate()} disabled={test.isPending}>
          Send test
        </button>
        <ConfirmAction
          key={`rotate-${rotate.data?.updated_at ?? ''}`}
          label="Rotate secret"
          question="Rotate the signing secret? The old one stops signing at once: the receiver must be given the new one."
          confirmLabel="Confirm: rotate the secret"
          pending={rotate.isPending}
          error={rotate.error}
          onConfirm={() => rotate.mutate()}
        />
        <ConfirmAction
          label="Delete"
          question={`Delete ${webhook.url}? Its queued deliveries and their history go with it.`}
          confirmLabel="Confirm: delete the endpoint"
          pending={remove.isPending}
          error={remove.error}
          onConfirm={() => remove.mutate()}
        />
      </div>
      <ErrorNote error={toggle.error ?? test.error} />
      {editing && (
        <EditWebhook
          webhook={webhook}
          pending={save.isPending}
          error={save.error}
          onSubmit={(f) => save.mutate(f)}
          onCancel={() => {
            save.reset();
            setEditing(false);
            editButton.current?.focus();
          }}
        />
      )}
      {rotate.data !== undefined && (
        <NewSecret
          key={rotate.data.updated_at}
          title="New signing secret"
          secret={rotate.data.secret}
          onDone={() => {
            rotate.reset();
            // The next step after a rotation: a test, signed with the new secret.
            testButton.current?.focus();
          }}
        />
      )}
      {test.data !== undefined && <TestOutcome key={test.data.delivery_id} webhookId={id} queued={test.data} enabled={webhook.enabled} />}
    </section>
  );
}

function EditWebhook({
  webhook,
  pending,
  error,
  onSubmit,
  onCancel,
}: {
  webhook: Webhook;
  pending: boolean;
  error: Error | null;
  onSubmit: (fields: WebhookFields) => void;
  onCancel: () => void;
}) {
  const heading = useFocusOnMount<HTMLHeadingElement>();
  return (
    <section aria-labelledby="edit-webhook-title">
      <h3 id="edit-webhook-title" ref={heading} tabIndex={-1}>
        Edit the endpoint
      </h3>
      <WebhookForm idPrefix="edit-webhook" initial={webhook} submitLabel="Save" pending={pending} error={error} onSubmit={onSubmit} onCancel={onCancel} />
    </section>
  );
}
