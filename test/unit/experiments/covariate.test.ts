import { describe, expect, it } from 'vitest';
import { capturedCovariate, covariate, covariateParams } from '../../../src/modules/experiments/covariate.js';
import type { MetricDef } from '../../../src/modules/experiments/metrics.js';

const metric = (m: Partial<MetricDef>): MetricDef =>
  ({ name: 'm', source: 'outcomes', event_type: 'click', kind: 'success_rate', role: 'primary', direction: 'higher', cap: null, ...m }) as MetricDef;

describe("CUPED's covariate key", () => {
  it('is the window and the distinct event types, sorted: declaration order and repeats do not change it', () => {
    const c = covariate(14, ['rating', 'click', 'rating']);
    expect(c).toEqual({ days: 14, types: ['click', 'rating'], key: '[14,["click","rating"]]' });
    expect(covariate(14, ['click', 'rating'])!.key).toBe(c!.key);
  });

  it('changes with the window and with the set of event types', () => {
    const keys = [covariate(14, ['click']), covariate(15, ['click']), covariate(14, ['click', 'rating']), covariate(14, ['rating'])].map((c) => c!.key);
    expect(new Set(keys).size).toBe(4);
  });

  it('cannot be confused by event types that look like JSON', () => {
    expect(covariate(1, ['a","b'])!.key).not.toBe(covariate(1, ['a', 'b'])!.key);
  });

  it('is null without an event type', () => {
    expect(covariate(14, [])).toBeNull();
  });

  it('names the window and each event type for the SQL', () => {
    expect(covariateParams(covariate(7, ['b', 'a'])!)).toEqual({ window: '-7 days', t0: 'a', t1: 'b' });
  });

  it('is captured only with CUPED on and an outcome metric declared', () => {
    const metrics = [metric({ event_type: 'rating', kind: 'mean', role: 'secondary' }), metric({ source: 'runs', event_type: null, kind: 'cost_usd', role: 'guardrail' })];
    expect(capturedCovariate({ cuped: true, cuped_days: 30, metrics })).toEqual(covariate(30, ['rating']));
    expect(capturedCovariate({ cuped: false, cuped_days: 30, metrics })).toBeNull();
    expect(capturedCovariate({ cuped: true, cuped_days: 30, metrics: [metrics[1]!] })).toBeNull();
    expect(capturedCovariate({ cuped: true, cuped_days: 30, metrics: [] })).toBeNull();
  });
});
