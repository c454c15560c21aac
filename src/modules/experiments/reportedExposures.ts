import type { Sql } from '../../db/sql.js';
import { invalid } from '../../lib/errors.js';
import { capturedCovariate } from './covariate.js';
import { findAssignment, findExperiment, insertAssignment, recordExposureCalls, type ExperimentRecord } from './experiments.repo.js';

import type { ExposureReport, ReportedExposure } from '../sdk/sdk.schemas.js';

function timeOf(value: string, path: (string | number)[]): number {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw invalid('body', path, `'${value}' is not an ISO 8601 time`);
  return ms;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Stores a batch of users a client SDK assigned locally (`POST /sdk/exposures`) as `/get_prompt` would have stored each call, inside one write: a user's first
 * assignment (with CUPED's capture, as of the user's first exposure), then the calls. Times are the
 * client's, kept within [the experiment's start, now] so a wrong clock cannot move a user before the
 * experiment or into the future. An item is stored whatever the experiment's status is now (the user
 * saw the variant while the client's bundle said it ran), except for an experiment that never started.
 */
export async function recordReportedExposures(db: Sql, projectId: string, items: readonly ReportedExposure[], nowMs: number): Promise<ExposureReport> {
  const times = items.map(
    (item, i) => [timeOf(item.first_seen, ['exposures', i, 'first_seen']), timeOf(item.last_seen, ['exposures', i, 'last_seen'])] as const,
  );
  const experiments = new Map<string, ExperimentRecord | undefined>();
  const report: ExposureReport = { accepted: 0, conflicts: [], skipped: [] };
  for (const [index, item] of items.entries()) {
    if (!experiments.has(item.experiment_id)) experiments.set(item.experiment_id, await findExperiment(db, projectId, item.experiment_id));
    const experiment = experiments.get(item.experiment_id);
    if (experiment === undefined) {
      report.skipped.push({ index, reason: `Experiment '${item.experiment_id}' not found` });
      continue;
    }
    if (experiment.started_at === null) {
      report.skipped.push({ index, reason: `Experiment '${item.experiment_id}' has never run` });
      continue;
    }
    if (!experiment.variants.some((v) => v.key === item.variant)) {
      report.skipped.push({ index, reason: `'${item.variant}' is not a variant of experiment '${item.experiment_id}'` });
      continue;
    }
    const [first, last] = times[index]!;
    const firstSeen = Math.min(Math.max(first, Date.parse(experiment.started_at)), nowMs);
    const lastSeen = Math.min(Math.max(last, firstSeen), nowMs);
    const stored = await findAssignment(db, projectId, experiment.id, item.external_user_id);
    let calls = item.calls;
    // ON CONFLICT keeps a variant another writer stored first (a replica answering /get_prompt).
    const variant =
      stored ?? (await insertAssignment(db, projectId, experiment.id, item.external_user_id, item.variant, iso(firstSeen), capturedCovariate(experiment)));
    if (stored === undefined && variant === item.variant) calls -= 1; // the insert counted the first call
    if (variant !== item.variant) report.conflicts.push({ index, stored_variant: variant });
    if (calls > 0) await recordExposureCalls(db, projectId, experiment.id, item.external_user_id, calls, iso(lastSeen));
    report.accepted++;
  }
  return report;
}
