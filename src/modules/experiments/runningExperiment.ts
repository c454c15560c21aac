import type { Sql } from '../../db/sql.js';
import { findRunningExperiment } from './experiments.repo.js';

/** The experiment running on a prompt, as others need to say what it does to the prompt's traffic. */
export interface RunningExperimentFacts {
  experiment_id: string;
  status: 'running';
  coverage: number;
  variants: Array<{ key: string; version: number; weight: number }>;
}

/** The experiment running on the prompt now, or null. */
export async function runningExperimentOn(db: Sql, projectId: string, promptId: string): Promise<RunningExperimentFacts | null> {
  const row = await findRunningExperiment(db, projectId, promptId);
  if (row === undefined) return null;
  return {
    experiment_id: row.id,
    status: 'running',
    coverage: row.coverage,
    variants: row.variants.map((v) => ({ key: v.key, version: v.version, weight: v.weight })),
  };
}
