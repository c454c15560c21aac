import type { ExperimentRow } from './experiments.repo.js';
import type { ExperimentStatus, PrimaryMetricInput } from './experiments.schemas.js';

export interface VariantDef {
  key: string;
  version: number;
  weight: number;
}

export interface ExperimentView {
  experiment_id: string;
  prompt_id: string;
  name: string | null;
  hypothesis: string | null;
  status: ExperimentStatus;
  variants: VariantDef[];
  control: string;
  coverage: number;
  seed: string;
  primary_metric: PrimaryMetricInput | null;
  winner: string | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  stopped_at: string | null;
}

export function toView(row: ExperimentRow): ExperimentView {
  const { id, variants, primary_metric, ...rest } = row;
  return {
    experiment_id: id,
    prompt_id: rest.prompt_id,
    name: rest.name,
    hypothesis: rest.hypothesis,
    status: rest.status,
    variants: JSON.parse(variants) as VariantDef[],
    control: rest.control,
    coverage: rest.coverage,
    seed: rest.seed,
    primary_metric: primary_metric === null ? null : (JSON.parse(primary_metric) as PrimaryMetricInput),
    winner: rest.winner,
    created_at: rest.created_at,
    updated_at: rest.updated_at,
    started_at: rest.started_at,
    stopped_at: rest.stopped_at,
  };
}

/** Weights are stored normalised to sum to 1, so every GrowthBook SDK reproduces the split. */
export function normaliseWeights(variants: ReadonlyArray<{ key: string; version: number; weight?: number }>): VariantDef[] {
  const total = variants.reduce((sum, v) => sum + (v.weight ?? 1), 0);
  return variants.map((v) => ({ key: v.key, version: v.version, weight: (v.weight ?? 1) / total }));
}

/** Which transitions are allowed (management.md): draft → running ⇄ paused → stopped; stop is final. */
export const TRANSITIONS: Record<'start' | 'pause' | 'stop', { from: ExperimentStatus[]; to: ExperimentStatus }> = {
  start: { from: ['draft', 'paused', 'running'], to: 'running' },
  pause: { from: ['running', 'paused'], to: 'paused' },
  stop: { from: ['draft', 'running', 'paused'], to: 'stopped' },
};
