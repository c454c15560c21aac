import type { Sql } from '../../db/sql.js';
import { listNewestFirst, mapPage, type ListPage, type ListRequest, type PageBounds } from '../../db/pagination.js';
import type { EndedAs, ExperimentStatus, ExperimentType, RolloutState, StoredStatus, VariantDef } from './experiments.schemas.js';
import type { BanditSettings } from './bandit.schemas.js';
import type { MetricDef } from './metrics.js';
import { covariateParams, covariateSql, type Covariate } from './covariate.js';

/** A stored experiment, its JSON columns decoded (this file is the only one that knows they are JSON). */
export interface ExperimentRecord {
  id: string;
  prompt_id: string;
  name: string | null;
  hypothesis: string | null;
  status: StoredStatus;
  /** Weights normalised to sum to 1. */
  variants: VariantDef[];
  control: string;
  coverage: number;
  seed: string;
  metrics: MetricDef[];
  target_mde: number;
  cuped: boolean;
  cuped_days: number;
  /** Users already assigned may now hash to another variant than their stored one (migrations/0012). */
  assignments_diverge: boolean;
  winner: string | null;
  shipped_version: number | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  stopped_at: string | null;
  /** ab (a person decides), rollout or bandit (the scheduler checks them: migrations/0022). */
  type: ExperimentType;
  /** A rollout's plan and progress; null for other types. */
  rollout: RolloutState | null;
  /** How a checked experiment ended on its own (status is then 'stopped'), and why. */
  ended_as: EndedAs | null;
  end_reason: string | null;
  /** A bandit's settings; null for other types (migrations/0023). */
  bandit: BanditSettings | null;
}

interface ExperimentRow extends Omit<ExperimentRecord, 'variants' | 'metrics' | 'cuped' | 'assignments_diverge' | 'rollout' | 'bandit'> {
  variants: string;
  metrics: string;
  cuped: number;
  assignments_diverge: number;
  rollout: string | null;
  bandit: string | null;
}

function encode(record: ExperimentRecord): ExperimentRow {
  return {
    ...record,
    variants: JSON.stringify(record.variants),
    metrics: JSON.stringify(record.metrics),
    cuped: record.cuped ? 1 : 0,
    assignments_diverge: record.assignments_diverge ? 1 : 0,
    rollout: record.rollout === null ? null : JSON.stringify(record.rollout),
    bandit: record.bandit === null ? null : JSON.stringify(record.bandit),
  };
}

function decode(row: ExperimentRow): ExperimentRecord {
  return {
    ...row,
    variants: JSON.parse(row.variants) as VariantDef[],
    metrics: JSON.parse(row.metrics) as MetricDef[],
    cuped: row.cuped === 1,
    assignments_diverge: row.assignments_diverge === 1,
    rollout: row.rollout === null ? null : (JSON.parse(row.rollout) as RolloutState),
    bandit: row.bandit === null ? null : (JSON.parse(row.bandit) as BanditSettings),
  };
}

const decodeIf = (row: unknown) => (row === undefined ? undefined : decode(row as ExperimentRow));

const COLUMNS = [
  'id',
  'prompt_id',
  'name',
  'hypothesis',
  'status',
  'variants',
  'control',
  'coverage',
  'seed',
  'metrics',
  'target_mde',
  'cuped',
  'cuped_days',
  'assignments_diverge',
  'winner',
  'shipped_version',
  'created_at',
  'updated_at',
  'started_at',
  'stopped_at',
  'type',
  'rollout',
  'ended_as',
  'end_reason',
  'bandit',
];
const SELECT = COLUMNS.join(', ');

export async function insertExperiment(db: Sql, projectId: string, record: ExperimentRecord): Promise<void> {
  await db.run(`INSERT INTO experiments (project_id, ${SELECT}) VALUES (@project_id, ${COLUMNS.map((c) => `@${c}`).join(', ')})`, {
    ...encode(record),
    project_id: projectId,
  });
}

export async function updateExperiment(db: Sql, projectId: string, record: ExperimentRecord): Promise<void> {
  const sets = COLUMNS.filter((c) => c !== 'id')
    .map((c) => `${c} = @${c}`)
    .join(', ');
  await db.run(`UPDATE experiments SET ${sets} WHERE project_id = @project_id AND id = @id`, { ...encode(record), project_id: projectId });
}

export async function findExperiment(db: Sql, projectId: string, id: string): Promise<ExperimentRecord | undefined> {
  return decodeIf(await db.get(`SELECT ${SELECT} FROM experiments WHERE project_id = ? AND id = ?`, [projectId, id]));
}

export interface ExperimentListQuery extends PageBounds {
  prompt_id?: string | undefined;
  status?: ExperimentStatus | undefined;
}

/** The stored status a shown one is filed under: a rolled-back or shipped experiment is stopped, with ended_as saying how. */
function statusFilters(status: ExperimentStatus | undefined) {
  if (status === 'rolled_back' || status === 'shipped')
    return [
      { column: 'status', value: 'stopped' },
      { column: 'ended_as', value: status },
    ];
  return [{ column: 'status', value: status }];
}

export async function listExperiments(db: Sql, projectId: string, q: ExperimentListQuery): Promise<ListPage<ExperimentRecord>> {
  return mapPage(await listNewestFirst<ExperimentRow>(db, experimentListRequest(projectId, q)), decode);
}

export function experimentListRequest(projectId: string, q: ExperimentListQuery): ListRequest {
  return {
    table: 'experiments',
    index: 'experiments_created',
    columns: SELECT,
    projectId,
    cursor: q.cursor,
    limit: q.limit,
    filters: [{ column: 'prompt_id', value: q.prompt_id, index: 'experiments_prompt_list' }, ...statusFilters(q.status)],
  };
}

/** Every running experiment the scheduler checks (its type is not ab), across projects. */
export async function runningCheckedExperiments(db: Sql): Promise<Array<{ project_id: string; id: string; type: ExperimentType }>> {
  return db.all("SELECT project_id, id, type FROM experiments WHERE status = 'running' AND type <> 'ab' ORDER BY project_id, id");
}

export async function runningExperimentIds(db: Sql, projectId: string): Promise<string[]> {
  return db.column<string>("SELECT id FROM experiments WHERE project_id = ? AND status = 'running' ORDER BY id", [projectId]);
}

export async function findRunningExperiment(db: Sql, projectId: string, promptId: string): Promise<ExperimentRecord | undefined> {
  return decodeIf(await db.get(`SELECT ${SELECT} FROM experiments WHERE project_id = ? AND prompt_id = ? AND status = 'running'`, [projectId, promptId]));
}

/** Every running experiment of a project (at most one per prompt), for the SDK bundle. */
export async function listRunningExperiments(db: Sql, projectId: string): Promise<ExperimentRecord[]> {
  return (await db.all(`SELECT ${SELECT} FROM experiments WHERE project_id = ? AND status = 'running' ORDER BY prompt_id`, [projectId])).map((row) =>
    decode(row as ExperimentRow),
  );
}

export async function hasAssignments(db: Sql, projectId: string, experimentId: string): Promise<boolean> {
  return (await db.get('SELECT 1 FROM assignments WHERE project_id = ? AND experiment_id = ? LIMIT 1', [projectId, experimentId])) !== undefined;
}

export async function findAssignment(db: Sql, projectId: string, experimentId: string, userId: string): Promise<string | undefined> {
  return db.value<string>('SELECT variant FROM assignments WHERE project_id = ? AND experiment_id = ? AND external_user_id = ?', [
    projectId,
    experimentId,
    userId,
  ]);
}

export async function assignedCountsByVariant(db: Sql, projectId: string, experimentId: string): Promise<Map<string, number>> {
  const rows = await db.all<{ variant: string; n: number }>(
    'SELECT variant, count(*) AS n FROM assignments WHERE project_id = ? AND experiment_id = ? GROUP BY variant',
    [projectId, experimentId],
  );
  return new Map(rows.map((r) => [r.variant, r.n]));
}

/**
 * First write wins: a concurrent second assignment of the same user keeps the stored variant. With
 * a covariate (CUPED on, outcome metrics declared) the row also captures the user's pre-exposure
 * outcomes: `at` is the time of this write, so every outcome before it is already stored (outcomes
 * are timestamped when written, on the same writer) and the capture is final (covariate.ts). One
 * index seek on outcomes_person, in the write's own transaction.
 */
export async function insertAssignment(
  db: Sql,
  projectId: string,
  experimentId: string,
  userId: string,
  variant: string,
  at: string,
  capture: Covariate | null = null,
): Promise<string> {
  if (capture === null) {
    await db.run(
      `INSERT INTO assignments (project_id, experiment_id, external_user_id, variant, first_seen, last_seen, calls)
      VALUES (?, ?, ?, ?, ?, ?, 1) ON CONFLICT DO NOTHING`,
      [projectId, experimentId, userId, variant, at, at],
    );
  } else {
    await db.run(
      `INSERT INTO assignments (project_id, experiment_id, external_user_id, variant, first_seen, last_seen, calls, pre_key, pre)
      VALUES (@project, @experiment, @user, @variant, @at, @at, 1, @key, ${covariateSql(db.dialect, capture, '@project', '@user', '@at')})
      ON CONFLICT DO NOTHING`,
      { project: projectId, experiment: experimentId, user: userId, variant, at, key: capture.key, ...covariateParams(capture) },
    );
  }
  return (await findAssignment(db, projectId, experimentId, userId))!;
}

export async function recordExposureCalls(db: Sql, projectId: string, experimentId: string, userId: string, calls: number, at: string): Promise<void> {
  // CASE rather than max(a, b): SQLite's two-argument max is GREATEST elsewhere.
  await db.run(
    `UPDATE assignments SET calls = calls + @calls, last_seen = CASE WHEN last_seen > @at THEN last_seen ELSE @at END
    WHERE project_id = @project AND experiment_id = @experiment AND external_user_id = @user`,
    { calls, at, project: projectId, experiment: experimentId, user: userId },
  );
}

/** One call of an assigned user failed to render their variant's version (migrations/0013): an error of that variant. */
export async function recordRenderFailure(db: Sql, projectId: string, experimentId: string, userId: string): Promise<void> {
  await db.run(
    `UPDATE assignments SET render_failures = render_failures + 1
    WHERE project_id = @project AND experiment_id = @experiment AND external_user_id = @user`,
    { project: projectId, experiment: experimentId, user: userId },
  );
}

/**
 * Attribution of an outcome without a run (docs/design-decisions.md, "Assignment and attribution"): the user's assignment in the experiment
 * running on the prompt now, else the latest experiment on that prompt that assigned the user.
 */
export async function findAttributableAssignment(
  db: Sql,
  projectId: string,
  promptId: string,
  userId: string,
): Promise<{ experiment_id: string; variant: string } | undefined> {
  return db.get<{ experiment_id: string; variant: string }>(
    `SELECT a.experiment_id, a.variant FROM assignments a
      JOIN experiments e ON e.project_id = a.project_id AND e.id = a.experiment_id
      WHERE a.project_id = ? AND a.external_user_id = ? AND e.prompt_id = ?
      ORDER BY (e.status = 'running') DESC, a.first_seen DESC LIMIT 1`,
    [projectId, userId, promptId],
  );
}

/**
 * Exposures per variant of every running experiment, across projects: the operator's gauges
 * (running experiments, sample-ratio mismatches) are about the whole service, not one project.
 */
export async function runningExposures(
  db: Sql,
): Promise<Array<{ project_id: string; id: string; type: string; variants: string; variant: string | null; n: number }>> {
  return db.all<{
    project_id: string;
    id: string;
    type: string;
    variants: string;
    variant: string | null;
    n: number;
  }>(`SELECT e.project_id, e.id, e.type, e.variants, a.variant, count(a.external_user_id) AS n
    FROM experiments e LEFT JOIN assignments a ON a.project_id = e.project_id AND a.experiment_id = e.id
    WHERE e.status = 'running'
    GROUP BY e.project_id, e.id, a.variant`);
}
