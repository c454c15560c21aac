import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'wouter';
import { api, type Role } from '../lib/api';
import { formatTime, sortedLabels } from '../lib/format';
import type { Prompt, Version } from '../lib/types';
import { ErrorNote } from './parts';
import { Playground } from './prompt/Playground';
import { PromptNumbers } from './prompt/PromptNumbers';
import { VersionDiff } from './prompt/VersionDiff';
import { VersionEditor } from './prompt/VersionEditor';

export function PromptPage({ promptId, role }: { promptId: string; role: Role }) {
  const path = `/prompts/${encodeURIComponent(promptId)}`;
  const prompt = useQuery({ queryKey: ['prompt', promptId], queryFn: () => api<Prompt>('GET', path) });
  const versions = useQuery({ queryKey: ['versions', promptId], queryFn: () => api<{ data: Version[] }>('GET', `${path}/versions`) });
  // Who made each version is in the audit log, which only an admin key may read.
  const authors = useQuery({
    queryKey: ['authors', promptId],
    enabled: role === 'admin',
    queryFn: async () => {
      const log = await api<{ data: Array<{ action: string; key_name: string; after: { version?: number | { version: number } | null } | null }> }>(
        'GET',
        `/audit?target_type=prompt&target_id=${encodeURIComponent(promptId)}&limit=500`,
      );
      const byVersion = new Map<number, string>();
      for (const e of log.data) {
        // prompt.version_created carries the version; prompt.created carries the prompt with its first version.
        const version = e.action === 'prompt.version_created' || e.action === 'prompt.created' ? e.after?.version : undefined;
        const n = typeof version === 'number' ? version : version?.version;
        if (n !== undefined) byVersion.set(n, e.key_name);
      }
      return byVersion;
    },
  });

  if (prompt.isError) return <ErrorNote error={prompt.error} />;
  if (prompt.isPending) return <p className="loading">Loading…</p>;
  const p = prompt.data;
  const list = versions.data?.data ?? [];
  // What a caller without an experiment is served: production, else the newest version.
  const served = list.find((v) => v.version === p.labels.production) ?? list[0];
  return (
    <section aria-labelledby="prompt-title">
      <p className="crumbs">
        <Link href="/prompts">Prompts</Link> /
      </p>
      <h1 id="prompt-title">{p.prompt_id}</h1>
      {p.description !== null && <p>{p.description}</p>}
      <h2>Labels</h2>
      {Object.keys(p.labels).length === 0 ? (
        <p>No labels: calls get the latest version.</p>
      ) : (
        <ul className="labels">
          {sortedLabels(p.labels).map(([label, version]) => (
            <li key={label}>
              <span className="chip">{label}</span> → <Link href={`${path}/versions/${version}`}>v{version}</Link>
            </li>
          ))}
        </ul>
      )}
      <h2>Versions</h2>
      <ErrorNote error={versions.error} />
      {/* The API lists versions newest first, as a timeline reads. */}
      <ol className="timeline">
        {list.map((v) => (
          <li key={v.version}>
            <Link href={`${path}/versions/${v.version}`}>v{v.version}</Link> <span className="muted">{formatTime(v.created_at)}</span>{' '}
            {authors.data?.has(v.version) && <span className="muted">by {authors.data.get(v.version)} </span>}
            {v.labels.map((l) => (
              <span key={l} className="chip">
                {l}
              </span>
            ))}
            <div>{v.commit_message ?? <span className="muted">no commit message</span>}</div>
            {role === 'admin' && p.labels.production !== v.version && <Promote promptId={promptId} version={v.version} />}
          </li>
        ))}
      </ol>
      {list.length >= 2 && <VersionDiff promptId={promptId} versions={list} />}
      <PromptNumbers promptId={promptId} />
      {served !== undefined && <Playground promptId={promptId} versions={list} served={served.version} role={role} />}
      {role === 'admin' && versions.isSuccess && <VersionEditor promptId={promptId} base={list[0]} />}
    </section>
  );
}

/** "Promote to production", asked twice: it changes what every caller is served. */
function Promote({ promptId, version }: { promptId: string; version: number }) {
  const [confirming, setConfirming] = useState(false);
  const queryClient = useQueryClient();
  const promote = useMutation({
    mutationFn: () => api('PUT', `/prompts/${encodeURIComponent(promptId)}/labels/production`, { version }),
    onSuccess: async () => {
      setConfirming(false);
      await queryClient.invalidateQueries({ queryKey: ['prompt', promptId] });
      await queryClient.invalidateQueries({ queryKey: ['versions', promptId] });
      await queryClient.invalidateQueries({ queryKey: ['prompts'] });
    },
  });
  if (!confirming) {
    return (
      <button type="button" onClick={() => setConfirming(true)}>
        Promote v{version} to production
      </button>
    );
  }
  return (
    <fieldset className="confirm">
      <legend>Every call without an experiment will be served v{version}.</legend>
      <button type="button" onClick={() => promote.mutate()} disabled={promote.isPending}>
        Confirm: promote v{version}
      </button>
      <button type="button" onClick={() => setConfirming(false)}>
        Cancel
      </button>
      <ErrorNote error={promote.error} />
    </fieldset>
  );
}
