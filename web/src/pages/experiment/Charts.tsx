import { useEffect, useMemo, useRef, useState } from 'react';
import { fixed } from '../../lib/numbers';
import { type ChartData, chartData, type Granularity, periodLabel } from '../../lib/results';
import type { ExperimentResults } from '../../lib/types';
import { TableScroll } from '../parts';

/** Colours per variant, in order (control first); the expected split is the same colour, dashed. */
const PALETTE = ['#4a5568', '#2b6cb0', '#c05621', '#2f855a', '#6b46c1', '#b83280'];

const STEP = { day: 86_400, hour: 3_600 } as const;

/** The periods shown: all of them, and a period either side of a single one (uPlot would otherwise span years). */
const xRange = (x: number[], granularity: Granularity): [number, number] => {
  const lo = x[0] ?? 0;
  const hi = x[x.length - 1] ?? lo;
  return lo === hi ? [lo - STEP[granularity], hi + STEP[granularity]] : [lo, hi];
};

/** How the captions and the table name a period. */
const PERIOD_WORDS = { day: { by: 'by day', column: 'Day (UTC)' }, hour: { by: 'by hour (UTC)', column: 'Hour (UTC)' } } as const;

type Series = { label: string; values: Array<number | null>; colour: string; dash?: number[] };

/**
 * Exposures against the split, and the cumulative primary metric, per period of first exposure: hours
 * while the experiment is young, days after (the API's choice; uPlot, loaded on first use).
 */
export function Charts({ r }: { r: ExperimentResults }) {
  // Built once per answer: a new series array would redraw the charts on every render.
  const { d, shares, values } = useMemo(() => {
    const d = chartData(r.timeseries, r.variants, r.timeseries_granularity);
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
        <Chart title="Share of exposed users per variant (%), against the configured split (dashed)" d={d} series={shares} />
        <figcaption>Share of users exposed so far, {PERIOD_WORDS[d.granularity].by} of first exposure</figcaption>
        <DataTable d={d} kind="share" />
      </figure>
      {d.hasValue ? (
        <figure>
          <Chart title={`Cumulative ${r.primary?.name ?? 'primary metric'} per variant`} d={d} series={values} />
          <figcaption>
            {r.primary?.name ?? 'Primary metric'} over the users exposed so far, with all their outcomes so far ({PERIOD_WORDS[d.granularity].by} of first
            exposure)
          </figcaption>
          <DataTable d={d} kind="value" />
        </figure>
      ) : (
        <p className="muted">No cumulative metric chart: it needs a primary metric on outcomes.</p>
      )}
    </section>
  );
}

function Chart({ title, d, series }: { title: string; d: ChartData; series: Series[] }) {
  const { x, granularity } = d;
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
              { label: granularity, value: (_u: unknown, v: number | null) => (v === null ? '-' : periodLabel(v, granularity)) },
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
            // Days and hours are UTC ones, as the API counts them, whatever the browser's time zone.
            tzDate: (ts: number) => UPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
            // One period of data is a point: give it a period either side rather than uPlot's years.
            scales: { x: { time: true, auto: false, range: xRange(x, granularity) } },
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
  }, [title, x, granularity, series]);
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
              <th scope="col">{PERIOD_WORDS[d.granularity].column}</th>
              {d.keys.map((k, i) => (
                <th key={k} scope="col">
                  {k}
                  {kind === 'share' ? ` (split ${fixed(d.expected[i]!)}%)` : ''}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {d.periods.map((period, t) => (
              <tr key={period}>
                <th scope="row">{period}</th>
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
