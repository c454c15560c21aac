import { ApiError } from './errors';

/** Fired when the API refuses the session (401): the console goes back to sign-in. */
export const SIGNED_OUT_EVENT = 'promptline:signed-out';

/**
 * The public API, authenticated by the browser's session cookie (sent by the browser itself, same
 * origin only): the console can do nothing the CLI or curl could not. `headers` adds to the request
 * (sign-in's X-API-Key); the browser adds Origin to writes, which the server requires of them.
 */
export async function api<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
  const sent: Record<string, string> = { ...headers };
  if (body !== undefined) sent['content-type'] = 'application/json';
  const res = await fetch(path, { method, headers: sent, credentials: 'same-origin', ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  // A refused key at sign-in is the sign-in form's to explain; a refused session sends every page back to it.
  if (res.status === 401 && headers['x-api-key'] === undefined) window.dispatchEvent(new Event(SIGNED_OUT_EVENT));
  const text = await res.text();
  const json: unknown = text === '' ? undefined : safeJson(text);
  if (!res.ok) throw new ApiError(res.status, (json as { detail?: unknown } | undefined)?.detail ?? text);
  return json as T;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export type Role = 'admin' | 'read';
