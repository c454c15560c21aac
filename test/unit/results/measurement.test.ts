import { describe, expect, it } from 'vitest';
import type { ExperimentView } from '../../../src/modules/experiments/experiments.schemas.js';
import { metric } from './metricDef.js';
import type { MetricDef } from '../../../src/modules/experiments/metrics.js';
import { exposureTotals, measure, resolveCap, type MetricRead, type ResultsReads } from '../../../src/modules/results/measurement.js';
import { planReads } from '../../../src/modules/results/readPlan.js';
import type { JoinedColumns, MetricAgg, UserColumns } from '../../../src/modules/results/results.repo.js';

type UserRow = [user: string, success: number | null, total: number | null];
const userColumns = (rows: readonly UserRow[]): UserColumns => ({ user: rows.map((r) => r[0]), success: rows.map((r) => r[1]), total: rows.map((r) => r[2]) });
const joined = (rows: readonly UserRow[], variant: string): JoinedColumns => ({
  ...userColumns(rows),
  hour: rows.map(() => '2026-01-02T10'),
  assigned: rows.map(() => variant),
});
const agg = (over: Partial<MetricAgg>): MetricAgg => ({ users_with_event: 0, users_with_success_data: 0, successes: 0, users_with_numeric: 0, sum: 0, sum_squares: 0, ...over });

describe('exposureTotals: exposed users per variant, summed once from the daily counts', () => {
  it.each<[string, string[], Array<{ variant: string; n: number }>, Record<string, number>, number]>([
    ['no exposure yet', ['a', 'b'], [], { a: 0, b: 0 }, 0],
    [
      'several days per variant',
      ['a', 'b'],
      [
        { variant: 'a', n: 3 },
        { variant: 'b', n: 2 },
        { variant: 'a', n: 4 },
      ],
      { a: 7, b: 2 },
      9,
    ],
    ['a variant no longer declared counts for itself, not in all', ['a'], [{ variant: 'a', n: 1 }, { variant: 'gone', n: 5 }], { a: 1, gone: 5 }, 1],
  ])('%s', (_, keys, days, perVariant, all) => {
    const totals = exposureTotals(keys, days);
    expect(Object.fromEntries(Object.keys(perVariant).map((k) => [k, totals.usersOf(k)]))).toEqual(perVariant);
    expect(totals.all).toBe(all);
  });
});

describe("resolveCap: a metric's cap as a value", () => {
  const rows: MetricRead = {
    source: 'outcomes',
    userRows: new Map([
      ['a', userColumns([['u1', null, 10], ['u2', null, 20], ['u3', null, 30]])],
      ['b', userColumns([['u4', null, 40], ['u5', null, null]])],
    ]),
  };
  it.each<[string, MetricDef, MetricRead, number, number | null]>([
    ['no cap', metric({ kind: 'mean' }), rows, 10, null],
    ['a fixed cap', metric({ kind: 'mean', cap: 25 }), { source: 'outcomes', sums: new Map() }, 10, 25],
    ['a runs cap is what the reads resolved', metric({ source: 'runs', event_type: null, kind: 'cost_usd', cap: { percentile: 0.9 } }), { source: 'runs', cap: 7, perVariant: new Map() }, 10, 7],
    // 4 totals and 6 exposed users without one (zeros): 10 values, the median is rank 5, a zero.
    ['a percentile over every exposed user, the unseen as zeros', metric({ kind: 'mean', cap: { percentile: 0.5 } }), rows, 10, 0],
    // 4 totals, no other user: rank ⌈0.75·4⌉ = 3 of [10, 20, 30, 40].
    ['a percentile over the totals when every user has one', metric({ kind: 'mean', cap: { percentile: 0.75 } }), rows, 4, 30],
  ])('%s', (_, m, read, allUsers, expected) => {
    expect(resolveCap(m, read, allUsers)).toBe(expected);
  });
});

describe('measure: from what was read to what was measured', () => {
  const primary = metric({ name: 'convert:success_rate', role: 'primary' });
  const revenue = metric({ name: 'revenue:mean', event_type: 'revenue', kind: 'mean', cap: 50 });
  const cost = metric({ name: 'runs:cost_usd', source: 'runs', event_type: null, kind: 'cost_usd', role: 'guardrail' });
  const experiment = {
    experiment_id: 'exp_1',
    variants: [
      { key: 'a', version: 1, weight: 50 },
      { key: 'b', version: 2, weight: 50 },
    ],
    metrics: [primary, revenue, cost],
    cuped_days: 14,
  } as unknown as ExperimentView;
  const convertRows = new Map([
    ['a', joined([['u1', 1, null], ['u2', 0, null]], 'a')],
    ['b', joined([['u3', 1, null], ['u4', 1, null], ['u5', 0, null]], 'b')],
  ]);
  const reads = (explore: boolean): ResultsReads => ({
    exposuresByPeriod: [
      { variant: 'a', period: '2026-01-02', n: 4 },
      { variant: 'b', period: '2026-01-02', n: 5 },
    ],
    seen: explore ? ['convert', 'signup'] : [],
    sums: explore
      ? new Map([
          ['convert', new Map([['a', agg({ users_with_event: 2, users_with_success_data: 2, successes: 1 })]])],
          ['signup', new Map([['a', agg({ users_with_event: 1, users_with_numeric: 1, sum: 3, sum_squares: 9 })]])],
        ])
      : new Map(),
    checked: { type: 'convert', rows: convertRows },
    assigned: null,
    metrics: new Map<MetricDef, MetricRead>([
      [primary, { source: 'outcomes', userRows: convertRows }],
      [revenue, { source: 'outcomes', sums: new Map([['a', agg({ users_with_event: 1, users_with_numeric: 1, sum: 50, sum_squares: 2500 })], ['b', agg({})]]) }],
      [cost, { source: 'runs', cap: null, perVariant: new Map([['a', { users: 4, sum: 8, sum_squares: 20 }], ['b', { users: 5, sum: 5, sum_squares: 5 }]]) }],
    ]),
    successfulUsers: null,
    runs: [],
    latency: new Map(),
    labels: [],
    unattributedOutcomes: 0,
  });

  it.each<[string, boolean, Record<string, Record<string, [n: number, sum: number, sumSquares: number, usersWithData: number]>>, string[]]>([
    [
      'declared metrics over the exposed users (users without data count as 0)',
      false,
      {
        'convert:success_rate': { a: [4, 1, 1, 2], b: [5, 2, 2, 3] },
        'revenue:mean': { a: [4, 50, 2500, 1], b: [5, 0, 0, 0] },
        'runs:cost_usd': { a: [4, 8, 20, 4], b: [5, 5, 5, 5] },
      },
      [],
    ],
    [
      'exploring adds the undeclared pairs some user has data for',
      true,
      {
        'convert:success_rate': { a: [4, 1, 1, 2], b: [5, 2, 2, 3] },
        'revenue:mean': { a: [4, 50, 2500, 1], b: [5, 0, 0, 0] },
        'runs:cost_usd': { a: [4, 8, 20, 4], b: [5, 5, 5, 5] },
      },
      ['signup:mean a=[4,3,9,1] b=[5,0,0,0]'],
    ],
  ])('%s', (_, explore, expected, explored) => {
    const plan = planReads(experiment, { sequential: false, prior: 'flat', explore, cuped: false });
    const read = reads(explore);
    const m = measure(plan, read, exposureTotals(plan.keys, read.exposuresByPeriod));
    const table = (perVariant: ReadonlyMap<string, { n: number; sum: number; sumSquares: number; usersWithData: number }>) =>
      Object.fromEntries([...perVariant].map(([k, v]) => [k, [v.n, v.sum, v.sumSquares, v.usersWithData]]));
    expect(Object.fromEntries(m.measured.map((x) => [x.def.name, table(x.perVariant)]))).toEqual(expected);
    expect(m.measured.map((x) => x.cap)).toEqual([null, 50, null]);
    expect(m.explored.map((x) => `${x.def.name} ${Object.entries(table(x.perVariant)).map(([k, v]) => `${k}=[${v.join(',')}]`).join(' ')}`)).toEqual(explored);
    // Cost per successful user follows the primary metric's joined rows.
    expect(Object.fromEntries(m.successfulUsers)).toEqual({ a: 1, b: 2 });
    expect([...m.joined.keys()]).toEqual(['convert']);
  });

  it('takes users with a success from the reads when the primary is not an outcome metric', () => {
    const plan = planReads({ ...experiment, metrics: [revenue, cost] }, { sequential: false, prior: 'flat', explore: false, cuped: false });
    const read = { ...reads(false), checked: null, metrics: new Map([...reads(false).metrics].filter(([d]) => d !== primary)), successfulUsers: new Map([['a', 3]]) };
    const m = measure(plan, read, exposureTotals(plan.keys, read.exposuresByPeriod));
    expect(Object.fromEntries(m.successfulUsers)).toEqual({ a: 3 });
    expect(m.joined.size).toBe(0);
  });
});
