import { barDomain, barGeometry, pLabel, scoreRows, type ScoreRow, type Section } from '../../lib/results';
import type { MetricResult } from '../../lib/types';
import { TableScroll } from '../parts';

const BAR_WIDTH = 160;
const BAR_HEIGHT = 18;

interface ScorecardProps {
  title: string;
  metrics: MetricResult[];
  section: Section;
  sequential: boolean;
  prior: 'flat' | 'proper';
}

/**
 * One table per section: a row per metric × variant, the lift's 95% interval drawn around zero, the
 * Bayesian chance to win and interval under the prior asked for, and the one p-value the verdict reads.
 */
export function Scorecard({ title, metrics, section, sequential, prior }: ScorecardProps) {
  const rows = metrics.map((m) => ({ metric: m, rows: scoreRows(m, sequential) }));
  const domain = barDomain(rows.flatMap((r) => r.rows.map((row) => row.interval)));
  const adjusted = metrics.some((m) => m.cuped?.applied);
  const id = `scorecard-${section}`;
  return (
    <section aria-labelledby={id}>
      <h3 id={id}>{title}</h3>
      <TableScroll>
        <table className="scorecard" data-section={section}>
          <thead>
            <tr>
              <th scope="col">Metric</th>
              <th scope="col">Variant</th>
              <th scope="col">Users</th>
              <th scope="col">Value</th>
              {adjusted && <th scope="col">CUPED-adjusted</th>}
              <th scope="col">Lift</th>
              <th scope="col">{sequential ? '95% interval (sequential)' : '95% interval'}</th>
              <th scope="col">Chance to win ({prior} prior)</th>
              <th scope="col">95% credible interval ({prior} prior)</th>
              <th scope="col">{pLabel(metrics, section, sequential)}</th>
              <th scope="col">Verdict</th>
            </tr>
          </thead>
          <tbody>
            {rows.flatMap(({ metric, rows: variantRows }) =>
              variantRows.map((row, i) => (
                <tr key={`${metric.name}-${row.variant}`} data-metric={metric.name} data-variant={row.variant}>
                  {i === 0 && (
                    <th scope="rowgroup" rowSpan={variantRows.length}>
                      {metric.name}
                      {metric.primary && <span className="chip">primary</span>}
                      <div className="muted">{metric.direction === 'higher' ? 'higher is better' : 'lower is better'}</div>
                    </th>
                  )}
                  <td className="variant">{row.variant}</td>
                  <td className="num users">{row.users}</td>
                  <td className="num value">
                    {row.value}
                    <div className="muted ratio">{row.ratio}</div>
                  </td>
                  {adjusted && <td className="num">{row.adjusted ?? ''}</td>}
                  <td className={`num lift tone-${row.tone}`}>{row.lift}</td>
                  <td className="interval">
                    {row.interval !== null && <IntervalBar row={row} domain={domain} lift={liftOf(metric, row.variant)} />}
                    <span className="ci">{row.intervalText}</span>
                  </td>
                  <td className="num chance">{row.chanceToWin}</td>
                  <td className="credible">{row.credible}</td>
                  <td className="num p">{row.p}</td>
                  <td className={`verdict tone-${row.tone}`} title={row.verdictText}>
                    {row.verdict}
                  </td>
                </tr>
              )),
            )}
          </tbody>
        </table>
      </TableScroll>
      <VerdictTexts metrics={metrics} />
    </section>
  );
}

const liftOf = (m: MetricResult, variant: string) => m.comparisons.find((c) => c.variant === variant)?.relative.lift ?? null;

function IntervalBar({ row, domain, lift }: { row: ScoreRow; domain: number; lift: number | null }) {
  const g = barGeometry(row.interval!, lift, domain, BAR_WIDTH);
  const mid = BAR_HEIGHT / 2;
  return (
    <svg
      width={BAR_WIDTH}
      height={BAR_HEIGHT}
      viewBox={`0 0 ${BAR_WIDTH} ${BAR_HEIGHT}`}
      role="img"
      aria-label={`${row.lift}, 95% interval ${row.intervalText}: ${row.verdict}`}
      className={`bar tone-${row.tone}`}
    >
      <line x1={g.zero} x2={g.zero} y1={0} y2={BAR_HEIGHT} stroke="currentColor" strokeOpacity={0.5} />
      <rect x={g.x0} y={mid - 4} width={Math.max(1, g.x1 - g.x0)} height={8} rx={3} className="fill" />
      {g.point !== null && <line x1={g.point} x2={g.point} y1={mid - 7} y2={mid + 7} stroke="currentColor" strokeWidth={2} />}
      {g.clippedLow && <path d={`M0 ${mid} L6 ${mid - 5} L6 ${mid + 5} Z`} className="fill" />}
      {g.clippedHigh && <path d={`M${BAR_WIDTH} ${mid} L${BAR_WIDTH - 6} ${mid - 5} L${BAR_WIDTH - 6} ${mid + 5} Z`} className="fill" />}
    </svg>
  );
}

/** The API's verdict sentences, as text (the CLI's "Verdicts" block). */
function VerdictTexts({ metrics }: { metrics: MetricResult[] }) {
  const texts = metrics.flatMap((m) => m.comparisons.map((c) => ({ key: `${m.name}-${c.variant}`, text: `${m.name}, ${c.variant}: ${c.verdict_text}` })));
  if (texts.length === 0) return null;
  return (
    <details className="verdicts">
      <summary>Verdicts in words</summary>
      <ul>
        {texts.map((t) => (
          <li key={t.key}>{t.text}</li>
        ))}
      </ul>
    </details>
  );
}
