import type { ApiError } from '../../lib/errors';
import { type MetricRow, newMetricRow, OUTCOME_KINDS, ROLES, RUN_KINDS, withSource } from '../../lib/experimentForm';
import { FieldError } from '../parts';

/** The metrics an experiment is judged on: one row each, the API's errors under the row's controls. */
export function MetricRows({ metrics, onChange, error }: { metrics: MetricRow[]; onChange: (rows: MetricRow[]) => void; error: ApiError | null }) {
  const setRow = (i: number, row: MetricRow) => onChange(metrics.map((m, j) => (j === i ? row : m)));
  return (
    <fieldset>
      <legend>Metrics</legend>
      {metrics.length === 0 && <p className="help">No metric: results list every event type as exploratory and make no decision.</p>}
      {metrics.map((m, i) => {
        const id = (field: string) => `metric-${i}-${field}`;
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: rows are edited in place; their index is their identity in the API's errors too
          <div key={i} className="metric-row">
            <label htmlFor={id('source')}>Metric {i + 1} source</label>
            <select id={id('source')} value={m.source} onChange={(e) => setRow(i, withSource(m, e.target.value as MetricRow['source']))}>
              <option value="outcomes">outcomes (tracked events)</option>
              <option value="runs">runs (measured by Promptline)</option>
            </select>
            {m.source === 'outcomes' && (
              <>
                <label htmlFor={id('event')}>Metric {i + 1} event type</label>
                <input id={id('event')} value={m.event_type} onChange={(e) => setRow(i, { ...m, event_type: e.target.value })} placeholder="e.g. signup" />
              </>
            )}
            <label htmlFor={id('kind')}>Metric {i + 1} kind</label>
            <select id={id('kind')} value={m.kind} onChange={(e) => setRow(i, { ...m, kind: e.target.value as MetricRow['kind'] })}>
              {(m.source === 'runs' ? RUN_KINDS : OUTCOME_KINDS).map((k) => (
                <option key={k} value={k}>
                  {k}
                </option>
              ))}
            </select>
            <label htmlFor={id('role')}>Metric {i + 1} role</label>
            <select id={id('role')} value={m.role} onChange={(e) => setRow(i, { ...m, role: e.target.value as MetricRow['role'] })}>
              {ROLES.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
            <label htmlFor={id('direction')}>Metric {i + 1} better when</label>
            <select id={id('direction')} value={m.direction} onChange={(e) => setRow(i, { ...m, direction: e.target.value as MetricRow['direction'] })}>
              <option value="">default ({m.source === 'runs' ? 'lower' : 'higher'})</option>
              <option value="higher">higher</option>
              <option value="lower">lower</option>
            </select>
            <button type="button" onClick={() => onChange(metrics.filter((_, j) => j !== i))} aria-label={`Remove metric ${i + 1}`}>
              Remove
            </button>
            {(['event_type', 'kind', 'role', 'direction'] as const).map((f) => (
              <FieldError key={f} message={error?.forField(`metrics.${i}.${f}`)} />
            ))}
          </div>
        );
      })}
      <button type="button" onClick={() => onChange([...metrics, newMetricRow(metrics.some((m) => m.role === 'primary') ? 'secondary' : 'primary')])}>
        Add metric
      </button>
    </fieldset>
  );
}
