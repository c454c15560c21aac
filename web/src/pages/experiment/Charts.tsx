import { useEffect, useMemo, useRef, useState } from 'react';
import { fixed } from '../../lib/numbers';
import { type ChartData, chartData } from '../../lib/results';
import type { ExperimentResults } from '../../lib/types';
import { TableScroll } from '../parts';

/** Colours per variant, in order (control first); the expected split is the same colour, dashed. */
const PALETTE = ['#4a5568', '#2b6cb0', '#c05621', '#2f855a', '#6b46c1', '#b83280'];

const DAY = 86_400;

/** The days shown: all of them, and a day either side of a single one (uPlot would otherwise span years). */
const xRange = (x: number[]): [number, number] => {
  const lo = x[0] ?? 0;
  const hi = x[x.length - 1] ?? lo;
  return lo === hi ? [lo - DAY, hi + DAY] : [lo, hi];
};

type Series = { label: string; values: Array<number | null>; colour: string; dash?: number[] };

/** Exposures against the split, and the cumulative primary metric, per day (uPlot, loaded on first use). */
export function Charts({ r }: { r: ExperimentResults }) {
  // Built once per answer: a new series array would redraw the charts on every render.
  const { d, shares, values } = useMemo(() => {
    const d = chartData(r.timeseries, r.variants);
    const colour = (i: number) => PALETTE[i % PALETTE.length]!;
    const shares: Series[] = [
      ...d.keys.map((k, i) => ({ label: `${k} share`, values: d.share[i]!, colour: colour(i) })),
      ...d.keys.map((k, i) => ({ label: `${k} split`, values: d.x.map(() => d.expected[i]!), colour: colour(i), dash: [6, 4] })),
    ];
    const values: Series[] = d.keys.map((k, i) => ({ label: k, values: d.value[i]!, colour: colour(i) }));
    return { d, shares, values };
  }, [r]);
  if (r.timeseries.length === 0) return <p className="muted">No exposures yet: the charts start with the first user.</p>;
  return (
    <section aria-labelledby="charts-title" className="charts">
      <h3 id="charts-title">Over time</h3>
      <figure>
        <Chart title="Share of exposed users per variant (%), against the configured split (dashed)" x={d.x} series={shares} />
        <figcaption>Share of users exposed so far, by day of first exposure</figcaption>
        <DataTable d={d} kind="share" />
      </figure>
      {d.hasValue ? (
        <figure>
          <Chart title={`Cumulative ${r.primary?.name ?? 'primary metric'} per variant`} x={d.x} series={values} />
          <figcaption>{r.primary?.name ?? 'Primary metric'} over the users exposed so far, with all their outcomes so far (by first exposure)</figcaption>
          <DataTable d={d} kind="value" />
        </figure>
      ) : (
        <p className="muted">No cumulative metric chart: it needs a primary metric on outcomes.</p>
      )}
    </section>
  );
}

function Chart({ title, x, series }: { title: string; x: number[]; series: Series[] }) {
  const box = useRef<HTMLDivElement>(null);
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => {
    let plot: { destroy(): void } | undefined;
    let cancelled = false;
    void import('./uplotChunk')
      .then(({ default: UPlot }) => {
        if (cancelled || box.current === null) return;
        plot = new UPlot(
          {
            title,
            width: Math.max(320, Math.min(900, box.current.clientWidth || 720)),
            height: 240,
            series: [
              { label: 'day', value: (_u: unknown, v: number | null) => (v === null ? '-' : new Date(v * 1000).toISOString().slice(0, 10)) },
              ...series.map((s) => ({
                label: s.label,
                stroke: s.colour,
                width: 2,
                points: { show: x.length < 40, size: 6 },
                ...(s.dash ? { dash: s.dash } : {}),
                value: (_u: unknown, v: number | null) => (v === null ? '-' : fixed(v)),
              })),
            ],
            axes: [{}, {}],
            // Days are UTC days, as the API counts them, whatever the browser's time zone.
            tzDate: (ts: number) => UPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
            // One day of data is a point: give it a day either side rather than uPlot's years.
            scales: { x: { time: true, auto: false, range: xRange(x) } },
          },
          [x, ...series.map((s) => s.values)] as never,
          box.current,
        );
      })
      .catch((error: Error) => setFailed(error.message));
    return () => {
      cancelled = true;
      plot?.destroy();
    };
  }, [title, x, series]);
  return (
    <>
      <div ref={box} className="chart" role="img" aria-label={title} />
      {failed !== null && <p className="error">The chart could not load: {failed}</p>}
    </>
  );
}

function DataTable({ d, kind }: { d: ChartData; kind: 'share' | 'value' }) {
  return (
    <details>
      <summary>{kind === 'share' ? 'Exposures as a table' : 'Cumulative metric as a table'}</summary>
      <TableScroll>
        <table className="compact">
          <thead>
            <tr>
              <th scope="col">Day</th>
              {d.keys.map((k, i) => (
                <th key={k} scope="col">
                  {k}
                  {kind === 'share' ? ` (split ${fixed(d.expected[i]!)}%)` : ''}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {d.days.map((day, t) => (
              <tr key={day}>
                <th scope="row">{day}</th>
                {d.keys.map((k, i) => (
                  <td key={k} className="num">
                    {kind === 'share' ? (d.share[i]![t] === null ? '-' : `${fixed(d.share[i]![t]!)}%`) : fixed(d.value[i]![t] ?? null)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
    </details>
  );
}
