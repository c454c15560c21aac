import { type FormEvent, useEffect, useRef, useState } from 'react';
import { ApiError } from '../lib/errors';
import { type SignedIn, signIn } from '../lib/session';

/**
 * Paste a read or admin API key once: the server answers with a session cookie (HttpOnly, so no
 * script of this page ever holds the key again), and every tab of this browser is signed in.
 */
export function SignInPage({ onSignedIn }: { onSignedIn: (signedIn: SignedIn) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const field = useRef<HTMLInputElement>(null);
  // The one thing to do on this page: the cursor waits in the key field.
  useEffect(() => field.current?.focus(), []);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      onSignedIn(await signIn(key.trim()));
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) setError('This key is not valid (unknown, revoked or expired).');
      else if (e instanceof ApiError && e.status === 403) setError('A runtime key cannot open the console: use a read or admin key.');
      else setError(e instanceof Error ? e.message : String(e));
      field.current?.focus();
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="narrow" id="main" tabIndex={-1}>
      <h1>Promptline</h1>
      <form onSubmit={submit} aria-describedby="signin-help">
        <label htmlFor="api-key">API key</label>
        <input
          id="api-key"
          ref={field}
          type="password"
          autoComplete="off"
          value={key}
          onChange={(e) => setKey(e.target.value)}
          aria-invalid={error !== null}
          aria-describedby={error === null ? undefined : 'signin-error'}
          required
        />
        <p id="signin-help" className="help">
          A read key sees everything; an admin key can also edit. The key is sent once: this browser then keeps a session (a cookie no script can read) for 12
          hours at most, until you sign out, or until the key is revoked or expires.
        </p>
        {error !== null && (
          <p id="signin-error" role="alert" className="error">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy || key.trim() === ''}>
          Sign in
        </button>
      </form>
    </main>
  );
}
