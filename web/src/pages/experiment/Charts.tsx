import { useMemo } from 'react';
import { fixed } from '../../lib/numbers';
import { type ChartData, chartData, type Granularity, periodLabel } from '../../lib/results';
import type { ExperimentResults } from '../../lib/types';
import { TableScroll } from '../parts';
import { PALETTE, UPlotChart } from './UPlotChart';

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
  const options = useMemo(
    () => ({
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
      // One period of data is a point: give it a period either side rather than uPlot's years.
      scales: { x: { time: true, auto: false, range: xRange(x, granularity) } },
    }),
    [x, granularity, series],
  );
  const data = useMemo(() => [x, ...series.map((s) => s.values)], [x, series]);
  return <UPlotChart title={title} height={240} options={options} data={data} />;
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
