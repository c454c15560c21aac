import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'wouter';
import { api, type Role } from '../lib/api';
import type { Evaluator } from '../lib/datasets';
import { formatTime } from '../lib/format.js';
import { settingsText } from '../lib/evaluators';
import { NewEvaluator } from './evaluators/NewEvaluator';
import { ErrorNote, TableScroll } from './parts';
import './runs.css';

/** The project's evaluators with their latest versions' settings; an admin key can make one. */
export function EvaluatorsPage({ role }: { role: Role }) {
  const [archived, setArchived] = useState(false);
  const evaluators = useQuery({
    queryKey: archived ? ['evaluators', 'with-archived'] : ['evaluators'],
    queryFn: () => api<{ data: Evaluator[] }>('GET', `/evaluators?limit=500${archived ? '&include_archived=true' : ''}`),
  });
  const list = evaluators.data?.data ?? [];
  return (
    <section aria-labelledby="evaluators-title">
      <h1 id="evaluators-title">Evaluators</h1>
      <p className="help">
        How an output is scored: a check of its text (contains, regex, JSON schema, length), a comparison with the expected answer, or a judge model.
      </p>
      {role === 'admin' && <NewEvaluator />}
      <h2 id="evaluator-list-title">All evaluators</h2>
      <label className="inline">
        <input type="checkbox" checked={archived} onChange={(e) => setArchived(e.target.checked)} /> Show archived evaluators
      </label>
      <ErrorNote error={evaluators.error} />
      {evaluators.isPending ? (
        <p className="loading">Loading…</p>
      ) : list.length === 0 ? (
        evaluators.isSuccess && <p className="empty">No evaluators yet.</p>
      ) : (
        <TableScroll>
          <table className="evaluators" aria-labelledby="evaluator-list-title">
            <thead>
              <tr>
                <th scope="col">Evaluator</th>
                <th scope="col">Kind</th>
                <th scope="col">Version</th>
                <th scope="col">Settings</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {list.map((e) => (
                <tr key={e.evaluator_id}>
                  <td>
                    <Link href={`/evaluators/${encodeURIComponent(e.evaluator_id)}`}>{e.evaluator_id}</Link>
                    {e.archived_at !== null && <span className="chip">archived</span>}
                    {e.description !== null && e.description !== '' && <p className="muted">{e.description}</p>}
                  </td>
                  <td>{e.kind}</td>
                  <td>{e.latest_version.version}</td>
                  <td>
                    <code>{settingsText(e.latest_version.settings)}</code>
                  </td>
                  <td>{formatTime(e.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </section>
  );
}
