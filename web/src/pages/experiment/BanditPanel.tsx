import { useMemo } from 'react';
import { banditSeries } from '../../lib/bandit';
import { formatTime } from '../../lib/format';
import { pct } from '../../lib/numbers';
import type { ExperimentDetail } from '../../lib/types';
import { TableScroll } from '../parts';
import { PALETTE, UPlotChart } from './UPlotChart';

/**
 * A bandit's weights and probabilities of being best over time, one point per check (the allocation
 * history of GET /experiments/{id}), as charts (uPlot, loaded on first use) and as a table.
 */
export function BanditPanel({ experiment: e }: { experiment: ExperimentDetail }) {
  const history = useMemo(() => e.allocation_history ?? [], [e.allocation_history]);
  const s = useMemo(
    () =>
      banditSeries(
        e.variants.map((v) => v.key),
        history,
      ),
    [e.variants, history],
  );
  const latest = history.at(-1);
  return (
    <section aria-labelledby="bandit-title" className="charts">
      <h2 id="bandit-title">Bandit: weights over time</h2>
      <p className="muted">
        Checked every hour: each arm's share of new users follows its probability of being the best, never below the floor; users keep their variant.
        {latest?.dropped.length ? ` Dropped for a failed guardrail: ${latest.dropped.join(', ')}.` : ''}
      </p>
      {history.length === 0 ? (
        <p className="muted">No allocation yet: the history starts with the bandit's first check.</p>
      ) : (
        <>
          <figure>
            <TimeChart title="Share of new users per arm (%)" x={s.x} keys={s.keys} values={s.weights} />
            <figcaption>Weights in force from each check on</figcaption>
          </figure>
          <figure>
            <TimeChart title="Probability of being the best arm (%)" x={s.x} keys={s.keys} values={s.pBest} />
            <figcaption>As each check computed it</figcaption>
          </figure>
          <details>
            <summary>Allocation history as a table</summary>
            <TableScroll>
              <table className="compact bandit-history">
                <thead>
                  <tr>
                    <th scope="col">Period</th>
                    <th scope="col">From</th>
                    {s.keys.map((k) => (
                      <th key={k} scope="col">
                        {k} weight (P best)
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {history.map((h) => (
                    <tr key={h.period}>
                      <th scope="row">{h.period}</th>
                      <td>{formatTime(h.started_at)}</td>
                      {s.keys.map((k) => (
                        <td key={k} className="num">
                          {pct(h.weights[k] ?? 0)} ({h.p_best === null ? '-' : pct(h.p_best[k] ?? 0)})
                        </td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
          </details>
        </>
      )}
    </section>
  );
}

function TimeChart({ title, x, keys, values }: { title: string; x: number[]; keys: string[]; values: Array<Array<number | null>> }) {
  const options = useMemo(() => {
    const lo = x[0] ?? 0;
    const hi = x[x.length - 1] ?? lo;
    return {
      series: [
        {},
        ...keys.map((k, i) => ({
          label: k,
          stroke: PALETTE[i % PALETTE.length]!,
          width: 2,
          points: { show: x.length < 40, size: 6 },
          value: (_u: unknown, v: number | null) => (v === null ? '-' : `${v.toFixed(1)}%`),
        })),
      ],
      // One check is a point: give it an hour either side rather than uPlot's years.
      scales: { x: { time: true, auto: false, range: lo === hi ? [lo - 3600, hi + 3600] : [lo, hi] }, y: { auto: false, range: [0, 100] } },
    };
  }, [x, keys]);
  const data = useMemo(() => [x, ...values], [x, values]);
  return <UPlotChart title={title} height={220} options={options} data={data} />;
}
