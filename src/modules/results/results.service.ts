import type { Db } from '../../db/open.js';
import { isoNow, type Clock } from '../../lib/clock.js';
import { notFound } from '../../lib/errors.js';
import { readExperiment } from '../experiments/experiments.service.js';
import type { ExperimentView } from '../experiments/experiments.schemas.js';
import * as repo from './results.repo.js';
import { buildReport, type ResultsOptions } from './report.js';
import type { ExperimentResults } from './results.schemas.js';

/** Nearest-rank percentile: the value at 1-based rank ⌈p·n/100⌉ (integer arithmetic, so 95·20/100 is exactly 19). */
function nearestRankOffset(percent: number, n: number): number {
  return Math.max(1, Math.ceil((percent * n) / 100)) - 1;
}

const totalsOf = (perVariant: ReadonlyMap<string, repo.JoinedAgg>) => new Map([...perVariant].map(([k, j]) => [k, j.totals]));

/** Users with any success per variant: the distinct count only needs a query when several event types have successes. */
function successfulUsersAny(db: Db, projectId: string, id: string, events: ReadonlyMap<string, ReadonlyMap<string, repo.MetricAgg>>): Map<string, number> {
  const withSuccess = [...events.values()].filter((perVariant) => [...perVariant.values()].some((a) => a.successes > 0));
  if (withSuccess.length <= 1) return new Map([...(withSuccess[0] ?? new Map<string, repo.MetricAgg>())].map(([k, a]) => [k, a.successes]));
  return new Map(repo.successfulUsers(db, projectId, id).map((r) => [r.variant, r.users]));
}

function collect(db: Db, projectId: string, e: ExperimentView, now: string) {
  const id = e.experiment_id;
  const keys = e.variants.map((v) => v.key);
  const seen = repo.eventTypes(db, projectId, id);
  const primaryType = e.primary_metric?.event_type;
  const types = primaryType === undefined || seen.includes(primaryType) ? seen : [...seen, primaryType];
  const plain = (t: string) => new Map(keys.map((k) => [k, repo.metricAggregate(db, projectId, id, t, k)]));

  // Joining outcomes to assignments costs one seek per user, so one event type pays for it: the
  // primary metric's (whose totals then come from the join), or without one the event type most
  // users have, checked for users seen in more than one variant only.
  const join = (t: string) => new Map(keys.map((k) => [k, repo.joinedToAssignments(db, projectId, id, t, k)]));
  const joined = new Map<string, Map<string, repo.JoinedAgg>>();
  let events: Map<string, Map<string, repo.MetricAgg>>;
  if (primaryType !== undefined) {
    joined.set(primaryType, join(primaryType));
    events = new Map(types.map((t) => [t, t === primaryType ? totalsOf(joined.get(t)!) : plain(t)]));
  } else {
    events = new Map(types.map((t) => [t, plain(t)]));
    const reach = (t: string) => [...events.get(t)!.values()].reduce((n, a) => n + a.users_with_event, 0);
    const widest = types.reduce<string | undefined>((best, t) => (best === undefined || reach(t) > reach(best) ? t : best), undefined);
    if (widest !== undefined) joined.set(widest, join(widest));
  }

  const runs = repo.runAggregates(db, projectId, id);
  const latency = new Map(
    runs.map((r) => [
      r.variant,
      r.ok === 0
        ? { p50: null, p95: null }
        : {
            p50: repo.okLatencyAtRank(db, projectId, id, r.variant, nearestRankOffset(50, r.ok)),
            p95: repo.okLatencyAtRank(db, projectId, id, r.variant, nearestRankOffset(95, r.ok)),
          },
    ]),
  );

  return {
    experiment: e,
    generatedAt: now,
    exposuresByDay: repo.exposuresByDay(db, projectId, id),
    runs,
    latency,
    events,
    joined,
    labels: repo.labelCounts(db, projectId, id),
    successfulUsersAny: primaryType === undefined ? successfulUsersAny(db, projectId, id, events) : null,
    // Outcomes of the prompt nobody could attribute while the experiment lived (paused spells included);
    // until it stops, everything up to this very instant counts.
    unattributedOutcomes: e.started_at === null ? 0 : repo.unattributedOutcomes(db, projectId, e.prompt_id, e.started_at, e.stopped_at),
  };
}

/** Reads only: a connection and a clock are all it needs (the worker thread opens its own read-only one). */
export function createResultsService(store: { db: Db; clock: Clock }) {
  return {
    /**
     * Results of one experiment. All reads run in one read transaction, so every number comes from
     * the same snapshot even while outcomes keep arriving (from this process or the CLI's).
     */
    results(projectId: string, experimentId: string, options: Partial<ResultsOptions> = {}): ExperimentResults {
      const resolved: ResultsOptions = { sequential: options.sequential ?? false, prior: options.prior ?? 'flat' };
      const db = store.db;
      const data = db
        .transaction(() => {
          const experiment = readExperiment(db, projectId, experimentId);
          if (experiment === undefined) throw notFound(`Experiment '${experimentId}' not found`);
          return collect(db, projectId, experiment, isoNow(store.clock));
        })
        .deferred();
      return buildReport(data, resolved);
    },
  };
}

export type ResultsService = ReturnType<typeof createResultsService>;
