import { useQuery } from '@tanstack/react-query';
import type { Role } from '../lib/api';
import { api } from '../lib/api';
import { formatTime } from '../lib/format.js';
import { keyState, rateLimitText, type ApiKey } from '../lib/keys.js';
import { ErrorNote, TableScroll } from './parts';
import { CreateKey } from './keys/CreateKey';
import { RevokeKey } from './keys/RevokeKey';
import './runs.css';

/** The project's API keys (admin keys only): list, create (the key is shown once), revoke. */
export function KeysPage({ role, signedInKeyId }: { role: Role; signedInKeyId: string }) {
  const keys = useQuery({ queryKey: ['keys'], queryFn: () => api<{ data: ApiKey[] }>('GET', '/keys'), enabled: role === 'admin' });
  if (role !== 'admin') {
    return (
      <section aria-labelledby="keys-title">
        <h1 id="keys-title">Keys</h1>
        <p className="notice">Only admin keys manage keys. This console is signed in with a read-only key.</p>
      </section>
    );
  }
  const now = new Date();
  const list = keys.data?.data ?? [];
  return (
    <section aria-labelledby="keys-title">
      <h1 id="keys-title">Keys</h1>
      <p className="help">Only a hash of each key is stored: the key itself is shown once, when it is made.</p>
      <CreateKey />
      <h2>All keys</h2>
      <ErrorNote error={keys.error} />
      {keys.isPending ? (
        <p className="loading">Loading…</p>
      ) : list.length === 0 ? (
        <p className="empty">No keys.</p>
      ) : (
        <TableScroll>
          <table className="keys">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Role</th>
                <th scope="col">Key</th>
                <th scope="col">Id</th>
                <th scope="col">Created</th>
                <th scope="col">Expires</th>
                <th scope="col">Rate limit</th>
                <th scope="col">State</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.map((k) => {
                const state = keyState(k, now);
                const mine = k.key_id === signedInKeyId;
                return (
                  <tr key={k.key_id} className={state === 'active' ? undefined : 'inactive'}>
                    <td>{k.name}</td>
                    <td>{k.role}</td>
                    <td>
                      <code>{k.key_prefix}</code>
                    </td>
                    <td>
                      <code>{k.key_id}</code>
                    </td>
                    <td>{formatTime(k.created_at)}</td>
                    <td>{k.expires_at === null ? 'never' : formatTime(k.expires_at)}</td>
                    <td>{rateLimitText(k.rate_limit_per_minute)}</td>
                    <td>{state === 'revoked' ? `revoked ${formatTime(k.revoked_at)}` : state}</td>
                    <td>
                      {state === 'revoked' ? null : mine ? (
                        <span className="muted">This console is signed in with this key: revoke it from another admin key.</span>
                      ) : (
                        <RevokeKey apiKey={k} />
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableScroll>
      )}
    </section>
  );
}
