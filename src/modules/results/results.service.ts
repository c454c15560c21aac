import type { ReadSnapshot } from '../../db/snapshot.js';
import type { Sql } from '../../db/sql.js';
import { isoNow, type Clock } from '../../lib/clock.js';
import { notFound } from '../../lib/errors.js';
import { readExperiment } from '../experiments/experiments.service.js';
import type { ExperimentView } from '../experiments/experiments.schemas.js';
import { OUTCOME_KINDS, type MetricDef, type OutcomeKind, type RunKind } from '../experiments/metrics.js';
import * as repo from './results.repo.js';
import * as sources from './metricSources.repo.js';
import { covariate } from '../experiments/covariate.js';
import { aggregateJoined, aggregateUsers, cupedSums, withAssignments } from './perUser.js';
import { buildReport } from './report.js';
import type { Measured, ResultsData, ResultsOptions, VariantMeasure } from './measured.js';
import type { ExperimentResults } from './results.schemas.js';
import { percentileCap } from '../../stats/index.js';
import { EMPTY_AGG } from './timeseries.js';

/** Nearest-rank percentile: the value at 1-based rank ⌈p·n/100⌉ (integer arithmetic, so 95·20/100 is exactly 19). */
function nearestRankOffset(percent: number, n: number): number {
  return Math.max(1, Math.ceil((percent * n) / 100)) - 1;
}

/** Whether an event type carries a kind of outcome metric at all (some user has data for it). */
const PRESENT: Record<OutcomeKind, (agg: repo.MetricAgg) => boolean> = {
  success_rate: (agg) => agg.users_with_success_data > 0,
  mean: (agg) => agg.users_with_numeric > 0,
};

/** An outcome metric over `n` exposed users (users without data count as 0). */
function outcomeMeasure(kind: OutcomeKind, n: number, agg: repo.MetricAgg): VariantMeasure {
  return kind === 'success_rate'
    ? { n, sum: agg.successes, sumSquares: agg.successes, usersWithData: agg.users_with_event }
    : { n, sum: agg.sum, sumSquares: agg.sum_squares, usersWithData: agg.users_with_event };
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
  const runs = await repo.runAggregates(db, projectId, id);
  const rank = (r: repo.RunAgg, percent: number) => repo.okLatencyAtRank(db, projectId, id, r.variant, nearestRankOffset(percent, r.ok), r.ok);
  const ranks = await Promise.all(runs.map(async (r) => (r.ok === 0 ? { p50: null, p95: null } : { p50: await rank(r, 50), p95: await rank(r, 95) })));
  return { runs, latency: new Map(runs.map((r, i) => [r.variant, ranks[i]!])) };
}

async function collect(db: Sql, projectId: string, e: ExperimentView, now: string, options: ResultsOptions): Promise<ResultsData> {
  const id = e.experiment_id;
  const keys = e.variants.map((v) => v.key);
  const declared = e.metrics;
  const outcomeTypes = [...new Set(declared.flatMap((m) => (m.event_type === null ? [] : [m.event_type])))];
  const primary = declared.find((m) => m.role === 'primary');
  const everyType = options.explore || declared.length === 0;

  // CUPED's covariate, for all declared event types at once: captured at first assignment, or one
  // seek per user whose assignment did not capture this window and these event types. That scan of
  // every assignment in user order also checks the outcomes against assignments, by a merge; without
  // CUPED, one seek per user with outcomes does (cheaper when few of the exposed have any).
  const cov = options.cuped ? covariate(e.cuped_days, outcomeTypes) : null;
  // It and the other reads that depend on nothing else start at once, to run beside the rest (on PostgreSQL).
  const assignedRead = cov === null ? null : started(sources.assignedRows(db, projectId, id, cov));
  const runsAndLatency = started(runStats(db, projectId, id));
  const unattributed = started(e.started_at === null ? Promise.resolve(0) : repo.unattributedOutcomes(db, projectId, e.prompt_id, e.started_at, e.stopped_at));
  const exposuresByDay = await repo.exposuresByDay(db, projectId, id);
  const exposures = new Map<string, number>();
  for (const row of exposuresByDay) exposures.set(row.variant, (exposures.get(row.variant) ?? 0) + row.n);
  const usersOf = (k: string) => exposures.get(k) ?? 0;
  const allUsers = keys.reduce((n, k) => n + usersOf(k), 0);
  const seen = everyType ? await repo.eventTypes(db, projectId, id) : [];

  const plainOf = memo((t) => readEach(keys, (k) => repo.metricAggregate(db, projectId, id, t, k)));
  const reach = async (t: string) => [...(await plainOf(t)).values()].reduce((n, a) => n + a.users_with_event, 0);
  const widest = async (types: readonly string[]) => {
    let best: { type: string; users: number } | undefined;
    for (const t of types) {
      const users = await reach(t);
      if (best === undefined || users > best.users) best = { type: t, users };
    }
    return best?.type;
  };

  // Joining outcomes to assignments costs one seek per user, so one event type pays for it (the
  // multiple-variant check and the daily chart): the primary metric's, else the declared event type
  // most users have, else (nothing declared) the widest of all.
  const primaryOutcome = primary?.source === 'outcomes' ? primary : undefined;
  const checkedType = primaryOutcome?.event_type ?? (await widest(declared.length === 0 ? seen : outcomeTypes));

  const joinedOf = async (t: string, k: string) =>
    assignedRead === null ? repo.joinedRows(db, projectId, id, t, k) : withAssignments(await repo.userRows(db, projectId, id, t, k), await assignedRead);
  const joinedRows = checkedType == null ? null : await readEach(keys, (k) => joinedOf(checkedType, k));
  const assigned = assignedRead === null ? null : await assignedRead;

  // Per-user rows where the statistics need each user's value: a percentile cap, CUPED's Σxy.
  const perUser = (m: MetricDef) => m.source === 'outcomes' && (options.cuped || (m.cap !== null && typeof m.cap === 'object'));
  const rowsOf = memo(
    (t): Promise<ReadonlyMap<string, repo.UserColumns>> =>
      t === checkedType ? Promise.resolve(joinedRows!) : readEach(keys, (k) => repo.userRows(db, projectId, id, t, k)),
  );

  const capOf = async (m: MetricDef): Promise<number | null> => {
    if (m.cap === null) return null;
    if (typeof m.cap === 'number') return m.cap;
    if (m.source === 'runs') return percentileCap(await sources.runsUserValues(db, projectId, id, m.kind as RunKind), 0, m.cap.percentile);
    // A loop, not flatMap: one small array per user was a tenth of the report's time in allocation and GC.
    const totals: number[] = [];
    for (const variantRows of (await rowsOf(m.event_type!)).values()) for (const total of variantRows.total) if (total !== null) totals.push(total);
    return percentileCap(totals, Math.max(0, allUsers - totals.length), m.cap.percentile);
  };
  const caps = new Map<MetricDef, number | null>();
  for (const m of declared) caps.set(m, await capOf(m));
  const primaryCap = primaryOutcome === undefined ? null : caps.get(primaryOutcome)!;
  const joined = new Map<string, Map<string, repo.JoinedAgg>>();
  if (checkedType != null) {
    const cap = checkedType === primaryOutcome?.event_type && primaryOutcome.kind === 'mean' ? primaryCap : null;
    joined.set(checkedType, new Map(keys.map((k) => [k, aggregateJoined(joinedRows!.get(k)!, k, cap)])));
  }

  const measure = async (m: MetricDef): Promise<Measured> => {
    const cap = caps.get(m)!;
    if (m.source === 'runs') {
      const sums = await readEach(keys, async (k) => {
        const s = await sources.runsMetric(db, projectId, id, k, m.kind as RunKind, cap);
        return { n: s.users, sum: s.sum, sumSquares: s.sum_squares, usersWithData: s.users };
      });
      return { def: m, perVariant: sums, cap, cuped: null };
    }
    const kind = m.kind as OutcomeKind;
    const t = m.event_type!;
    const byUser = perUser(m) || t === checkedType ? await rowsOf(t) : null;
    const plainAggs =
      byUser !== null ? null : cap === null ? await plainOf(t) : await readEach(keys, (k) => repo.metricAggregate(db, projectId, id, t, k, cap));
    const aggOf = (k: string) => plainAggs?.get(k) ?? aggregateUsers(byUser!.get(k)!, kind === 'mean' ? cap : null);
    const measures = new Map(keys.map((k) => [k, outcomeMeasure(kind, usersOf(k), aggOf(k))]));
    const cuped =
      options.cuped && byUser !== null ? new Map(keys.map((k) => [k, cupedSums(kind, assigned!, cov!.types.indexOf(t), k, byUser.get(k)!, cap)])) : null;
    return { def: m, perVariant: measures, cap, cuped };
  };
  const measured: Measured[] = [];
  for (const m of declared) measured.push(await measure(m));

  const explored: Measured[] = [];
  if (options.explore) {
    const isDeclared = (t: string, kind: OutcomeKind) => declared.some((m) => m.event_type === t && m.kind === kind);
    for (const t of seen) {
      const aggs = await plainOf(t);
      for (const kind of OUTCOME_KINDS) {
        if (isDeclared(t, kind) || ![...aggs.values()].some(PRESENT[kind])) continue;
        const def = { name: `${t}:${kind}`, source: 'outcomes', event_type: t, kind, role: 'exploratory', direction: 'higher', cap: null } as const;
        explored.push({ def, perVariant: new Map(keys.map((k) => [k, outcomeMeasure(kind, usersOf(k), aggs.get(k) ?? EMPTY_AGG)])), cap: null, cuped: null });
      }
    }
  }

  // Cost per successful user: users with a success on the primary metric's event type, else on any.
  const successful =
    primaryOutcome !== undefined
      ? new Map(keys.map((k) => [k, (joined.get(primaryOutcome.event_type!)?.get(k)?.totals ?? EMPTY_AGG).successes]))
      : everyType
        ? await successfulUsersAny(db, projectId, id, await readEach(seen, plainOf))
        : new Map((await repo.successfulUsers(db, projectId, id)).map((r) => [r.variant, r.users]));

  // Labels are shown on metric views only: the declared event types, and every one when exploring.
  const labelTypes = [...new Set([...outcomeTypes, ...(options.explore ? seen : [])])];
  const labels = (await Promise.all(labelTypes.map((t) => repo.labelCounts(db, projectId, id, t)))).flat();
  const { runs, latency } = await runsAndLatency;

  return {
    experiment: e,
    generatedAt: now,
    exposuresByDay,
    runs,
    latency,
    measured,
    explored,
    joined,
    labels,
    successfulUsers: successful,
    unattributedOutcomes: await unattributed,
  };
}

/** Reads only: a read snapshot and a clock are all it needs (the results worker brings its own connection). */
export function createResultsService(store: { readSnapshot: ReadSnapshot; clock: Clock }) {
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
        return { data: await collect(db, projectId, experiment, now, resolved), resolved };
      });
      return buildReport(data, resolved);
    },
  };
}

export type ResultsService = ReturnType<typeof createResultsService>;
