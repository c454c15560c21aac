import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../lib/api';
import { ApiError } from '../../lib/errors';
import type { CreatedKey } from '../../lib/keys.js';
import { utcLocalToIso } from '../../lib/runFilters.js';
import { CopySecret } from '../CopySecret';
import { FieldError, GeneralErrors } from '../parts';

const FIELDS = ['name', 'role', 'expires_at', 'rate_limit_per_minute'] as const;

/** A new key: the API answers with the key itself this once; it is shown here until dismissed. */
export function CreateKey() {
  const [name, setName] = useState('');
  const [role, setRole] = useState<'runtime' | 'read' | 'admin'>('runtime');
  const [expires, setExpires] = useState('');
  const [rateLimit, setRateLimit] = useState('');
  const queryClient = useQueryClient();
  const create = useMutation({
    mutationFn: () =>
      api<CreatedKey>('POST', '/keys', {
        name,
        role,
        ...(expires === '' ? {} : { expires_at: utcLocalToIso(expires) }),
        ...(rateLimit.trim() === '' ? {} : { rate_limit_per_minute: Number(rateLimit) }),
      }),
    onSuccess: async () => {
      setName('');
      setExpires('');
      setRateLimit('');
      await queryClient.invalidateQueries({ queryKey: ['keys'] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const error = create.error instanceof ApiError ? create.error : null;

  return (
    <section aria-labelledby="create-key-title">
      <h2 id="create-key-title">New key</h2>
      {create.data !== undefined && <NewKey created={create.data} onDone={() => create.reset()} />}
      <form onSubmit={submit}>
        <label htmlFor="key-name">Name</label>
        <input
          id="key-name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          required
          maxLength={128}
          aria-invalid={error?.forField('name') !== undefined}
        />
        <FieldError message={error?.forField('name')} />
        <label htmlFor="key-role">Role</label>
        <select id="key-role" value={role} onChange={(e) => setRole(e.target.value as typeof role)} aria-describedby="key-role-help">
          <option value="runtime">runtime</option>
          <option value="read">read</option>
          <option value="admin">admin</option>
        </select>
        <p id="key-role-help" className="help">
          runtime: applications calling /get_prompt and /run_prompt; read: the console and reports; admin: everything, keys included.
        </p>
        <FieldError message={error?.forField('role')} />
        <label htmlFor="key-expires">Expires (UTC, optional)</label>
        <input
          id="key-expires"
          type="datetime-local"
          step={1}
          value={expires}
          onChange={(e) => setExpires(e.target.value)}
          aria-invalid={error?.forField('expires_at') !== undefined}
        />
        <FieldError message={error?.forField('expires_at')} />
        <label htmlFor="key-rate">Rate limit per minute (optional)</label>
        <input
          id="key-rate"
          type="number"
          min={0}
          step={1}
          value={rateLimit}
          onChange={(e) => setRateLimit(e.target.value)}
          aria-describedby="key-rate-help"
          aria-invalid={error?.forField('rate_limit_per_minute') !== undefined}
        />
        <p id="key-rate-help" className="help">
          Empty: the server default; 0: no limit.
        </p>
        <FieldError message={error?.forField('rate_limit_per_minute')} />
        <GeneralErrors error={create.error} fields={FIELDS} />
        <button type="submit" disabled={create.isPending}>
          Create key
        </button>
      </form>
    </section>
  );
}

/** The key, this once, with a Copy button. */
function NewKey({ created, onDone }: { created: CreatedKey; onDone: () => void }) {
  return (
    <section className="new-key" aria-labelledby="new-key-title">
      <h3 id="new-key-title">Key “{created.name}” created</h3>
      <p>
        <strong>Copy it now: it will not be shown again.</strong> Only a hash is stored, so a lost key cannot be recovered, only replaced.
      </p>
      <CopySecret value={created.key} testId="new-key" />
      <button type="button" onClick={onDone}>
        Done: hide the key
      </button>
    </section>
  );
}
