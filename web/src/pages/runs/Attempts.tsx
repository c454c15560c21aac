import { attemptStatus, type Attempt } from '../../lib/runView.js';
import { TableScroll } from '../parts';

/** Every call the run made, in order: retries and fallbacks included. */
export function Attempts({ attempts }: { attempts: Attempt[] }) {
  return (
    <section aria-labelledby="attempts-title">
      <h2 id="attempts-title">Attempts</h2>
      {attempts.length === 0 ? (
        <p className="muted">No model was called.</p>
      ) : (
        <TableScroll>
          <table className="attempts">
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">Provider / model</th>
                <th scope="col">Try of this model</th>
                <th scope="col">Status</th>
                <th scope="col">Error</th>
                <th scope="col" className="num">
                  Latency
                </th>
              </tr>
            </thead>
            <tbody>
              {attempts.map((a, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: attempts have no id and never reorder
                <tr key={i}>
                  <td>{i + 1}</td>
                  <td>{a.model}</td>
                  <td>{a.attempt}</td>
                  <td>{attemptStatus(a)}</td>
                  <td>{a.error ?? '–'}</td>
                  <td className="num">{a.latency_ms} ms</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </section>
  );
}
