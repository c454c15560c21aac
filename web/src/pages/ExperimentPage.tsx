import { useQuery } from '@tanstack/react-query';
import { Link, useSearch } from 'wouter';
import { api, type Role } from '../lib/api';
import { formatTime } from '../lib/format';
import { pct } from '../lib/numbers';
import { parseToggles, resultsPath } from '../lib/results';
import type { ExperimentDetail, ExperimentResults } from '../lib/types';
import { Actions } from './experiment/Actions';
import { BanditPanel } from './experiment/BanditPanel';
import { Results } from './experiment/Results';
import { RolloutTimeline } from './experiment/RolloutTimeline';
import { useFocusWhen } from './experiment/focus';
import { ErrorNote, TableScroll } from './parts';
import './experiments.css';

/** One experiment: what it tests, its actions (admin) and its results. */
export function ExperimentPage({ experimentId, role }: { experimentId: string; role: Role }) {
  const path = `/experiments/${encodeURIComponent(experimentId)}`;
  const experiment = useQuery({ queryKey: ['experiment', experimentId], queryFn: () => api<ExperimentDetail>('GET', path) });
  // Asked for at once, alongside the experiment: on a large experiment the results take longest.
  const resultsUrl = resultsPath(experimentId, parseToggles(useSearch()));
  const results = useQuery({
    queryKey: ['results', experimentId, resultsUrl],
    queryFn: () => api<ExperimentResults>('GET', resultsUrl),
    placeholderData: (previous) => previous,
  });
  // The heading takes the focus once the experiment is shown (after Create, or a link to it).
  const heading = useFocusWhen<HTMLHeadingElement>(experiment.data?.experiment_id);
  if (experiment.isError) return <ErrorNote error={experiment.error} />;
  if (experiment.isPending) return <p className="loading">Loading…</p>;
  const e = experiment.data;
  const promptPath = `/prompts/${encodeURIComponent(e.prompt_id)}`;
  return (
    <section aria-labelledby="experiment-title">
      <p className="crumbs">
        <Link href="/experiments">Experiments</Link> /
      </p>
      <h1 id="experiment-title" ref={heading} tabIndex={-1}>
        {e.name ?? e.experiment_id} <span className={`status status-${e.status}`}>{e.status}</span>
      </h1>
      {e.hypothesis !== null && <p className="hypothesis">{e.hypothesis}</p>}
      <dl className="facts">
        <dt>Id</dt>
        <dd>{e.experiment_id}</dd>
        <dt>Type</dt>
        <dd>{e.type === 'ab' ? 'A/B test' : e.type}</dd>
        <dt>Prompt</dt>
        <dd>
          <Link href={promptPath}>{e.prompt_id}</Link>
        </dd>
        <dt>Coverage</dt>
        <dd>{pct(e.coverage)} of users</dd>
        <dt>Target effect</dt>
        <dd>{pct(e.target_mde)} relative</dd>
        <dt>CUPED</dt>
        <dd>{e.cuped ? `on (${e.cuped_days} days before exposure)` : 'off'}</dd>
        <dt>Created</dt>
        <dd>{formatTime(e.created_at)}</dd>
        <dt>Started</dt>
        <dd>{formatTime(e.started_at)}</dd>
        <dt>Stopped</dt>
        <dd>{formatTime(e.stopped_at)}</dd>
        {e.winner !== null && (
          <>
            <dt>Winner</dt>
            <dd>
              {e.winner}
              {e.shipped_version !== null && (
                <>
                  {' '}
                  (shipped: production → <Link href={`${promptPath}/versions/${e.shipped_version}`}>v{e.shipped_version}</Link>)
                </>
              )}
            </dd>
          </>
        )}
      </dl>
      <h2>Variants</h2>
      <TableScroll>
        <table className="compact">
          <thead>
            <tr>
              <th scope="col">Variant</th>
              <th scope="col">Version</th>
              <th scope="col">Weight</th>
            </tr>
          </thead>
          <tbody>
            {e.variants.map((v) => (
              <tr key={v.key}>
                <td>
                  {v.key} {v.key === e.control && <span className="chip">control</span>}
                </td>
                <td>
                  <Link href={`${promptPath}/versions/${v.version}`}>v{v.version}</Link>
                </td>
                <td>{pct(v.weight)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      <h2>Metrics</h2>
      {e.metrics.length === 0 ? (
        <p>None declared: results report every event type as exploratory and make no decision.</p>
      ) : (
        <ul className="metrics">
          {e.metrics.map((m) => (
            <li key={m.name}>
              <strong>{m.name}</strong> <span className="chip">{m.role}</span> {m.direction} is better
              {m.source === 'runs' ? ' (measured on runs)' : ''}
            </li>
          ))}
        </ul>
      )}
      {e.rollout !== null && <RolloutTimeline experiment={e} />}
      {e.allocation_history !== undefined && <BanditPanel experiment={e} />}
      {role === 'admin' && <Actions experiment={e} />}
      <Results experiment={e} results={results} />
    </section>
  );
}
