import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api } from '../../lib/api';
import type { RunScore } from '../../lib/evaluators';
import { formatTime } from '../../lib/format';
import { ErrorNote, TableScroll } from '../parts';

const passedText = (s: RunScore) => (s.passed === null ? '–' : s.passed ? 'pass' : 'fail');

/** What the evaluators attached to the run's prompt scored on it (online scoring), when the run was in their samples. */
export function OnlineScores({ runId }: { runId: string }) {
  const scores = useQuery({
    queryKey: ['run-scores', runId],
    queryFn: () => api<{ run_id: string; data: RunScore[] }>('GET', `/runs/${encodeURIComponent(runId)}/scores`),
  });
  return (
    <section aria-labelledby="scores-title">
      <h2 id="scores-title">Online scores</h2>
      <ErrorNote error={scores.error} />
      {scores.data !== undefined &&
        (scores.data.data.length === 0 ? (
          <p className="muted">No online score: no evaluator attached to the prompt sampled this run, or it has not been scored yet.</p>
        ) : (
          <TableScroll>
            <table className="compact run-scores" aria-labelledby="scores-title">
              <thead>
                <tr>
                  <th scope="col">Evaluator</th>
                  <th scope="col">Version</th>
                  <th scope="col">Score</th>
                  <th scope="col">Passed</th>
                  <th scope="col">Error</th>
                  <th scope="col">Scored</th>
                </tr>
              </thead>
              <tbody>
                {scores.data.data.map((s) => (
                  <tr key={`${s.evaluator_id}-${s.evaluator_version}`}>
                    <td>
                      <Link href={`/evaluators/${encodeURIComponent(s.evaluator_id)}`}>{s.evaluator_id}</Link>
                    </td>
                    <td>v{s.evaluator_version}</td>
                    <td>{s.score ?? '–'}</td>
                    <td>{passedText(s)}</td>
                    <td className={s.error === null ? undefined : 'error'}>{s.error ?? '–'}</td>
                    <td>{formatTime(s.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        ))}
    </section>
  );
}
