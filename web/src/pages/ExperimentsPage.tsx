import { useQuery } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { Link } from 'wouter';
import { api, type Role } from '../lib/api';
import { STATUSES } from '../lib/experimentForm';
import { formatTime, matches } from '../lib/format';
import { pct } from '../lib/numbers';
import type { ExperimentDetail, ExperimentStatus, Page } from '../lib/types';
import { NewExperiment } from './experiment/NewExperiment';
import { ErrorNote, TableScroll } from './parts';
import { useSearchParam } from '../lib/urlState';
import './experiments.css';

/** Every experiment, running ones first, filtered by status and searched by id, name or prompt. */
export function ExperimentsPage({ role }: { role: Role }) {
  // Both in the URL (?status=running&q=…): a reload or a shared link shows the same list.
  const [statusParam, setStatus] = useSearchParam('status');
  const status: ExperimentStatus | 'all' = (STATUSES as readonly string[]).includes(statusParam) ? (statusParam as ExperimentStatus) : 'all';
  const [search, setSearch] = useSearchParam('q');
  const [creating, setCreating] = useState(false);
  const newButton = useRef<HTMLButtonElement>(null);
  // Cancel gives the focus back to the button that opened the form, once it is drawn again.
  const cancel = () => {
    setCreating(false);
    requestAnimationFrame(() => newButton.current?.focus());
  };
  const experiments = useQuery({ queryKey: ['experiments', 'all'], queryFn: () => api<Page<ExperimentDetail>>('GET', '/experiments?limit=500') });
  const all = (experiments.data?.data ?? []).filter((e) => matches(search, e.experiment_id, e.name, e.prompt_id));
  const groups = STATUSES.filter((s) => status === 'all' || s === status).map((s) => [s, all.filter((e) => e.status === s)] as const);

  return (
    <section aria-labelledby="experiments-title">
      <h1 id="experiments-title">Experiments</h1>
      <div className="toolbar">
        <label htmlFor="experiment-status">Status</label>
        <select id="experiment-status" value={status} onChange={(e) => setStatus(e.target.value === 'all' ? '' : e.target.value)}>
          <option value="all">all</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
        <label htmlFor="experiment-search">Search</label>
        <input id="experiment-search" type="search" value={search} onChange={(e) => setSearch(e.target.value)} placeholder="id, name or prompt" />
        {role === 'admin' && !creating && (
          <button type="button" ref={newButton} onClick={() => setCreating(true)}>
            New experiment
          </button>
        )}
      </div>
      {role === 'admin' && creating && <NewExperiment onCancel={cancel} />}
      <ErrorNote error={experiments.error} />
      {experiments.isPending ? (
        <p className="loading">Loading…</p>
      ) : all.length === 0 ? (
        <p>{search === '' ? 'No experiments yet.' : 'No experiment matches.'}</p>
      ) : (
        groups
          .filter(([, list]) => list.length > 0)
          .map(([s, list]) => (
            <section key={s} aria-labelledby={`experiments-${s}`}>
              <h2 id={`experiments-${s}`}>
                <span className={`status status-${s}`}>{s}</span> ({list.length})
              </h2>
              <ExperimentTable list={list} />
            </section>
          ))
      )}
      {experiments.data?.next_cursor != null && <p className="help">Showing the newest 500 experiments.</p>}
    </section>
  );
}

function ExperimentTable({ list }: { list: ExperimentDetail[] }) {
  return (
    <TableScroll>
      <table className="experiments">
        <thead>
          <tr>
            <th scope="col">Experiment</th>
            <th scope="col">Prompt</th>
            <th scope="col">Variants</th>
            <th scope="col">Started</th>
            <th scope="col">Stopped</th>
          </tr>
        </thead>
        <tbody>
          {list.map((e) => (
            <tr key={e.experiment_id}>
              <td>
                <Link href={`/experiments/${encodeURIComponent(e.experiment_id)}`}>{e.name ?? e.experiment_id}</Link>
                {e.name !== null && <div className="muted">{e.experiment_id}</div>}
              </td>
              <td>
                <Link href={`/prompts/${encodeURIComponent(e.prompt_id)}`}>{e.prompt_id}</Link>
              </td>
              <td>
                {e.variants.map((v) => (
                  <span key={v.key} className="chip">
                    {v.key} v{v.version} {pct(v.weight)}
                  </span>
                ))}
              </td>
              <td>{formatTime(e.started_at)}</td>
              <td>{formatTime(e.stopped_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}
