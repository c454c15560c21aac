import { describe, expect, it } from 'vitest';
import * as cli from '../../../src/lib/numbers.js';
import * as web from '../../../web/src/lib/numbers.js';
import {
  barDomain,
  barGeometry,
  chartData,
  csvFilename,
  DEFAULT_TOGGLES,
  parseToggles,
  periodLabel,
  pLabel,
  resultsPath,
  scoreRows,
  toneOf,
  togglesQuery,
} from '../../../web/src/lib/results.js';
import type { Comparison, MetricResult } from '../../../web/src/lib/types.js';

describe('results numbers: one module for the CLI and the console', () => {
  it("the console writes numbers with the CLI's own functions", () => {
    expect([web.fixed, web.pct, web.pValue, web.range, web.relPct, web.DASH, web.usd, web.metricValue]).toEqual([
      cli.fixed,
      cli.pct,
      cli.pValue,
      cli.range,
      cli.relPct,
      cli.dash,
      cli.usd,
      cli.metricValue,
    ]);
  });

  it.each<[number | null, string, string, string]>([
    [0.1234, '0.1234', '+12.3%', '0.1234'],
    [0.05, '0.0500', '+5.0%', '0.0500'],
    [0.2, '0.2000', '+20.0%', '0.2000'],
    [-0.2, '-0.2000', '-20.0%', '<0.0001'], // never a p-value; pValue only reads small numbers as small
    [0.00001, '0.0000100', '+0.0%', '<0.0001'], // small values keep 3 significant digits
    [null, '-', '-', '-'],
  ])('%s → fixed %s, signed pct %s, p %s', (v, f, p, pv) => {
    expect([web.fixed(v), web.pct(v, true), web.pValue(v)]).toEqual([f, p, pv]);
  });

  it.each<[number[] | null, string]>([
    [null, '-'],
    [[-0.1, 0.2], '[-10.0%, +20.0%]'],
    [[0, 0], '[+0.0%, +0.0%]'],
  ])('range(%j) → %s', (ci, text) => {
    expect(web.range(ci, web.relPct)).toBe(text);
  });
});

describe('toggles in the URL', () => {
  it.each<[string, ReturnType<typeof parseToggles>, string]>([
    ['', DEFAULT_TOGGLES, ''],
    ['?sequential=true', { sequential: true, cuped: null, prior: 'flat', explore: null }, 'sequential=true'],
    ['cuped=false', { sequential: false, cuped: false, prior: 'flat', explore: null }, 'cuped=false'],
    ['?cuped=true&prior=proper&sequential=true', { sequential: true, cuped: true, prior: 'proper', explore: null }, 'sequential=true&cuped=true&prior=proper'],
    ['?explore=true', { sequential: false, cuped: null, prior: 'flat', explore: true }, 'explore=true'],
    ['?explore=false&prior=proper', { sequential: false, cuped: null, prior: 'proper', explore: false }, 'prior=proper&explore=false'],
    ['?prior=weird&sequential=yes&cuped=1&explore=maybe', DEFAULT_TOGGLES, ''],
  ])('%j → %j → %j', (search, toggles, query) => {
    expect(parseToggles(search)).toEqual(toggles);
    expect(togglesQuery(toggles)).toBe(query);
    expect(parseToggles(togglesQuery(toggles))).toEqual(toggles);
  });

  it('passes the same toggles to the API, with format for the CSV', () => {
    expect(resultsPath('a b', DEFAULT_TOGGLES)).toBe('/experiments/a%20b/results');
    expect(resultsPath('x', { sequential: true, cuped: false, prior: 'proper', explore: true }, 'csv')).toBe(
      '/experiments/x/results?sequential=true&cuped=false&prior=proper&explore=true&format=csv',
    );
  });

  it.each<[string | null, string, string]>([
    ['attachment; filename="warmth-results.csv"', 'warmth', 'warmth-results.csv'],
    [null, 'a/b c', 'a_b_c-results.csv'],
    ['attachment', 'x', 'x-results.csv'],
  ])('csv filename from %j', (header, id, name) => {
    expect(csvFilename(header, id)).toBe(name);
  });
});

describe('the interval bar', () => {
  it.each<[Array<[number, number] | null>, number]>([
    [[], 0.011],
    [[null], 0.011],
    [[[-0.1, 0.2]], 0.22],
    [
      [
        [-0.5, 0.1],
        [0.05, 0.3],
      ],
      0.55,
    ],
    [[[-1, 40]], 2], // at most ±200%: a wider bar is clipped with an arrow
  ])('domain of %j is ±%s', (intervals, domain) => {
    expect(barDomain(intervals)).toBeCloseTo(domain, 10);
  });

  it.each<[[number, number], number | null, number, Partial<ReturnType<typeof barGeometry>>]>([
    [[-0.1, 0.1], 0, 0.2, { zero: 50, x0: 25, x1: 75, point: 50, clippedLow: false, clippedHigh: false }],
    [[0.1, 0.2], 0.15, 0.2, { zero: 50, x0: 75, x1: 100, point: 87.5 }],
    [[-0.5, 0.1], null, 0.2, { x0: 0, x1: 75, point: null, clippedLow: true, clippedHigh: false }],
    [[0, 3], 1, 2, { x0: 50, x1: 100, point: 75, clippedHigh: true }],
  ])('interval %j, lift %s on ±%s over 100 px', (ci, lift, domain, expected) => {
    expect(barGeometry(ci, lift, domain, 100)).toMatchObject(expected);
  });

  it.each<[Comparison['verdict'] | undefined, string]>([
    ['better', 'good'],
    ['worse', 'bad'],
    ['no_detectable_difference', 'inconclusive'],
    ['not_enough_data', 'inconclusive'],
    [undefined, 'inconclusive'],
  ])('verdict %s is coloured %s', (verdict, tone) => {
    expect(toneOf(verdict)).toBe(tone);
  });
});

const comparison = (over: Partial<Comparison>): Comparison => ({
  variant: 'b',
  control: 'a',
  absolute: { lift: 0.05, se: 0.01, ci: [0.03, 0.07], p_value: 0.001, df: null },
  relative: { lift: 0.25, se: 0.05, ci: [0.15, 0.35], p_value: 0.00001, df: null },
  p_value_adjusted: 0.00002,
  bayes: { chance_to_win: 0.9991, ci: [0.14, 0.36] },
  sequential: { ci: [0.05, 0.45], p_value: 0.012 },
  enough_data: true,
  verdict: 'better',
  verdict_text: 'b is better',
  verdict_p_value: 0.00002,
  verdict_p_kind: 'holm_adjusted',
  ...over,
});

const metric = (comparisons: Comparison[]): MetricResult => ({
  name: 'signup:success_rate',
  source: 'outcomes',
  event_type: 'signup',
  kind: 'success_rate',
  role: 'primary',
  direction: 'higher',
  primary: true,
  cuped: null,
  variants: [
    { key: 'a', users: 100, users_with_event: 20, value: 0.2, n: 100, sum: 20 },
    { key: 'b', users: 100, users_with_event: 25, value: 0.25, n: 100, sum: 25 },
  ],
  comparisons,
});

describe('scorecard rows', () => {
  it('formats each variant as the CLI does; the control has no comparison', () => {
    const [a, b] = scoreRows(metric([comparison({})]), false);
    expect(a).toMatchObject({ variant: 'a', control: true, value: '0.2000', ratio: '20 / 100', lift: '(control)', intervalText: '', p: '' });
    expect(b).toMatchObject({
      variant: 'b',
      value: '0.2500',
      ratio: '25 / 100',
      lift: '+25.0%',
      interval: [0.15, 0.35],
      intervalText: '[+15.0%, +35.0%]',
      chanceToWin: '99.9%',
      credible: '[+14.0%, +36.0%]',
      p: '<0.0001',
      verdict: 'better',
      tone: 'good',
    });
  });

  // One p per row, the one the verdict reads, whatever else the comparison carries; the header says which it is.
  it.each<['goal' | 'guardrail' | 'exploratory', boolean, Comparison['verdict_p_kind'], number, string, string, string]>([
    ['goal', false, 'holm_adjusted', 0.002, '0.0020', '[+15.0%, +35.0%]', 'p (Holm-adjusted)'],
    ['guardrail', false, 'one_sided_worse', 0.03, '0.0300', '[+15.0%, +35.0%]', 'p (worse, one-sided)'],
    ['exploratory', false, 'unadjusted', 0.01, '0.0100', '[+15.0%, +35.0%]', 'p (unadjusted)'],
    ['goal', true, 'sequential_holm_adjusted', 0.024, '0.0240', '[+5.0%, +45.0%]', 'p (sequential, Holm-adjusted)'],
    ['guardrail', true, 'one_sided_worse', 0.03, '0.0300', '[+5.0%, +45.0%]', 'p (worse, one-sided)'],
    ['exploratory', true, 'sequential_unadjusted', 0.012, '0.0120', '[+5.0%, +45.0%]', 'p (sequential, unadjusted)'],
  ])('section %s, sequential %s: the verdict reads the %s p, %s; interval %s', (section, sequential, kind, value, p, interval, header) => {
    const c = comparison({
      p_value_adjusted: 0.002,
      p_value_worse: 0.03,
      relative: { lift: 0.25, se: 0.05, ci: [0.15, 0.35], p_value: 0.01, df: null },
      verdict_p_value: value,
      verdict_p_kind: kind,
    });
    const row = scoreRows(metric([c]), sequential)[1]!;
    expect([row.p, row.intervalText]).toEqual([p, interval]);
    expect(pLabel([metric([c])], section, sequential)).toBe(header);
    expect(pLabel([metric([])], section, sequential)).toBe(header); // no comparison yet: what it would read
  });

  it('writes a cost metric in dollars, with the digits a small cost needs', () => {
    const cost: MetricResult = {
      ...metric([comparison({})]),
      kind: 'cost_usd',
      variants: [
        { key: 'a', users: 100, users_with_event: 100, value: 0.0000314, n: 100, sum: 0.00314 },
        { key: 'b', users: 100, users_with_event: 100, value: 0.0000399, n: 100, sum: 0.00399 },
      ],
    };
    expect(scoreRows(cost, false).map((r) => [r.value, r.ratio])).toEqual([
      ['$0.0000314', '$0.00314 / 100'],
      ['$0.0000399', '$0.00399 / 100'],
    ]);
  });
});

describe('chart series', () => {
  it('turns the time series into shares against the split and cumulative values', () => {
    const d = chartData(
      [
        { date: '2026-03-01', start: '2026-03-01T00:00:00.000Z', variants: { a: { exposures: 3, cumulative_exposures: 3, cumulative_value: 0 }, b: { exposures: 1, cumulative_exposures: 1, cumulative_value: null } } },
        { date: '2026-03-02', start: '2026-03-02T00:00:00.000Z', variants: { a: { exposures: 1, cumulative_exposures: 4, cumulative_value: 0.25 }, b: { exposures: 3, cumulative_exposures: 4, cumulative_value: 0.5 } } },
        { date: '2026-03-03', start: '2026-03-03T00:00:00.000Z', variants: { a: { exposures: 0, cumulative_exposures: 4, cumulative_value: 0.25 } } },
      ],
      [
        { key: 'a', version: 1, weight: 0.5, users: 4, runs: 0, errored_runs: 0, render_failures: 0 },
        { key: 'b', version: 2, weight: 0.5, users: 4, runs: 0, errored_runs: 0, render_failures: 0 },
      ],
      'day',
    );
    expect(d.periods).toEqual(['2026-03-01', '2026-03-02', '2026-03-03']);
    expect(d.x).toEqual([Date.UTC(2026, 2, 1) / 1000, Date.UTC(2026, 2, 2) / 1000, Date.UTC(2026, 2, 3) / 1000]);
    expect(d.share).toEqual([
      [75, 50, 100],
      [25, 50, 0],
    ]);
    expect(d.expected).toEqual([50, 50]);
    expect(d.value).toEqual([
      [0, 0.25, 0.25],
      [null, 0.5, null],
    ]);
    expect(d.hasValue).toBe(true);
    expect(chartData([], [], 'day').hasValue).toBe(false);
  });

  it('labels hourly points with their UTC hour, daily ones with their day', () => {
    const point = (start: string) => ({ date: start.slice(0, 10), start, variants: { a: { exposures: 1, cumulative_exposures: 1, cumulative_value: null } } });
    const variants = [{ key: 'a', version: 1, weight: 1, users: 2, runs: 0, errored_runs: 0, render_failures: 0 }];
    const d = chartData([point('2026-03-01T23:00:00.000Z'), point('2026-03-02T00:00:00.000Z')], variants, 'hour');
    expect(d.x).toEqual([Date.UTC(2026, 2, 1, 23) / 1000, Date.UTC(2026, 2, 2, 0) / 1000]);
    expect(d.periods).toEqual(['2026-03-01 23:00', '2026-03-02 00:00']);
    expect(periodLabel(Date.UTC(2026, 2, 1, 23) / 1000, 'day')).toBe('2026-03-01');
  });
});
