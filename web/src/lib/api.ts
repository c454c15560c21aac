import { ApiError } from './errors';
import { session } from './session';

/** Fired when the API refuses the key (401): the console goes back to sign-in. */
export const SIGNED_OUT_EVENT = 'promptline:signed-out';

/** The public API, with the signed-in key: the console can do nothing the CLI or curl could not. */
export async function api<T>(method: string, path: string, body?: unknown, key = session.key()): Promise<T> {
  const headers: Record<string, string> = {};
  if (key !== null) headers['x-api-key'] = key;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  if (res.status === 401 && key === session.key()) {
    session.signOut();
    window.dispatchEvent(new Event(SIGNED_OUT_EVENT));
  }
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

/**
 * What the key may do, asked of the API itself: only an admin key may list keys. A runtime key
 * cannot read prompts at all, so it cannot sign in.
 */
export async function roleOf(key: string): Promise<Role> {
  await api('GET', '/prompts?limit=1', undefined, key);
  try {
    await api('GET', '/keys', undefined, key);
    return 'admin';
  } catch (error) {
    if (error instanceof ApiError && error.status === 403) return 'read';
    throw error;
  }
}
