import type { ExperimentRecord } from './experiments.repo.js';
import { legacyPrimary } from './metrics.js';
import type { ExperimentStatus, ExperimentView, VariantDef } from './experiments.schemas.js';

export function toView(record: ExperimentRecord): ExperimentView {
  const { id, ...rest } = record;
  return { experiment_id: id, ...rest, primary_metric: legacyPrimary(record.metrics) };
}

/** Weights are stored normalised to sum to 1, so every GrowthBook SDK reproduces the split. */
export function normaliseWeights(variants: ReadonlyArray<{ key: string; version: number; weight?: number }>): VariantDef[] {
  const total = variants.reduce((sum, v) => sum + (v.weight ?? 1), 0);
  return variants.map((v) => ({ key: v.key, version: v.version, weight: (v.weight ?? 1) / total }));
}

/** Which transitions are allowed (docs/management-api.md, "Experiments"): draft → running ⇄ paused → stopped; stop is final. */
export const TRANSITIONS: Record<'start' | 'pause' | 'stop', { from: ExperimentStatus[]; to: ExperimentStatus }> = {
  start: { from: ['draft', 'paused', 'running'], to: 'running' },
  pause: { from: ['running', 'paused'], to: 'paused' },
  stop: { from: ['draft', 'running', 'paused'], to: 'stopped' },
};
