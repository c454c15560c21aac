import type { ReadSnapshot } from '../../db/snapshot.js';
import type { Sql } from '../../db/sql.js';
import { isoNow, type Clock } from '../../lib/clock.js';
import { notFound } from '../../lib/errors.js';
import type { BanditReport } from '../experiments/bandit.schemas.js';
import type { ExperimentView } from '../experiments/experiments.schemas.js';
import type { ResultsData, ResultsOptions } from './measured.js';
import { exposureTotals, measure } from './measurement.js';
import { planReads } from './readPlan.js';
import { buildReport } from './report.js';
import type { ExperimentResults } from './results.schemas.js';
import { readResults } from './resultsReads.js';
import { granularityOf } from './timeseries.js';

/** What results need of experiments for a bandit: its own report, read in the same snapshot (null for other types). */
type ReadBandit = (db: Sql, projectId: string, e: ExperimentView) => Promise<BanditReport | null>;

/** Plan the reads, read, measure: the reads are the only step that touches the database. */
async function collect(db: Sql, projectId: string, e: ExperimentView, now: string, options: ResultsOptions, readBandit: ReadBandit): Promise<ResultsData> {
  const plan = planReads(e, options);
  const granularity = granularityOf(e, now);
  const reads = await readResults(db, projectId, e, plan, granularity);
  const exposures = exposureTotals(plan.keys, reads.exposuresByPeriod);
  const { measured, explored, joined, successfulUsers } = measure(plan, reads, exposures);
  return {
    experiment: e,
    generatedAt: now,
    granularity,
    exposuresByPeriod: reads.exposuresByPeriod,
    exposures,
    runs: reads.runs,
    latency: reads.latency,
    measured,
    explored,
    joined,
    labels: reads.labels,
    successfulUsers,
    unattributedOutcomes: reads.unattributedOutcomes,
    bandit: await readBandit(db, projectId, e),
  };
}

/** What results need of experiments: one experiment as it is in the report's snapshot. */
type ReadExperiment = (db: Sql, projectId: string, experimentId: string) => Promise<ExperimentView | undefined>;

/** Reads only: a read snapshot and a clock are all it needs (the results worker brings its own connection). */
export function createResultsService(store: { readSnapshot: ReadSnapshot; clock: Clock }, readExperiment: ReadExperiment, readBandit: ReadBandit) {
  return {
    /**
     * Results of one experiment. All reads run in one read snapshot, so every number comes from the
     * same state of the data even while outcomes keep arriving (from this process, the CLI or
     * another replica).
     */
    async results(projectId: string, experimentId: string, options: Partial<ResultsOptions> = {}): Promise<ExperimentResults> {
      const now = isoNow(store.clock);
      const { data, resolved } = await store.readSnapshot(async (db) => {
        const experiment = await readExperiment(db, projectId, experimentId);
        if (experiment === undefined) throw notFound(`Experiment '${experimentId}' not found`);
        // Undeclared event types are exploratory: opt-in, unless nothing is declared at all.
        const resolved: ResultsOptions = {
          sequential: options.sequential ?? false,
          prior: options.prior ?? 'flat',
          explore: options.explore ?? !experiment.metrics.some((m) => m.role !== 'guardrail'),
          cuped: options.cuped ?? experiment.cuped,
        };
        return { data: await collect(db, projectId, experiment, now, resolved, readBandit), resolved };
      });
      return buildReport(data, resolved);
    },
  };
}
