import { Link } from 'wouter';
import { formatTime } from '../../lib/format.js';
import { formatCost } from '../../lib/format.js';
import { modelShown, type Run } from '../../lib/runView.js';
import { TableScroll } from '../parts';

const enc = encodeURIComponent;

/** One row per run; the time opens the run, the prompt version and experiment open theirs. */
export function RunsTable({ runs }: { runs: Run[] }) {
  return (
    <TableScroll>
      <table className="runs">
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Prompt</th>
            <th scope="col">Experiment / variant</th>
            <th scope="col">User</th>
            <th scope="col">Status</th>
            <th scope="col">Model</th>
            <th scope="col" className="num">
              Tokens
            </th>
            <th scope="col" className="num">
              Cost
            </th>
            <th scope="col" className="num">
              Latency
            </th>
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => (
            <tr key={r.run_id} data-run-id={r.run_id}>
              <td>
                <Link href={`/runs/${enc(r.run_id)}`} aria-label={`${formatTime(r.created_at)}, run ${r.run_id}`}>
                  {formatTime(r.created_at)}
                </Link>
              </td>
              <td>
                <Link href={`/prompts/${enc(r.prompt_id)}/versions/${r.prompt_version}`}>
                  {r.prompt_id} v{r.prompt_version}
                </Link>
              </td>
              <td>
                {r.experiment_id === null ? (
                  '–'
                ) : (
                  <>
                    <Link href={`/experiments/${enc(r.experiment_id)}`}>{r.experiment_id}</Link>
                    {r.variant !== null && ` / ${r.variant}`}
                  </>
                )}
              </td>
              <td>{r.external_user_id ?? '–'}</td>
              <td>
                <span className={`status status-${r.status}`}>{r.status}</span>
              </td>
              <td>{modelShown(r)}</td>
              <td className="num">{r.total_tokens}</td>
              <td className="num">{r.cost_known ? formatCost(r.token_cost_usd, 3) : '?'}</td>
              <td className="num">{r.latency_ms} ms</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}
