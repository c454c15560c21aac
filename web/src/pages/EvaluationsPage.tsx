import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api } from '../lib/api';
import type { EvaluationSummary } from '../lib/evaluations';
import { formatTime } from '../lib/format.js';
import { ErrorNote, TableScroll } from './parts';
import './runs.css';

/** Every evaluation of the project, newest first: started from a version's page ("Evaluate") or the API. */
export function EvaluationsPage() {
  const evaluations = useQuery({ queryKey: ['evaluations'], queryFn: () => api<{ data: EvaluationSummary[] }>('GET', '/evaluations?limit=200') });
  const list = evaluations.data?.data ?? [];
  return (
    <section aria-labelledby="evaluations-title">
      <h1 id="evaluations-title">Evaluations</h1>
      <p className="help">Two versions of a prompt run on the items of a dataset and scored by evaluators, compared item by item.</p>
      <ErrorNote error={evaluations.error} />
      {evaluations.isPending ? (
        <p className="loading">Loading…</p>
      ) : list.length === 0 ? (
        evaluations.isSuccess && <p className="empty">No evaluations yet: open a version of a prompt and choose Evaluate.</p>
      ) : (
        <TableScroll>
          <table className="evaluations">
            <thead>
              <tr>
                <th scope="col">Evaluation</th>
                <th scope="col">Prompt</th>
                <th scope="col">Candidate / baseline</th>
                <th scope="col">Dataset</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {list.map((e) => (
                <tr key={e.evaluation_id}>
                  <td>
                    <Link href={`/evaluations/${encodeURIComponent(e.evaluation_id)}`}>{e.evaluation_id}</Link>
                  </td>
                  <td>{e.prompt_id}</td>
                  <td>
                    v{e.versions.candidate.version} / v{e.versions.baseline.version}
                  </td>
                  <td>
                    {e.dataset_id} v{e.dataset_version}
                  </td>
                  <td>
                    {e.status} ({e.progress.done}/{e.progress.total})
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
