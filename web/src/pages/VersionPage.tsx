import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api, type Role } from '../lib/api';
import { describeSource, formatTime } from '../lib/format';
import { messageText } from '../lib/runView';
import type { Prompt, Version } from '../lib/types';
import { ModelConfigView } from './ModelConfigView';
import { ErrorNote } from './parts';
import { EvaluateAction } from './prompt/EvaluateAction';

export function VersionPage({ promptId, version, role }: { promptId: string; version: number; role: Role }) {
  const path = `/prompts/${encodeURIComponent(promptId)}`;
  const v = useQuery({ queryKey: ['version', promptId, version], queryFn: () => api<Version>('GET', `${path}/versions/${version}`) });
  const prompt = useQuery({ queryKey: ['prompt', promptId], queryFn: () => api<Prompt>('GET', path), enabled: role === 'admin' });
  const latest = prompt.data?.latest_version ?? null;
  if (v.isError) return <ErrorNote error={v.error} />;
  if (v.isPending) return <p className="loading">Loading…</p>;
  const d = v.data;
  return (
    <section aria-labelledby="version-title">
      <p className="crumbs">
        <Link href="/prompts">Prompts</Link> / <Link href={path}>{promptId}</Link> /
      </p>
      <h1 id="version-title">
        {promptId} v{d.version}
      </h1>
      <dl className="facts">
        <dt>Created</dt>
        <dd>{formatTime(d.created_at)}</dd>
        <dt>Commit message</dt>
        <dd>{d.commit_message ?? '–'}</dd>
        {d.source && (
          <>
            <dt>Source</dt>
            <dd>{describeSource(d.source)}</dd>
          </>
        )}
        <dt>Labels</dt>
        <dd>{d.labels.length === 0 ? '–' : d.labels.join(', ')}</dd>
        <dt>Model</dt>
        <dd>{d.model ?? 'the server default'}</dd>
        <dt>Fallbacks</dt>
        <dd>{d.fallbacks.length === 0 ? '–' : d.fallbacks.join(', ')}</dd>
        <dt>Parameters</dt>
        <dd>
          <code>{JSON.stringify(d.params)}</code>
        </dd>
        <dt>Variables</dt>
        <dd>{d.variables.length === 0 ? '–' : d.variables.join(', ')}</dd>
      </dl>
      <h2>{d.type === 'chat' ? 'Messages' : 'Template'}</h2>
      {d.type === 'chat' ? (
        (d.messages ?? []).map((m, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: messages have no id; their order is their identity
          <figure key={i} className="message">
            <figcaption>{m.role}</figcaption>
            <pre>{messageText(m.content)}</pre>
          </figure>
        ))
      ) : (
        <pre className="template">{d.template}</pre>
      )}
      <ModelConfigView config={d} />
      {role === 'admin' && latest !== null && latest > 1 && <EvaluateAction promptId={promptId} version={d.version} latest={latest} />}
    </section>
  );
}
