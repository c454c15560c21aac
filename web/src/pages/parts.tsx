import { type ReactNode, useEffect, useRef } from 'react';
import { ApiError } from '../lib/errors';

/**
 * A table that scrolls sideways inside its card when wider than it (a phone at 390 px) instead of
 * widening the page. While it does scroll, the card takes keyboard focus (Tab, then the arrow keys
 * scroll it); while it fits, it is no extra tab stop.
 */
export function TableScroll({ children }: { children: ReactNode }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (element === null) return;
    const update = () => {
      if (element.scrollWidth > element.clientWidth) element.setAttribute('tabindex', '0');
      else element.removeAttribute('tabindex');
    };
    update();
    const observer = new ResizeObserver(update);
    observer.observe(element);
    if (element.firstElementChild !== null) observer.observe(element.firstElementChild);
    return () => observer.disconnect();
  }, []);
  return (
    <div className="table-scroll" ref={box}>
      {children}
    </div>
  );
}

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
