import type { ExperimentRecord } from './experiments.repo.js';
import { legacyPrimary } from './metrics.js';
import type { ExperimentView, StoredStatus, VariantDef } from './experiments.schemas.js';

export function toView(record: ExperimentRecord): ExperimentView {
  // assignments_diverge is for the SDK bundle (remote_only), not part of the experiment as shown.
  const { id, assignments_diverge: _, ended_as, end_reason, rollout, ...rest } = record;
  return {
    experiment_id: id,
    ...rest,
    status: ended_as ?? record.status,
    reason: end_reason,
    rollout: rollout === null ? null : { ...rollout, current_percent: rollout.steps[rollout.step]?.percent ?? 0 },
    primary_metric: legacyPrimary(record.metrics),
  };
}

/** Weights are stored normalised to sum to 1, so every GrowthBook SDK reproduces the split. */
export function normaliseWeights(variants: ReadonlyArray<{ key: string; version: number; weight?: number }>): VariantDef[] {
  const total = variants.reduce((sum, v) => sum + (v.weight ?? 1), 0);
  return variants.map((v) => ({ key: v.key, version: v.version, weight: (v.weight ?? 1) / total }));
}

/** Which transitions are allowed (docs/management-api.md, "Experiments"): draft → running ⇄ paused → stopped; stop is final. */
export const TRANSITIONS: Record<'start' | 'pause' | 'stop', { from: StoredStatus[]; to: StoredStatus }> = {
  start: { from: ['draft', 'paused', 'running'], to: 'running' },
  pause: { from: ['running', 'paused'], to: 'paused' },
  stop: { from: ['draft', 'running', 'paused'], to: 'stopped' },
};

/**
 * A record after a transition: `started_at` keeps the first start (a resume is no new start), a stop
 * records its time and winner, and a shipped version stays once set.
 */
export function transitioned(
  row: ExperimentRecord,
  action: keyof typeof TRANSITIONS,
  winner: string | null,
  shipped: number | null,
  now: string,
): ExperimentRecord {
  return {
    ...row,
    status: TRANSITIONS[action].to,
    updated_at: now,
    started_at: action === 'start' ? (row.started_at ?? now) : row.started_at,
    stopped_at: action === 'stop' ? now : row.stopped_at,
    winner: action === 'stop' ? winner : row.winner,
    shipped_version: shipped ?? row.shipped_version,
    // A rollout's first step begins at its first start; a start (first or after a pause) restarts the wait for evidence that pauses count.
    rollout:
      row.rollout !== null && action === 'start' && row.status !== 'running'
        ? { ...row.rollout, step_started_at: row.rollout.step_started_at ?? now, evidence_since: now }
        : row.rollout,
  };
}
