import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api } from '../lib/api';
import { type Evaluation, type EvaluationItem, type EvaluatorComparison, isFinished, scoreText } from '../lib/evaluations';
import { ErrorNote, TableScroll } from './parts';
import './runs.css';

const POLL_MS = 1000;
const num = (x: number | null, digits = 3) => (x === null ? '–' : x.toFixed(digits));

/** One evaluation: its progress (polled while it runs), the comparison per evaluator, and the items side by side. */
export function EvaluationPage({ evaluationId }: { evaluationId: string }) {
  const path = `/evaluations/${encodeURIComponent(evaluationId)}`;
  const evaluation = useQuery({
    queryKey: ['evaluation', evaluationId],
    queryFn: () => api<Evaluation>('GET', path),
    refetchInterval: (q) => (q.state.data !== undefined && isFinished(q.state.data.status) ? false : POLL_MS),
  });
  const e = evaluation.data;
  const finished = e !== undefined && isFinished(e.status);
  const items = useQuery({
    queryKey: ['evaluation-items', evaluationId, finished],
    queryFn: () => api<{ data: EvaluationItem[] }>('GET', `${path}/items?limit=1000`),
    enabled: e !== undefined,
  });
  return (
    <section aria-labelledby="evaluation-title">
      <p className="crumbs">
        <Link href="/evaluations">Evaluations</Link> /
      </p>
      <h1 id="evaluation-title">Evaluation {evaluationId}</h1>
      <ErrorNote error={evaluation.error} />
      {e !== undefined && (
        <>
          <p>
            <Link href={`/prompts/${encodeURIComponent(e.prompt_id)}`}>{e.prompt_id}</Link>: candidate v{e.versions.candidate.version} against baseline v
            {e.versions.baseline.version}, on {e.dataset_id} v{e.dataset_version}.
          </p>
          <label htmlFor="evaluation-progress">
            {e.status}: {e.progress.done} of {e.progress.total} done, ${e.progress.cost_usd.toFixed(4)}
          </label>
          <progress id="evaluation-progress" max={Math.max(1, e.progress.total)} value={e.progress.done} />
          {e.error !== null && <p role="alert">{e.error}</p>}
          <h2 id="comparison-title">Comparison</h2>
          <Comparison evaluators={e.evaluators} />
          <h2 id="items-title">Items</h2>
          <ErrorNote error={items.error} />
          {items.data !== undefined && <Items items={items.data.data} evaluatorIds={e.evaluators.map((x) => x.evaluator_id)} />}
        </>
      )}
    </section>
  );
}

function Comparison({ evaluators }: { evaluators: EvaluatorComparison[] }) {
  return (
    <TableScroll>
      <table className="comparison" aria-labelledby="comparison-title">
        <thead>
          <tr>
            <th scope="col">Evaluator</th>
            <th scope="col">Items</th>
            <th scope="col">Candidate</th>
            <th scope="col">Baseline</th>
            <th scope="col">Difference (CI)</th>
            <th scope="col">p</th>
            <th scope="col">Wins / ties / losses</th>
            <th scope="col">Verdict</th>
          </tr>
        </thead>
        <tbody>
          {evaluators.map(({ evaluator_id, version, comparison: c }) => (
            <tr key={evaluator_id}>
              <th scope="row">
                {evaluator_id} v{version}
              </th>
              <td>{c.n}</td>
              <td>
                {num(c.candidate.mean)}
                {c.candidate.errors > 0 && ` (${c.candidate.errors} errors)`}
              </td>
              <td>
                {num(c.baseline.mean)}
                {c.baseline.errors > 0 && ` (${c.baseline.errors} errors)`}
              </td>
              <td>
                {num(c.difference)} [{num(c.ci_low)}, {num(c.ci_high)}]
              </td>
              <td>{num(c.p_value)}</td>
              <td>
                {c.wins} / {c.ties} / {c.losses}
              </td>
              <td>{c.verdict.replace('_', ' ')}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

/** Each item's inputs, both outputs and their scores (with a judge's reasoning), the items that differ first. */
function Items({ items, evaluatorIds }: { items: EvaluationItem[]; evaluatorIds: string[] }) {
  const ordered = [...items.filter((i) => i.differs), ...items.filter((i) => !i.differs)];
  return (
    <TableScroll>
      <table className="evaluation-items" aria-labelledby="items-title">
        <thead>
          <tr>
            <th scope="col">Inputs</th>
            <th scope="col">Candidate</th>
            <th scope="col">Baseline</th>
          </tr>
        </thead>
        <tbody>
          {ordered.map((item) => (
            <tr key={item.item_id} className={item.differs ? 'differs' : undefined}>
              <td>
                <code>{JSON.stringify(item.inputs)}</code>
                {item.expected !== null && item.expected !== undefined && <p className="muted">expected: {JSON.stringify(item.expected)}</p>}
              </td>
              {[item.candidate, item.baseline].map((side, i) => (
                <td key={i === 0 ? 'candidate' : 'baseline'}>
                  <p>{side.output ?? side.error ?? side.state}</p>
                  <ul>
                    {evaluatorIds.map((id) => (
                      <li key={id}>
                        {id}: {scoreText(side.scores[id])}
                        {side.scores[id]?.reasoning && <p className="muted">{side.scores[id]?.reasoning}</p>}
                      </li>
                    ))}
                  </ul>
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}
