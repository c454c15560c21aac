import type { Sql } from '../../db/sql.js';
import { listAllocations, periodCells } from './bandit.repo.js';
import type { BanditReport } from './bandit.schemas.js';
import { banditState, type BanditInputs } from './banditState.js';
import type { ExperimentView, VariantDef } from './experiments.schemas.js';
import type { MetricDef } from './metrics.js';

/** What a bandit's state is computed from, as the experiment shows it or as it is stored. */
export interface BanditExperiment {
  id: string;
  seed: string;
  variants: VariantDef[];
  metrics: MetricDef[];
  started_at: string | null;
  created_at: string;
}

/** The primary metric a bandit follows: an outcome metric, success_rate or mean; else null. */
export function banditMetric(metrics: readonly MetricDef[]): MetricDef | null {
  const primary = metrics.find((m) => m.role === 'primary');
  return primary !== undefined && primary.source === 'outcomes' && primary.event_type !== null && (primary.kind === 'success_rate' || primary.kind === 'mean')
    ? primary
    : null;
}

/** Reads what the bandit's state needs: its allocation history and each arm's users and outcomes per period. */
export async function readBanditInputs(db: Sql, projectId: string, e: BanditExperiment): Promise<BanditInputs | null> {
  const metric = banditMetric(e.metrics);
  if (metric === null) return null;
  const [allocations, cells] = await Promise.all([listAllocations(db, projectId, e.id), periodCells(db, projectId, e.id, metric.event_type!)]);
  return { seed: e.seed, variants: e.variants, metric, allocations, cells, startedAt: e.started_at ?? e.created_at };
}

/** The `bandit` section of the results (read inside the results' snapshot). */
async function readBanditReport(db: Sql, projectId: string, e: BanditExperiment): Promise<BanditReport | null> {
  const inputs = await readBanditInputs(db, projectId, e);
  return inputs === null ? null : banditState(inputs).report;
}

/** The results' port: a bandit's own report inside the results' snapshot, null for other types. */
export async function banditReportFor(db: Sql, projectId: string, e: ExperimentView): Promise<BanditReport | null> {
  if (e.type !== 'bandit') return null;
  return readBanditReport(db, projectId, { ...e, id: e.experiment_id });
}
