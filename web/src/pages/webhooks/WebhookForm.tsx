import { useState, type FormEvent } from 'react';
import { ApiError } from '../../lib/errors';
import { WEBHOOK_EVENT_TYPES, type Webhook } from '../../lib/webhooks.js';
import { FieldError, GeneralErrors } from '../parts';

export interface WebhookFields {
  url: string;
  events: string[];
  description: string;
}

const FIELDS = ['url', 'events', 'description'];

/**
 * An endpoint's URL, the events it subscribes to and its description: the form that creates one
 * and the form that edits one. The browser checks nothing (noValidate): the API's 422 items appear
 * under the control they are about.
 */
export function WebhookForm({
  idPrefix,
  initial,
  submitLabel,
  pending,
  error,
  onSubmit,
  onCancel,
}: {
  idPrefix: string;
  initial?: Webhook;
  submitLabel: string;
  pending: boolean;
  error: Error | null;
  onSubmit: (fields: WebhookFields) => void;
  onCancel?: () => void;
}) {
  const [url, setUrl] = useState(initial?.url ?? '');
  const [events, setEvents] = useState<string[]>(initial?.events ?? []);
  const [description, setDescription] = useState(initial?.description ?? '');
  const apiError = error instanceof ApiError ? error : null;
  const toggle = (event: string, on: boolean) =>
    // Kept in the schema's order, whatever the order of the clicks.
    setEvents(WEBHOOK_EVENT_TYPES.filter((e) => (e === event ? on : events.includes(e))));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSubmit({ url: url.trim(), events, description });
  };
  const id = (field: string) => `${idPrefix}-${field}`;

  return (
    <form onSubmit={submit} noValidate>
      <label htmlFor={id('url')}>URL</label>
      <input
        id={id('url')}
        type="url"
        value={url}
        onChange={(e) => setUrl(e.target.value)}
        placeholder="https://example.com/hooks/promptline"
        aria-invalid={apiError?.forField('url') !== undefined}
        autoComplete="off"
      />
      <FieldError message={apiError?.forField('url')} />
      <fieldset className="events" aria-invalid={apiError?.forField('events') !== undefined}>
        <legend>Events</legend>
        {WEBHOOK_EVENT_TYPES.map((event) => (
          <label key={event} className="inline">
            <input type="checkbox" checked={events.includes(event)} onChange={(e) => toggle(event, e.target.checked)} /> <code>{event}</code>
          </label>
        ))}
        <FieldError message={apiError?.forField('events')} />
      </fieldset>
      <label htmlFor={id('description')}>Description (optional)</label>
      <input
        id={id('description')}
        value={description}
        onChange={(e) => setDescription(e.target.value)}
        maxLength={500}
        aria-invalid={apiError?.forField('description') !== undefined}
      />
      <FieldError message={apiError?.forField('description')} />
      <GeneralErrors error={error} fields={FIELDS} />
      <div className="pair">
        <button type="submit" disabled={pending}>
          {submitLabel}
        </button>
        {onCancel !== undefined && (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
