import { useQuery } from '@tanstack/react-query';
import { useLocation, useSearch } from 'wouter';
import { api } from '../../lib/api';
import { formatCost, formatTime } from '../../lib/format';
import { pct } from '../../lib/numbers';
import { STATS_WINDOWS, statsPath, statsWindowOf, type PromptStats, type StatsWindow } from '../../lib/playground';
import { ErrorNote, TableScroll } from '../parts';
import './playground.css';

const WINDOW_NAMES: Record<StatsWindow, string> = { '24h': 'Last 24 hours', '7d': 'Last 7 days', '30d': 'Last 30 days' };
const ms = (value: number | null) => (value === null ? '–' : `${value} ms`);

/** Per version: served runs, errors, latency and spend over a window kept in the page's URL (`?window=`). */
export function PromptNumbers({ promptId }: { promptId: string }) {
  const search = useSearch();
  const [location, navigate] = useLocation();
  const span = statsWindowOf(search);
  // The window ends when it is asked for; the key names the window, so a re-render does not move it.
  const stats = useQuery({ queryKey: ['stats', promptId, span], queryFn: () => api<PromptStats>('GET', statsPath(promptId, span, new Date())) });
  const choose = (next: StatsWindow) => {
    const params = new URLSearchParams(search);
    params.set('window', next);
    navigate(`${location}?${params.toString()}`, { replace: true });
  };
  return (
    <section aria-labelledby="numbers-title">
      <h2 id="numbers-title">Numbers</h2>
      <div className="numbers-window">
        <label htmlFor="numbers-window">Window</label>
        <select id="numbers-window" value={span} onChange={(e) => choose(e.target.value as StatsWindow)}>
          {(Object.keys(STATS_WINDOWS) as StatsWindow[]).map((w) => (
            <option key={w} value={w}>
              {WINDOW_NAMES[w]}
            </option>
          ))}
        </select>
        {stats.data !== undefined && (
          <span className="muted">
            {formatTime(stats.data.since)} to {formatTime(stats.data.until)}
          </span>
        )}
      </div>
      <ErrorNote error={stats.error} />
      {stats.data !== undefined &&
        (stats.data.versions.length === 0 ? (
          <p className="muted">No served runs in this window.</p>
        ) : (
          <TableScroll>
            <table className="numbers">
              <caption className="muted">Runs served through /run_prompt; playground runs are not counted. Latency of the runs that succeeded.</caption>
              <thead>
                <tr>
                  <th scope="col">Version</th>
                  <th scope="col" className="num">
                    Runs
                  </th>
                  <th scope="col" className="num">
                    Errors
                  </th>
                  <th scope="col" className="num">
                    Error rate
                  </th>
                  <th scope="col" className="num">
                    Latency p50
                  </th>
                  <th scope="col" className="num">
                    Latency p95
                  </th>
                  <th scope="col" className="num">
                    Prompt tokens
                  </th>
                  <th scope="col" className="num">
                    Completion tokens
                  </th>
                  <th scope="col" className="num">
                    Total tokens
                  </th>
                  <th scope="col" className="num">
                    Cost
                  </th>
                </tr>
              </thead>
              <tbody>
                {stats.data.versions.map((v) => (
                  <tr key={v.version}>
                    <th scope="row">v{v.version}</th>
                    <td className="num">{v.runs}</td>
                    <td className="num">{v.errors}</td>
                    <td className="num">{pct(v.error_rate)}</td>
                    <td className="num">{ms(v.latency_ms_p50)}</td>
                    <td className="num">{ms(v.latency_ms_p95)}</td>
                    <td className="num">{v.prompt_tokens}</td>
                    <td className="num">{v.completion_tokens}</td>
                    <td className="num">{v.total_tokens}</td>
                    <td className="num">{formatCost(v.cost_usd)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        ))}
    </section>
  );
}
