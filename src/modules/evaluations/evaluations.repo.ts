import type { Sql } from '../../db/sql.js';
import { listNewestFirst, type ListPage } from '../../db/pagination.js';
import type { EvaluationStatus } from './evaluations.schemas.js';

/** An evaluator as the evaluation fixed it at creation: later versions of it do not change a running evaluation. */
export interface FrozenEvaluator {
  evaluator_id: string;
  version: number;
  kind: string;
  scale: 'pass_fail' | '1-5';
  settings: Record<string, unknown>;
}

export interface EvaluationRow {
  project_id: string;
  id: string;
  prompt_id: string;
  candidate_ref: string;
  baseline_ref: string;
  candidate_version: number;
  baseline_version: number;
  dataset_id: string;
  dataset_version: number;
  evaluators: FrozenEvaluator[];
  concurrency: number;
  budget_nano_usd: number | null;
  status: EvaluationStatus;
  total: number;
  done: number;
  cost_nano_usd: number;
  error: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export type Side = 'candidate' | 'baseline';
type ItemState = 'pending' | 'calling' | 'done' | 'interrupted' | 'skipped';

/** One version's score of one item by one evaluator, as stored. */
export type StoredScore = { score: number; passed: boolean | null; reasoning?: string | null } | { error: string; judge_error?: boolean };

export interface WorkRow {
  seq: number;
  item_id: string;
  side: Side;
  state: ItemState;
  run_id: string | null;
  output: string | null;
  error: string | null;
  scores: Record<string, StoredScore>;
  judge_run_ids: string[];
  cost_nano_usd: number;
}

const COLUMNS =
  'project_id, id, prompt_id, candidate_ref, baseline_ref, candidate_version, baseline_version, dataset_id, dataset_version, evaluators, concurrency, budget_nano_usd, status, total, done, cost_nano_usd, error, created_at, started_at, finished_at';

type StoredRow = Omit<EvaluationRow, 'evaluators'> & { evaluators: string };
const decode = (row: StoredRow): EvaluationRow => ({ ...row, evaluators: JSON.parse(row.evaluators) as FrozenEvaluator[] });

/**
 * `stagedUntil`: null, the evaluation is visible at once; else it is being written in slices and
 * stays invisible (to every read below) until publishStaged, its writer renewing this time as it goes.
 */
export async function insertEvaluation(db: Sql, row: EvaluationRow, stagedUntil: string | null = null): Promise<void> {
  await db.run(
    `INSERT INTO evaluations (${COLUMNS}, staged_until) VALUES (@project_id, @id, @prompt_id, @candidate_ref, @baseline_ref, @candidate_version, @baseline_version, @dataset_id, @dataset_version, @evaluators, @concurrency, @budget_nano_usd, @status, @total, @done, @cost_nano_usd, @error, @created_at, @started_at, @finished_at, @staged_until)`,
    { ...row, evaluators: JSON.stringify(row.evaluators), staged_until: stagedUntil },
  );
}

/** Rows per INSERT: 5 parameters each. */
const INSERT_ROWS = 500;

/** The work rows of an evaluation: each item once per version, all pending. */
export async function insertWork(db: Sql, projectId: string, evaluationId: string, items: ReadonlyArray<{ seq: number; item_id: string }>): Promise<void> {
  const rows = items.flatMap((i) => [
    { ...i, side: 'candidate' },
    { ...i, side: 'baseline' },
  ]);
  for (let start = 0; start < rows.length; start += INSERT_ROWS) {
    const chunk = rows.slice(start, start + INSERT_ROWS);
    await db.run(
      `INSERT INTO evaluation_items (project_id, evaluation_id, seq, item_id, side, state) VALUES ${chunk.map(() => "(?, ?, ?, ?, ?, 'pending')").join(', ')}`,
      chunk.flatMap((r) => [projectId, evaluationId, r.seq, r.item_id, r.side]),
    );
  }
}

export async function findEvaluation(db: Sql, projectId: string, id: string): Promise<EvaluationRow | undefined> {
  const row = await db.get<StoredRow>(`SELECT ${COLUMNS} FROM evaluations WHERE project_id = ? AND id = ? AND staged_until IS NULL`, [projectId, id]);
  return row === undefined ? undefined : decode(row);
}

export async function listEvaluations(
  db: Sql,
  projectId: string,
  q: { promptId: string | undefined; cursor: string | undefined; limit: number },
): Promise<ListPage<EvaluationRow>> {
  const page = await listNewestFirst<StoredRow>(db, {
    table: 'evaluations',
    index: 'evaluations_created',
    columns: COLUMNS,
    projectId,
    cursor: q.cursor,
    limit: q.limit,
    filters: [
      { column: 'prompt_id', value: q.promptId },
      { column: 'staged_until', value: null },
    ],
  });
  return { ...page, rows: page.rows.map(decode) };
}

const ACTIVE = "status IN ('queued', 'running')";
/** Active and fully written: what a runner may take. */
const RUNNABLE = `${ACTIVE} AND staged_until IS NULL`;

/**
 * Ends an evaluation that is still active, in one short statement however many items it has: its
 * pending work counts as skipped from here on (every view says so), and `done` counts everything
 * but the calls still in flight. The pending rows are then marked skipped in slices
 * (skipPendingSlice); until they are, reads show them as skipped. False when it had already ended.
 */
export async function endEvaluation(
  db: Sql,
  projectId: string,
  id: string,
  status: Exclude<EvaluationStatus, 'queued' | 'running'>,
  at: string,
  error: string | null = null,
): Promise<boolean> {
  const { changes } = await db.run(
    `UPDATE evaluations SET status = ?, finished_at = ?, error = ?, lease_owner = NULL, lease_until = NULL,
       done = total - (SELECT count(*) FROM evaluation_items WHERE project_id = ? AND evaluation_id = ? AND state = 'calling')
     WHERE project_id = ? AND id = ? AND ${RUNNABLE}`,
    [status, at, error, projectId, id, projectId, id],
  );
  return changes > 0;
}

/**
 * Takes the lease of one active evaluation nobody holds (or whose holder's lease ended): the oldest
 * first. A conditional UPDATE: of two replicas racing for it, one changes the row and the other none.
 */
export async function claimEvaluation(db: Sql, owner: string, now: string, leaseUntil: string): Promise<{ project_id: string; id: string } | undefined> {
  const candidates = await db.all<{ project_id: string; id: string; lease_until: string | null }>(
    `SELECT project_id, id, lease_until FROM evaluations WHERE ${RUNNABLE} AND (lease_until IS NULL OR lease_until < ?) ORDER BY created_at, id LIMIT 5`,
    [now],
  );
  for (const c of candidates) {
    const { changes } = await db.run(
      `UPDATE evaluations SET lease_owner = ?, lease_until = ?, status = 'running', started_at = COALESCE(started_at, ?)
       WHERE project_id = ? AND id = ? AND ${RUNNABLE} AND (lease_until IS NULL OR lease_until < ?)`,
      [owner, leaseUntil, now, c.project_id, c.id, now],
    );
    if (changes === 1) return { project_id: c.project_id, id: c.id };
  }
  return undefined;
}

/** Renews a lease; false when it is no longer this owner's (another replica took it over, or it ended). */
export async function renewLease(db: Sql, projectId: string, id: string, owner: string, leaseUntil: string): Promise<boolean> {
  const { changes } = await db.run(`UPDATE evaluations SET lease_until = ? WHERE project_id = ? AND id = ? AND lease_owner = ? AND ${ACTIVE}`, [
    leaseUntil,
    projectId,
    id,
    owner,
  ]);
  return changes === 1;
}

export async function releaseLease(db: Sql, projectId: string, id: string, owner: string): Promise<void> {
  await db.run('UPDATE evaluations SET lease_owner = NULL, lease_until = NULL WHERE project_id = ? AND id = ? AND lease_owner = ?', [projectId, id, owner]);
}

/**
 * Work another runner had started when it died (its lease ended): its model call may have been made
 * and paid for, so it is not made again; the item is recorded as interrupted.
 */
export async function interruptOthers(db: Sql, projectId: string, id: string, owner: string, at: string): Promise<number> {
  const { changes } = await db.run(
    `UPDATE evaluation_items SET state = 'interrupted', error = 'the runner stopped during its model call; not called again so it is never paid twice', finished_at = ?
     WHERE project_id = ? AND evaluation_id = ? AND state = 'calling' AND (claimed_by IS NULL OR claimed_by <> ?)`,
    [at, projectId, id, owner],
  );
  if (changes > 0) await db.run('UPDATE evaluations SET done = done + ? WHERE project_id = ? AND id = ?', [changes, projectId, id]);
  return changes;
}

/**
 * Marks up to `limit` pending work rows as being called by `owner`, committed before any call is
 * made: whatever happens next, that row is never called again. Conditional per row, so a row two
 * runners race for goes to one.
 */
export async function claimWork(
  db: Sql,
  projectId: string,
  id: string,
  owner: string,
  limit: number,
): Promise<Array<{ seq: number; item_id: string; side: Side }>> {
  // An ended evaluation's pending rows are skipped, even before the slices that mark them so have reached them.
  if ((await db.value(`SELECT 1 FROM evaluations WHERE project_id = ? AND id = ? AND ${ACTIVE}`, [projectId, id])) === undefined) return [];
  const rows = await db.all<{ seq: number; item_id: string; side: Side }>(
    "SELECT seq, item_id, side FROM evaluation_items WHERE project_id = ? AND evaluation_id = ? AND state = 'pending' ORDER BY seq, side LIMIT ?",
    [projectId, id, limit],
  );
  const claimed: Array<{ seq: number; item_id: string; side: Side }> = [];
  for (const r of rows) {
    const { changes } = await db.run(
      "UPDATE evaluation_items SET state = 'calling', claimed_by = ? WHERE project_id = ? AND evaluation_id = ? AND seq = ? AND side = ? AND state = 'pending'",
      [owner, projectId, id, r.seq, r.side],
    );
    if (changes === 1) claimed.push(r);
  }
  return claimed;
}

export interface WorkResult {
  seq: number;
  side: Side;
  run_id: string | null;
  output: string | null;
  error: string | null;
  scores: Record<string, StoredScore>;
  judge_run_ids: string[];
  cost_nano_usd: number;
  at: string;
}

/** Records a finished work row and adds it to the evaluation's progress; false when the row is no longer this owner's. */
export async function finishWork(db: Sql, projectId: string, id: string, owner: string, r: WorkResult): Promise<boolean> {
  const { changes } = await db.run(
    `UPDATE evaluation_items SET state = 'done', run_id = ?, output = ?, error = ?, scores = ?, judge_run_ids = ?, cost_nano_usd = ?, finished_at = ?
     WHERE project_id = ? AND evaluation_id = ? AND seq = ? AND side = ? AND state = 'calling' AND claimed_by = ?`,
    [r.run_id, r.output, r.error, JSON.stringify(r.scores), JSON.stringify(r.judge_run_ids), r.cost_nano_usd, r.at, projectId, id, r.seq, r.side, owner],
  );
  if (changes === 0) return false;
  await db.run('UPDATE evaluations SET done = done + 1, cost_nano_usd = cost_nano_usd + ? WHERE project_id = ? AND id = ?', [r.cost_nano_usd, projectId, id]);
  return true;
}

/** Whether any work row is not yet finished (pending or being called): one index entry read, not a count of them all. */
export async function hasUnfinished(db: Sql, projectId: string, id: string): Promise<boolean> {
  const found = await db.value("SELECT 1 FROM evaluation_items WHERE project_id = ? AND evaluation_id = ? AND state IN ('pending', 'calling') LIMIT 1", [
    projectId,
    id,
  ]);
  return found !== undefined;
}

type StoredWork = Omit<WorkRow, 'scores' | 'judge_run_ids'> & { scores: string | null; judge_run_ids: string | null };
const decodeWork = (r: StoredWork): WorkRow => ({
  ...r,
  scores: r.scores === null ? {} : (JSON.parse(r.scores) as Record<string, StoredScore>),
  judge_run_ids: r.judge_run_ids === null ? [] : (JSON.parse(r.judge_run_ids) as string[]),
});

/**
 * The scores of every finished work row (no text): what the comparison is computed from. Only
 * those are read (the state's index): a cancelled evaluation of 100 000 items has a handful.
 */
export async function doneScores(db: Sql, projectId: string, id: string): Promise<Array<Pick<WorkRow, 'seq' | 'item_id' | 'side' | 'state' | 'scores'>>> {
  const rows = await db.all<{ seq: number; item_id: string; side: Side; state: ItemState; scores: string | null }>(
    `SELECT seq, item_id, side, state, scores FROM evaluation_items INDEXED BY evaluation_items_pending
     WHERE project_id = ? AND evaluation_id = ? AND state = 'done' ORDER BY seq, side`,
    [projectId, id],
  );
  return rows.map((r) => ({ ...r, scores: r.scores === null ? {} : (JSON.parse(r.scores) as Record<string, StoredScore>) }));
}

/** A page of work rows (both sides of each item) after the item at `afterSeq`, in the dataset's order. */
export async function workPage(db: Sql, projectId: string, id: string, afterSeq: number, items: number): Promise<WorkRow[]> {
  const rows = await db.all<StoredWork>(
    `SELECT seq, item_id, side, state, run_id, output, error, scores, judge_run_ids, cost_nano_usd FROM evaluation_items
     WHERE project_id = ? AND evaluation_id = ? AND seq > ? ORDER BY seq, side LIMIT ?`,
    [projectId, id, afterSeq, items * 2],
  );
  return rows.map(decodeWork);
}
