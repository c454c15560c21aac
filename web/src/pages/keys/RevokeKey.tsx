import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { api } from '../../lib/api';
import type { ApiKey } from '../../lib/keys.js';
import { ErrorNote } from '../parts';

/** "Revoke", asked twice: whatever uses the key stops working on its next request. */
export function RevokeKey({ apiKey }: { apiKey: ApiKey }) {
  const [confirming, setConfirming] = useState(false);
  const cancelRef = useRef<HTMLButtonElement>(null);
  const queryClient = useQueryClient();
  const revoke = useMutation({
    mutationFn: () => api('DELETE', `/keys/${encodeURIComponent(apiKey.key_id)}`),
    onSuccess: async () => {
      setConfirming(false);
      await queryClient.invalidateQueries({ queryKey: ['keys'] });
    },
  });
  // The safe choice takes the focus, so Enter right after opening does not revoke.
  useEffect(() => {
    if (confirming) cancelRef.current?.focus();
  }, [confirming]);

  if (!confirming) {
    return (
      <button type="button" onClick={() => setConfirming(true)} aria-label={`Revoke ${apiKey.name}`}>
        Revoke
      </button>
    );
  }
  return (
    <fieldset className="confirm">
      <legend>Are you sure? Anything using “{apiKey.name}” stops working at its next request.</legend>
      <button type="button" className="danger" onClick={() => revoke.mutate()} disabled={revoke.isPending}>
        Confirm: revoke {apiKey.name}
      </button>
      <button type="button" ref={cancelRef} onClick={() => setConfirming(false)}>
        Cancel
      </button>
      <ErrorNote error={revoke.error} />
    </fieldset>
  );
}
