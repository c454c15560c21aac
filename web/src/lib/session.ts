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
 * Whether this browser signed in since it last signed out: a hint with no secret in it (the session
 * is the HttpOnly cookie, which no script can see), kept so a browser that never signed in shows the
 * sign-in form without first asking the server and getting a refusal in its console.
 */
const HINT = 'promptline.signedIn';
const hint = {
  get: () => localStorage.getItem(HINT) === '1',
  set: (on: boolean) => (on ? localStorage.setItem(HINT, '1') : localStorage.removeItem(HINT)),
};

/** Forgets that this browser is signed in (the server refused its session). */
export function forgetSession(): void {
  hint.set(false);
}

/**
 * The browser's session, asked of the server on load: the key itself never reaches this page's
 * scripts after sign-in (the server keeps the session; the browser an HttpOnly cookie it sends on
 * its own), so every tab of this browser, and a deep link opened in a new one, is signed in.
 * null: not signed in (no cookie: 422; an ended or expired session: 401).
 */
async function currentSession(): Promise<SignedIn | null> {
  if (!hint.get()) return null;
  try {
    return await api<SignedIn>('GET', '/session');
  } catch (error) {
    if (error instanceof ApiError && (error.status === 401 || error.status === 422)) {
      hint.set(false);
      return null;
    }
    throw error;
  }
}

/** The session as the shell loaded it (never asked again: sign-in and sign-out set it). */
export function useSession() {
  return useQuery({ queryKey: SESSION_QUERY, queryFn: currentSession, staleTime: Number.POSITIVE_INFINITY, retry: false });
}

/** Exchanges a read or admin key for the session cookie: the one request that sends the key. */
export async function signIn(key: string): Promise<SignedIn> {
  const signedIn = await api<SignedIn>('POST', '/session', undefined, { 'x-api-key': key });
  hint.set(true);
  return signedIn;
}

/** Ends the session on the server (the cookie then opens nothing, wherever it is) and has the browser drop it. */
export async function signOut(): Promise<void> {
  hint.set(false);
  try {
    await api('DELETE', '/session');
  } catch (error) {
    // Already ended or expired: signed out all the same.
    if (!(error instanceof ApiError && (error.status === 401 || error.status === 422))) throw error;
  }
}
