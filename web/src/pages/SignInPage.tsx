import { useState, type FormEvent } from 'react';
import { roleOf } from '../lib/api';
import { ApiError } from '../lib/errors';

/** Paste a read or admin API key; it stays in this tab only (sessionStorage). */
export function SignInPage({ onSignedIn }: { onSignedIn: (key: string) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await roleOf(key.trim());
      onSignedIn(key.trim());
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) setError('This key is not valid (unknown, revoked or expired).');
      else if (e instanceof ApiError && e.status === 403) setError('A runtime key cannot open the console: use a read or admin key.');
      else setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="narrow">
      <h1>Promptline</h1>
      <form onSubmit={submit} aria-describedby="signin-help">
        <label htmlFor="api-key">API key</label>
        <input
          id="api-key"
          type="password"
          autoComplete="off"
          value={key}
          onChange={(e) => setKey(e.target.value)}
          aria-invalid={error !== null}
          aria-describedby={error === null ? undefined : 'signin-error'}
          required
        />
        <p id="signin-help" className="help">
          A read key sees everything; an admin key can also edit. The key stays in this browser tab until you sign out.
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
