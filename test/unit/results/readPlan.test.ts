import { describe, expect, it } from 'vitest';
import type { ExperimentView } from '../../../src/modules/experiments/experiments.schemas.js';
import { metric } from './metricDef.js';
import type { MetricDef } from '../../../src/modules/experiments/metrics.js';
import type { ResultsOptions } from '../../../src/modules/results/measured.js';
import { needsUserValues, planReads, type ReadPlan } from '../../../src/modules/results/readPlan.js';

const primaryConvert = metric({ name: 'convert:success_rate', role: 'primary' });
const revenue = metric({ name: 'revenue:mean', event_type: 'revenue', kind: 'mean' });
const revenueP95 = metric({ name: 'revenue:mean', event_type: 'revenue', kind: 'mean', cap: { percentile: 0.95 } });
const cost = metric({ name: 'runs:cost_usd', source: 'runs', event_type: null, kind: 'cost_usd', role: 'primary' });
const convertAgain = metric({ name: 'convert again', role: 'guardrail' });

const experiment = (metrics: MetricDef[]): ExperimentView => ({
  experiment_id: 'exp_1',
  prompt_id: 'p',
  name: null,
  hypothesis: null,
  status: 'running',
  variants: [
    { key: 'a', version: 1, weight: 50 },
    { key: 'b', version: 2, weight: 50 },
  ] as ExperimentView['variants'],
  control: 'a',
  coverage: 1,
  seed: 's',
  primary_metric: null,
  metrics,
  target_mde: 0.1,
  cuped: false,
  cuped_days: 14,
  winner: null,
  shipped_version: null,
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
  started_at: '2026-01-01T00:00:00Z',
  stopped_at: null,
  type: 'ab',
  reason: null,
  rollout: null,
  bandit: null,
});
const options = (over: Partial<ResultsOptions>): ResultsOptions => ({ sequential: false, prior: 'flat', explore: false, cuped: false, ...over });

type Expected = Pick<ReadPlan, 'outcomeTypes' | 'everyType' | 'checked' | 'successfulUsers' | 'labelsOfSeen'> & { covariateTypes: string[] | null };

describe('planReads: which reads a report needs, from the experiment and its metrics alone', () => {
  it.each<[string, MetricDef[], Partial<ResultsOptions>, Expected]>([
    [
      'an outcome primary: its event type is checked, and its successes pay for cost per successful user',
      [primaryConvert, revenue],
      {},
      { outcomeTypes: ['convert', 'revenue'], everyType: false, checked: { type: 'convert' }, successfulUsers: 'primary', labelsOfSeen: false, covariateTypes: null },
    ],
    [
      'a runs primary: the widest declared event type is checked, successes by a query',
      [cost, revenue, convertAgain],
      {},
      { outcomeTypes: ['revenue', 'convert'], everyType: false, checked: { widestOf: ['revenue', 'convert'] }, successfulUsers: 'query', labelsOfSeen: false, covariateTypes: null },
    ],
    [
      'nothing declared: every seen type is read, the widest of them checked',
      [],
      { explore: false },
      { outcomeTypes: [], everyType: true, checked: { widestOfSeen: true }, successfulUsers: 'any-seen', labelsOfSeen: false, covariateTypes: null },
    ],
    [
      'exploring: every seen type is read and labelled',
      [cost],
      { explore: true },
      { outcomeTypes: [], everyType: true, checked: { widestOf: [] }, successfulUsers: 'any-seen', labelsOfSeen: true, covariateTypes: null },
    ],
    [
      'CUPED: one covariate over the declared event types, distinct and sorted',
      [revenue, primaryConvert, convertAgain],
      { cuped: true },
      { outcomeTypes: ['revenue', 'convert'], everyType: false, checked: { type: 'convert' }, successfulUsers: 'primary', labelsOfSeen: false, covariateTypes: ['convert', 'revenue'] },
    ],
    [
      'CUPED without an outcome metric: no covariate to read',
      [cost],
      { cuped: true },
      { outcomeTypes: [], everyType: false, checked: { widestOf: [] }, successfulUsers: 'query', labelsOfSeen: false, covariateTypes: null },
    ],
  ])('%s', (_, metrics, over, expected) => {
    const plan = planReads(experiment(metrics), options(over));
    expect(plan.keys).toEqual(['a', 'b']);
    expect({
      outcomeTypes: plan.outcomeTypes,
      everyType: plan.everyType,
      checked: plan.checked,
      successfulUsers: plan.successfulUsers,
      labelsOfSeen: plan.labelsOfSeen,
      covariateTypes: plan.covariate?.types ?? null,
    }).toEqual(expected);
  });
});

describe("needsUserValues: a metric needs each user's value only for a percentile cap or CUPED", () => {
  it.each<[string, MetricDef, boolean, boolean]>([
    ['an uncapped outcome metric', revenue, false, false],
    ['an outcome metric with a fixed cap', metric({ kind: 'mean', cap: 50 }), false, false],
    ['an outcome metric with a percentile cap', revenueP95, false, true],
    ['any outcome metric under CUPED', revenue, true, true],
    ['a runs metric, even under CUPED', cost, true, false],
    ['a runs metric with a percentile cap (its values are read in SQL)', { ...cost, cap: { percentile: 0.99 } }, false, false],
  ])('%s', (_, m, cuped, expected) => {
    expect(needsUserValues(m, cuped)).toBe(expected);
  });
});
