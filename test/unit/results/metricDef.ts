import type { MetricDef } from '../../../src/modules/experiments/metrics.js';

/** A declared metric for the results' unit tables: a secondary success rate of `convert`, unless overridden. */
export const metric = (over: Partial<MetricDef>): MetricDef => ({
  name: 'm',
  source: 'outcomes',
  event_type: 'convert',
  kind: 'success_rate',
  role: 'secondary',
  direction: 'higher',
  cap: null,
  ...over,
});
