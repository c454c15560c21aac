import type { Sql } from '../../db/sql.js';
import type { BundleExperiment } from '../sdk/sdk.schemas.js';
import { bucketRanges } from './assignment.js';
import { listRunningExperiments } from './experiments.repo.js';

/**
 * Running experiments as the SDK bundle carries them: what a client needs to assign users exactly as
 * the server does, with the server's own bucket ranges (no client recomputes the floating point).
 * `remote_only` once stored assignments may disagree with the hash (migrations/0012).
 */
export async function experimentsForBundle(db: Sql, projectId: string): Promise<BundleExperiment[]> {
  return (await listRunningExperiments(db, projectId)).map((row) => {
    const ranges = bucketRanges(
      row.variants.map((v) => v.weight),
      row.coverage,
    );
    return {
      experiment_id: row.id,
      prompt_id: row.prompt_id,
      seed: row.seed,
      coverage: row.coverage,
      remote_only: row.assignments_diverge,
      variants: row.variants.map((v, i) => ({ key: v.key, version: v.version, weight: v.weight, range: ranges[i]! })),
    };
  });
}
