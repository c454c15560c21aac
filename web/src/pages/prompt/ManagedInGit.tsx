import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { api, type Role } from '../../lib/api';
import { ErrorNote } from '../parts';

/** What an edit made here does to a prompt managed in Git: said on the page and in every confirmation. */
export function GitConflict() {
  return (
    <>
      This prompt is managed in Git: a change made here will show as a conflict in the next <code>promptline prompts diff</code>; make it in the repository
      instead.
    </>
  );
}

/**
 * The notice on a prompt managed in Git, and for an admin the switch that marks or unmarks it
 * (PATCH /prompts/{id}). The mark only warns: the API accepts edits either way.
 */
export function ManagedInGit({ promptId, managed, role }: { promptId: string; managed: boolean; role: Role }) {
  const queryClient = useQueryClient();
  const toggle = useMutation({
    mutationFn: (next: boolean) => api('PATCH', `/prompts/${encodeURIComponent(promptId)}`, { managed_in_git: next }),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['prompt', promptId] });
      await queryClient.invalidateQueries({ queryKey: ['prompts'] });
    },
  });
  // While the change is on its way the box shows what was asked, from the click on (the mutation's own
  // pending state arrives a tick later, and a controlled box would flick back meanwhile); once the
  // prompt is refetched, or the change failed, it shows the prompt's own mark again.
  const [asked, setAsked] = useState<boolean | null>(null);
  const shown = asked ?? managed;
  return (
    <>
      {managed && (
        <p className="notice git-notice" data-testid="git-notice">
          <strong>Managed in Git.</strong> <GitConflict />
        </p>
      )}
      {role === 'admin' && (
        <p>
          <label className="inline">
            <input
              type="checkbox"
              checked={shown}
              disabled={toggle.isPending}
              onChange={(e) => {
                setAsked(e.target.checked);
                toggle.mutate(e.target.checked, { onSettled: () => setAsked(null) });
              }}
            />{' '}
            Managed in Git (warn before edits made here)
          </label>
        </p>
      )}
      <ErrorNote error={toggle.error} />
    </>
  );
}

/** The confirmation before an edit on a prompt managed in Git (focused when it opens). */
export function GitConfirm({ action, onConfirm, onCancel }: { action: string; onConfirm: () => void; onCancel: () => void }) {
  const box = useRef<HTMLFieldSetElement>(null);
  useEffect(() => box.current?.focus(), []);
  return (
    <fieldset className="confirm" ref={box} tabIndex={-1} data-testid="git-confirm">
      <legend>
        <GitConflict />
      </legend>
      <button type="button" onClick={onConfirm}>
        {action} anyway
      </button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </fieldset>
  );
}
