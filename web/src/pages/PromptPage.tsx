import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { Link } from 'wouter';
import { api, type Role } from '../lib/api';
import { describeSource, formatTime } from '../lib/format';
import type { Prompt, Version } from '../lib/types';
import { OnlineEvaluatorsSection } from './lazyOnline';
import { ErrorNote } from './parts';
import { LabelChange } from './prompt/LabelChange';
import { Labels } from './prompt/Labels';
import { ManagedInGit } from './prompt/ManagedInGit';
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

  const [promoted, setPromoted] = useState<string | null>(null);
  const promotedRef = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (promoted !== null) promotedRef.current?.focus();
  }, [promoted]);

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
      <ManagedInGit promptId={promptId} managed={p.managed_in_git} role={role} />
      <Labels promptId={promptId} labels={p.labels} versions={list.map((v) => v.version)} role={role} managedInGit={p.managed_in_git} />
      <h2>Versions</h2>
      {/* The promoted version's button is gone once it serves production: focus lands on what happened. */}
      {promoted !== null && (
        <p role="status" tabIndex={-1} ref={promotedRef}>
          {promoted}
        </p>
      )}
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
            {v.source && <div className="muted">{describeSource(v.source)}</div>}
            {role === 'admin' && p.labels.production !== v.version && (
              <Promote promptId={promptId} version={v.version} onDone={setPromoted} managedInGit={p.managed_in_git} />
            )}
          </li>
        ))}
      </ol>
      {list.length >= 2 && <VersionDiff promptId={promptId} versions={list} />}
      <PromptNumbers promptId={promptId} />
      <OnlineEvaluatorsSection promptId={promptId} role={role} />
      {served !== undefined && <Playground promptId={promptId} versions={list} served={served.version} role={role} />}
      {role === 'admin' && versions.isSuccess && <VersionEditor promptId={promptId} base={list[0]} managedInGit={p.managed_in_git} />}
    </section>
  );
}

/** "Promote to production", asked twice (with the impact of the move): it changes what every caller is served. */
function Promote({ promptId, version, onDone, managedInGit }: { promptId: string; version: number; onDone: (message: string) => void; managedInGit: boolean }) {
  const [confirming, setConfirming] = useState(false);
  if (!confirming) {
    return (
      <button type="button" onClick={() => setConfirming(true)}>
        Promote v{version} to production
      </button>
    );
  }
  return (
    <LabelChange
      promptId={promptId}
      kind="promote"
      label="production"
      version={version}
      managedInGit={managedInGit}
      onCancel={() => setConfirming(false)}
      onDone={(message) => {
        setConfirming(false);
        onDone(message);
      }}
    />
  );
}
