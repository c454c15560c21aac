import { ApiError } from '../lib/errors';

/** An error the page could not attribute to one control: the API's detail, as text. */
export function ErrorNote({ error }: { error: Error | null }) {
  if (error === null) return null;
  const messages = error instanceof ApiError ? error.problems.map((p) => (p.field === null ? p.message : `${p.field}: ${p.message}`)) : [error.message];
  return (
    <div role="alert" className="error">
      {messages.map((m) => (
        <p key={m}>{m}</p>
      ))}
    </div>
  );
}

/** The API's message about one control, right below it. */
export function FieldError({ message }: { message: string | undefined | null }) {
  if (message === undefined || message === null) return null;
  return (
    <p role="alert" className="error field-error">
      {message}
    </p>
  );
}

/**
 * The messages of a failed submit that no control shows: the API's items about fields other than
 * `fields` (those are shown under their control), or the error itself when it is not the API's.
 */
export function GeneralErrors({ error, fields }: { error: Error | null; fields: readonly string[] }) {
  const messages = error === null ? [] : error instanceof ApiError ? error.general(fields) : [error.message];
  if (messages.length === 0) return null;
  return (
    <div role="alert" className="error">
      {messages.map((m) => (
        <p key={m}>{m}</p>
      ))}
    </div>
  );
}
