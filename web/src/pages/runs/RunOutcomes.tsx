import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api } from '../../lib/api';
import { formatTime } from '../../lib/format';
import { inputText } from '../../lib/runView';
import type { Page } from '../../lib/types';
import { ErrorNote, TableScroll } from '../parts';

/** An outcome as GET /outcomes lists it (src/modules/outcomes/outcomes.schemas.ts). */
interface Outcome {
  outcome_id: string;
  event_type: string;
  label: string | null;
  value: string | null;
  numeric_value: number | null;
  is_success: boolean | null;
  source: string | null;
  experiment_id: string | null;
  variant: string | null;
  attributed_by: 'run' | 'assignment' | 'none';
  created_at: string;
}

/** The run's first outcomes; a run with more than a page of them links to nothing more (rare: outcomes follow a run). */
const LIMIT = 100;
const success = (value: boolean | null) => (value === null ? '–' : value ? 'yes' : 'no');

/** What happened after the run: the outcomes that name it (`prompt_run_id`), newest first. */
export function RunOutcomes({ runId }: { runId: string }) {
  const outcomes = useQuery({
    queryKey: ['run-outcomes', runId],
    queryFn: () => api<Page<Outcome>>('GET', `/outcomes?prompt_run_id=${encodeURIComponent(runId)}&limit=${LIMIT}`),
  });
  return (
    <section aria-labelledby="outcomes-title">
      <h2 id="outcomes-title">Outcomes</h2>
      <ErrorNote error={outcomes.error} />
      {outcomes.data !== undefined &&
        (outcomes.data.data.length === 0 ? (
          <p className="muted">No outcome names this run.</p>
        ) : (
          <TableScroll>
            <table className="compact outcomes">
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  <th scope="col">Event</th>
                  <th scope="col">Success</th>
                  <th scope="col">Value</th>
                  <th scope="col">Label</th>
                  <th scope="col">Experiment</th>
                </tr>
              </thead>
              <tbody>
                {outcomes.data.data.map((o) => (
                  <tr key={o.outcome_id}>
                    <td>{formatTime(o.created_at)}</td>
                    <td>{o.event_type}</td>
                    <td>{success(o.is_success)}</td>
                    <td>{o.numeric_value !== null ? inputText(o.numeric_value) : (o.value ?? '–')}</td>
                    <td>{o.label ?? '–'}</td>
                    <td>
                      {o.experiment_id === null ? (
                        'none'
                      ) : (
                        <>
                          <Link href={`/experiments/${encodeURIComponent(o.experiment_id)}`}>{o.experiment_id}</Link>
                          {o.variant !== null && `, variant ${o.variant}`}
                        </>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            {outcomes.data.next_cursor !== null && <p className="muted">The first {LIMIT} are shown.</p>}
          </TableScroll>
        ))}
    </section>
  );
}
