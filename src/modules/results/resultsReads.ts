import type { Sql } from '../../db/sql.js';
import type { ExperimentView } from '../experiments/experiments.schemas.js';
import type { EvaluatorMetricKind, MetricDef, RunKind } from '../experiments/metrics.js';
import { percentileCap } from '../../stats/index.js';
import type { MetricRead, ResultsReads } from './measurement.js';
import * as sources from './metricSources.repo.js';
import { withAssignments } from './perUser.js';
import { needsUserValues, type ReadPlan } from './readPlan.js';
import * as repo from './results.repo.js';
import * as runsRepo from './runAggregates.repo.js';

/**
 * The reads of one results report, as its plan names them, all inside the caller's read snapshot
 * (`src/db/snapshot.ts`). Reads that depend on nothing else start at once, so that on PostgreSQL
 * they run beside the rest on the snapshot's second connection.
 */

/** Nearest-rank percentile: the value at 1-based rank ⌈p·n/100⌉ (integer arithmetic, so 95·20/100 is exactly 19). */
function nearestRankOffset(percent: number, n: number): number {
  return Math.max(1, Math.ceil((percent * n) / 100)) - 1;
}

/** One value per key, read side by side (a PostgreSQL snapshot may span several connections). */
async function readEach<T>(keys: readonly string[], read: (key: string) => Promise<T>): Promise<Map<string, T>> {
  const values = await Promise.all(keys.map(read));
  return new Map(keys.map((k, i) => [k, values[i]!]));
}

/** A cache of async reads by key: each is asked once, however many metrics need it. */
function memo<T>(read: (key: string) => Promise<T>): (key: string) => Promise<T> {
  const known = new Map<string, Promise<T>>();
  return (key) => {
    let value = known.get(key);
    if (value === undefined) {
      value = read(key);
      known.set(key, value);
    }
    return value;
  };
}

/** A read started now and awaited later: its failure is the report's, never an unhandled rejection meanwhile. */
function started<T>(read: Promise<T>): Promise<T> {
  read.catch(() => undefined);
  return read;
}

/** Runs, tokens and cost per variant, and the p50/p95 latency of its successful runs. */
async function runStats(db: Sql, projectId: string, id: string) {
  const runs = await runsRepo.runAggregates(db, projectId, id);
  const rank = (r: runsRepo.RunAgg, percent: number) => runsRepo.okLatencyAtRank(db, projectId, id, r.variant, nearestRankOffset(percent, r.ok), r.ok);
  const ranks = await Promise.all(runs.map(async (r) => (r.ok === 0 ? { p50: null, p95: null } : { p50: await rank(r, 50), p95: await rank(r, 95) })));
  return { runs, latency: new Map(runs.map((r, i) => [r.variant, ranks[i]!])) };
}

/** Users with any success per variant: the distinct count only needs a query when several event types have successes. */
async function successfulUsersAny(
  db: Sql,
  projectId: string,
  id: string,
  events: ReadonlyMap<string, ReadonlyMap<string, repo.MetricAgg>>,
): Promise<Map<string, number>> {
  const withSuccess = [...events.values()].filter((perVariant) => [...perVariant.values()].some((a) => a.successes > 0));
  if (withSuccess.length <= 1) return new Map([...(withSuccess[0] ?? new Map<string, repo.MetricAgg>())].map(([k, a]) => [k, a.successes]));
  return new Map((await repo.successfulUsers(db, projectId, id)).map((r) => [r.variant, r.users]));
}

/** Every read the plan names, in one snapshot `db`. */
export async function readResults(db: Sql, projectId: string, e: ExperimentView, plan: ReadPlan, granularity: repo.Granularity): Promise<ResultsReads> {
  const id = e.experiment_id;
  const { keys, declared, covariate: cov } = plan;

  // CUPED's covariate, for all declared event types at once: captured at first assignment, or one
  // seek per user whose assignment did not capture this window and these event types. That scan of
  // every assignment in user order also checks the outcomes against assignments, by a merge; without
  // CUPED, one seek per user with outcomes does (cheaper when few of the exposed have any).
  const assignedRead = cov === null ? null : started(sources.assignedRows(db, projectId, id, cov));
  const runsAndLatency = started(runStats(db, projectId, id));
  const unattributed = started(e.started_at === null ? Promise.resolve(0) : repo.unattributedOutcomes(db, projectId, e.prompt_id, e.started_at, e.stopped_at));
  const exposuresByPeriod = await repo.exposuresByPeriod(db, projectId, id, granularity);
  const seen = plan.everyType ? await repo.eventTypes(db, projectId, id) : [];

  const sumsOf = memo((t) => readEach(keys, (k) => repo.metricAggregate(db, projectId, id, t, k)));
  const reach = async (t: string) => [...(await sumsOf(t)).values()].reduce((n, a) => n + a.users_with_event, 0);
  const widest = async (types: readonly string[]) => {
    let best: { type: string; users: number } | undefined;
    for (const t of types) {
      const users = await reach(t);
      if (best === undefined || users > best.users) best = { type: t, users };
    }
    return best?.type;
  };
  const { checked: planned } = plan;
  const checkedType = 'type' in planned ? planned.type : await widest('widestOf' in planned ? planned.widestOf : seen);

  const joinedOf = async (t: string, k: string) =>
    assignedRead === null ? repo.joinedRows(db, projectId, id, t, k) : withAssignments(await repo.userRows(db, projectId, id, t, k), await assignedRead);
  const joinedRows = checkedType === undefined ? null : await readEach(keys, (k) => joinedOf(checkedType, k));
  const assigned = assignedRead === null ? null : await assignedRead;

  // Per-user rows: the checked event type's are the joined ones already read.
  const rowsOf = memo(
    (t): Promise<ReadonlyMap<string, repo.UserColumns>> =>
      t === checkedType ? Promise.resolve(joinedRows!) : readEach(keys, (k) => repo.userRows(db, projectId, id, t, k)),
  );
  const readMetric = async (m: MetricDef): Promise<MetricRead> => {
    if (m.source === 'evaluator') {
      const kind = m.kind as EvaluatorMetricKind;
      return { source: 'runs', cap: null, perVariant: await readEach(keys, (k) => sources.evaluatorMetric(db, projectId, id, k, m.evaluator!, kind)) };
    }
    if (m.source === 'runs') {
      const kind = m.kind as RunKind;
      const cap =
        m.cap === null || typeof m.cap === 'number' ? m.cap : percentileCap(await sources.runsUserValues(db, projectId, id, kind), 0, m.cap.percentile);
      return { source: 'runs', cap, perVariant: await readEach(keys, (k) => sources.runsMetric(db, projectId, id, k, kind, cap)) };
    }
    const t = m.event_type!;
    if (needsUserValues(m, plan.cuped) || t === checkedType) return { source: 'outcomes', userRows: await rowsOf(t) };
    // Not per user, so any cap here is a fixed number, applied in SQL.
    const cap = m.cap as number | null;
    return { source: 'outcomes', sums: cap === null ? await sumsOf(t) : await readEach(keys, (k) => repo.metricAggregate(db, projectId, id, t, k, cap)) };
  };
  const metrics = new Map<MetricDef, MetricRead>();
  for (const m of declared) metrics.set(m, await readMetric(m));

  // Exploring reports every seen type from SQL's sums; cost per success may need the same sums (read once: memo).
  const sums = plan.explore ? await readEach(seen, sumsOf) : new Map<string, ReadonlyMap<string, repo.MetricAgg>>();
  const successfulUsers =
    plan.successfulUsers === 'primary'
      ? null
      : plan.successfulUsers === 'any-seen'
        ? await successfulUsersAny(db, projectId, id, await readEach(seen, sumsOf))
        : new Map((await repo.successfulUsers(db, projectId, id)).map((r) => [r.variant, r.users]));

  const labelTypes = [...new Set([...plan.outcomeTypes, ...(plan.labelsOfSeen ? seen : [])])];
  const labels = (await Promise.all(labelTypes.map((t) => repo.labelCounts(db, projectId, id, t)))).flat();
  const { runs, latency } = await runsAndLatency;

  return {
    exposuresByPeriod,
    seen,
    sums,
    checked: checkedType === undefined ? null : { type: checkedType, rows: joinedRows! },
    assigned,
    metrics,
    successfulUsers,
    runs,
    latency,
    labels,
    unattributedOutcomes: await unattributed,
  };
}
