import { useQuery } from '@tanstack/react-query';
import { api, type Role } from './api';
import { ApiError } from './errors';

/** Who the console is signed in as: `GET /session` (src/modules/sessions/sessions.schemas.ts). */
export interface SignedIn {
  project_id: string;
  key_id: string;
  key_name: string;
  key_prefix: string;
  role: Role;
  authenticated_by: 'session' | 'api_key';
  expires_at: string | null;
}

export const SESSION_QUERY = ['session'] as const;

/**
 * The browser's session, asked of the server on load: the key itself never reaches this page's
 * scripts after sign-in (the server keeps the session; the browser an HttpOnly cookie it sends on
 * its own), so every tab of this browser, and a deep link opened in a new one, is signed in.
 * null: not signed in (no cookie: 422; an ended or expired session: 401).
 */
export async function currentSession(): Promise<SignedIn | null> {
  try {
    return await api<SignedIn>('GET', '/session');
  } catch (error) {
    if (error instanceof ApiError && (error.status === 401 || error.status === 422)) return null;
    throw error;
  }
}

/** The session as the shell loaded it (never asked again: sign-in and sign-out set it). */
export function useSession() {
  return useQuery({ queryKey: SESSION_QUERY, queryFn: currentSession, staleTime: Number.POSITIVE_INFINITY, retry: false });
}

/** Exchanges a read or admin key for the session cookie: the one request that sends the key. */
export function signIn(key: string): Promise<SignedIn> {
  return api<SignedIn>('POST', '/session', undefined, { 'x-api-key': key });
}

/** Ends the session on the server (the cookie then opens nothing, wherever it is) and has the browser drop it. */
export async function signOut(): Promise<void> {
  try {
    await api('DELETE', '/session');
  } catch (error) {
    // Already ended or expired: signed out all the same.
    if (!(error instanceof ApiError && (error.status === 401 || error.status === 422))) throw error;
  }
}
