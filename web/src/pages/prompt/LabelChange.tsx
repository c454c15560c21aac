import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { api } from '../../lib/api';
import { ErrorNote } from '../parts';
import { ImpactNote } from './ImpactNote';
import { GitConflict } from './ManagedInGit';
import { fetchImpact } from './fetchImpact';
import { callsThatWouldFail, experimentTrafficNote } from './impact';

export type LabelChangeKind = 'create' | 'move' | 'promote' | 'delete';

/** Everything a label change refreshes: the prompt, its versions (their chips), the prompt list. */
async function refreshPrompt(queryClient: ReturnType<typeof useQueryClient>, promptId: string): Promise<void> {
  await Promise.all([
    queryClient.invalidateQueries({ queryKey: ['prompt', promptId] }),
    queryClient.invalidateQueries({ queryKey: ['versions', promptId] }),
    queryClient.invalidateQueries({ queryKey: ['prompts'] }),
    queryClient.invalidateQueries({ queryKey: ['impact', promptId] }),
  ]);
}

function consequence(kind: LabelChangeKind, label: string, version: number | null): string {
  if (kind === 'delete') {
    return label === 'production'
      ? 'Delete the production label: calls without an experiment then get the latest version.'
      : `Delete the label ${label}: the version it points at stays.`;
  }
  if (label === 'production') return `Every call without an experiment will be served v${version}.`;
  return `${kind === 'create' ? 'Create' : 'Move'} ${label} → v${version}. Runtime calls are served production, not ${label}: the figures say what would break if they were served v${version}.`;
}

function confirmText(kind: LabelChangeKind, label: string, version: number | null): string {
  if (kind === 'promote') return `Confirm: promote v${version}`;
  if (kind === 'create') return `Confirm: create ${label} on v${version}`;
  if (kind === 'move') return `Confirm: move ${label} to v${version}`;
  return `Confirm: delete ${label}`;
}

/**
 * The confirmation of a label change (focused when it opens). Before a create, move or promote it
 * shows what the API's impact says of the version on that label; when recent calls would fail, the
 * change waits for an explicit tick. The API itself never refuses the change for it. On a prompt
 * managed in Git it also says that the change will show as a conflict in the next diff.
 */
export function LabelChange({
  promptId,
  kind,
  label,
  version,
  onDone,
  onCancel,
  managedInGit = false,
}: {
  promptId: string;
  kind: LabelChangeKind;
  label: string;
  version: number | null;
  onDone: (message: string) => void;
  onCancel: () => void;
  managedInGit?: boolean;
}) {
  const queryClient = useQueryClient();
  const box = useRef<HTMLFieldSetElement>(null);
  const [ticked, setTicked] = useState(false);
  useEffect(() => box.current?.focus(), []);
  const impact = useQuery({
    queryKey: ['impact', promptId, version, label],
    enabled: kind !== 'delete' && version !== null,
    queryFn: () => fetchImpact(promptId, version!, label),
  });
  const path = `/prompts/${encodeURIComponent(promptId)}/labels/${encodeURIComponent(label)}`;
  const change = useMutation({
    mutationFn: () => (kind === 'delete' ? api('DELETE', path) : api('PUT', path, { version })),
    onSuccess: async () => {
      await refreshPrompt(queryClient, promptId);
      onDone(kind === 'delete' ? `Label ${label} deleted.` : `${label} now points at v${version}.`);
    },
  });
  const needsTick = impact.data !== undefined && callsThatWouldFail(impact.data) > 0;
  const running = impact.data?.running_experiment ?? null;
  const idPrefix = `label-${kind}-${label}`;
  return (
    <fieldset className="confirm" ref={box} tabIndex={-1} aria-describedby={`${idPrefix}-what`}>
      <legend id={`${idPrefix}-what`}>{consequence(kind, label, version)}</legend>
      {managedInGit && (
        <p className="impact" data-testid="git-warning">
          <GitConflict />
        </p>
      )}
      {kind !== 'delete' && impact.isPending && <p className="loading">Checking recent calls…</p>}
      {impact.data !== undefined && <ImpactNote impact={impact.data} ticked={ticked} onTick={setTicked} idPrefix={idPrefix} />}
      {/* The impact is advisory: if it cannot be read, the change may still be made. */}
      <ErrorNote error={impact.error} />
      {running !== null && label === 'production' && kind !== 'delete' && version !== null && (
        <p className="impact" data-testid="experiment-traffic">
          {experimentTrafficNote(running, version)}
        </p>
      )}
      <button type="button" onClick={() => change.mutate()} disabled={change.isPending || (needsTick && !ticked) || (kind !== 'delete' && impact.isPending)}>
        {confirmText(kind, label, version)}
      </button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
      <ErrorNote error={change.error} />
    </fieldset>
  );
}
