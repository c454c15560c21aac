import { useQuery } from '@tanstack/react-query';
import { api } from '../lib/api';
import type { Evaluator } from '../lib/datasets';
import { formatTime } from '../lib/format.js';
import { ErrorNote, TableScroll } from './parts';
import './runs.css';

/** The project's evaluators with their latest versions' settings (made through the API or CLI). */
export function EvaluatorsPage() {
  const evaluators = useQuery({ queryKey: ['evaluators'], queryFn: () => api<{ data: Evaluator[] }>('GET', '/evaluators?limit=500') });
  const list = evaluators.data?.data ?? [];
  return (
    <section aria-labelledby="evaluators-title">
      <h1 id="evaluators-title">Evaluators</h1>
      <p className="help">
        How an output is scored: a check of its text (contains, regex, JSON schema, length), a comparison with the expected answer, or a judge model.
      </p>
      <ErrorNote error={evaluators.error} />
      {evaluators.isPending ? (
        <p className="loading">Loading…</p>
      ) : list.length === 0 ? (
        evaluators.isSuccess && <p className="empty">No evaluators yet.</p>
      ) : (
        <TableScroll>
          <table className="evaluators">
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
                    {e.evaluator_id}
                    {e.description !== null && e.description !== '' && <p className="muted">{e.description}</p>}
                  </td>
                  <td>{e.kind}</td>
                  <td>{e.latest_version.version}</td>
                  <td>
                    <code>{JSON.stringify(e.latest_version.settings)}</code>
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
