import type { Sql } from '../../db/sql.js';

export interface AttachmentRow {
  prompt_id: string;
  evaluator_id: string;
  sample_rate: number;
  created_at: string;
}

export interface DueAttachment extends AttachmentRow {
  project_id: string;
  cursor_at: string;
  cursor_id: string;
}

export interface RunScoreRow {
  run_id: string;
  evaluator_id: string;
  evaluator_version: number;
  score: number | null;
  passed: boolean | null;
  error: string | null;
  /** A judge's reasoning, when it gave one. */
  reasoning: string | null;
  /** What scoring the run cost: a judge's model calls (every attempt), 0 for the other kinds. */
  cost_nano_usd: number;
  /** A judge's runs (source `evaluation`), one per attempt that reached the model. */
  judge_run_ids: string[];
  created_at: string;
}

const COLUMNS = 'prompt_id, evaluator_id, sample_rate, created_at';

export async function findAttachment(db: Sql, projectId: string, promptId: string, evaluatorId: string): Promise<AttachmentRow | undefined> {
  return db.get<AttachmentRow>(`SELECT ${COLUMNS} FROM online_evaluators WHERE project_id = ? AND prompt_id = ? AND evaluator_id = ?`, [
    projectId,
    promptId,
    evaluatorId,
  ]);
}

export async function listAttachments(db: Sql, projectId: string, promptId: string): Promise<AttachmentRow[]> {
  return db.all<AttachmentRow>(`SELECT ${COLUMNS} FROM online_evaluators WHERE project_id = ? AND prompt_id = ? ORDER BY evaluator_id`, [projectId, promptId]);
}

/** Scoring starts with the runs made from now on: the cursor starts at the attachment's time. */
export async function insertAttachment(db: Sql, projectId: string, row: AttachmentRow): Promise<void> {
  await db.run(
    'INSERT INTO online_evaluators (project_id, prompt_id, evaluator_id, sample_rate, created_at, cursor_at, cursor_id, lease_until) VALUES (?, ?, ?, ?, ?, ?, ?, NULL)',
    [projectId, row.prompt_id, row.evaluator_id, row.sample_rate, row.created_at, row.created_at, ''],
  );
}

export async function deleteAttachment(db: Sql, projectId: string, promptId: string, evaluatorId: string): Promise<boolean> {
  const { changes } = await db.run('DELETE FROM online_evaluators WHERE project_id = ? AND prompt_id = ? AND evaluator_id = ?', [
    projectId,
    promptId,
    evaluatorId,
  ]);
  return changes > 0;
}

/** Attachments of every project whose lease is free: few rows (one per attached evaluator). */
export async function freeAttachments(db: Sql, now: string): Promise<DueAttachment[]> {
  return db.all<DueAttachment>(
    `SELECT project_id, ${COLUMNS}, cursor_at, cursor_id FROM online_evaluators WHERE lease_until IS NULL OR lease_until < ? ORDER BY project_id, prompt_id, evaluator_id`,
    [now],
  );
}

/** Takes an attachment's lease if it is still free; false when another replica took it first. */
export async function claim(db: Sql, a: DueAttachment, now: string, until: string): Promise<boolean> {
  const { changes } = await db.run(
    'UPDATE online_evaluators SET lease_until = ? WHERE project_id = ? AND prompt_id = ? AND evaluator_id = ? AND (lease_until IS NULL OR lease_until < ?)',
    [until, a.project_id, a.prompt_id, a.evaluator_id, now],
  );
  return changes > 0;
}

/**
 * Extends a lease this worker holds (its end still the one it set): false when it has run out and
 * another replica took the attachment since, or the evaluator was detached.
 */
export async function renew(db: Sql, a: DueAttachment, held: string, until: string): Promise<boolean> {
  const { changes } = await db.run(
    'UPDATE online_evaluators SET lease_until = ? WHERE project_id = ? AND prompt_id = ? AND evaluator_id = ? AND lease_until = ?',
    [until, a.project_id, a.prompt_id, a.evaluator_id, held],
  );
  return changes > 0;
}

/** Moves the cursor past the runs looked at and frees the lease (a detached evaluator has no row: nothing happens). */
export async function advance(db: Sql, a: DueAttachment, cursorAt: string, cursorId: string): Promise<void> {
  await db.run('UPDATE online_evaluators SET cursor_at = ?, cursor_id = ?, lease_until = NULL WHERE project_id = ? AND prompt_id = ? AND evaluator_id = ?', [
    cursorAt,
    cursorId,
    a.project_id,
    a.prompt_id,
    a.evaluator_id,
  ]);
}

export interface ServedRun {
  id: string;
  created_at: string;
}

/**
 * The prompt's live runs after the cursor, up to `before` (runs still in flight may carry an
 * earlier created_at than runs already stored: the worker stays behind them by a settle time).
 * Only runs served through /run_prompt (source `api`): playground runs, and the runs evaluations and
 * online judges make (source `evaluation`), are never scored online.
 */
export async function runsAfter(
  db: Sql,
  projectId: string,
  promptId: string,
  after: { at: string; id: string },
  before: string,
  limit: number,
): Promise<ServedRun[]> {
  return db.all<ServedRun>(
    `SELECT id, created_at FROM runs
    WHERE project_id = @project AND prompt_id = @prompt AND source = 'api' AND status = 'ok'
      AND (created_at > @at OR (created_at = @at AND id > @id)) AND created_at < @before
    ORDER BY created_at, id LIMIT @limit`,
    { project: projectId, prompt: promptId, at: after.at, id: after.id, before, limit },
  );
}

export interface RunText {
  /** The caller's variables ({} once run-text retention has erased them). */
  inputs: Record<string, unknown>;
  output: string | null;
}

export async function runTexts(db: Sql, projectId: string, ids: readonly string[]): Promise<Map<string, RunText>> {
  if (ids.length === 0) return new Map();
  const rows = await db.all<{ id: string; inputs: string | null; output: string | null }>(
    `SELECT id, inputs, output FROM runs WHERE project_id = ? AND id IN (${ids.map(() => '?').join(', ')})`,
    [projectId, ...ids],
  );
  const parsed = (text: string | null): Record<string, unknown> => {
    const value = text === null ? null : (JSON.parse(text) as unknown);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  };
  return new Map(rows.map((r) => [r.id, { inputs: parsed(r.inputs), output: r.output }]));
}

export async function insertScores(db: Sql, projectId: string, rows: readonly RunScoreRow[]): Promise<void> {
  for (const r of rows) {
    await db.run(
      `INSERT INTO run_scores (project_id, run_id, evaluator_id, evaluator_version, score, passed, error, reasoning, cost_nano_usd, judge_run_ids, created_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (project_id, run_id, evaluator_id) DO NOTHING`,
      [
        projectId,
        r.run_id,
        r.evaluator_id,
        r.evaluator_version,
        r.score,
        r.passed === null ? null : r.passed ? 1 : 0,
        r.error,
        r.reasoning,
        r.cost_nano_usd,
        r.judge_run_ids.length === 0 ? null : JSON.stringify(r.judge_run_ids),
        r.created_at,
      ],
    );
  }
}

export async function scoresOfRun(db: Sql, projectId: string, runId: string): Promise<RunScoreRow[]> {
  const rows = await db.all<Omit<RunScoreRow, 'passed' | 'judge_run_ids'> & { passed: number | null; judge_run_ids: string | null }>(
    `SELECT run_id, evaluator_id, evaluator_version, score, passed, error, reasoning, cost_nano_usd, judge_run_ids, created_at
    FROM run_scores WHERE project_id = ? AND run_id = ? ORDER BY evaluator_id`,
    [projectId, runId],
  );
  return rows.map((r) => ({
    ...r,
    passed: r.passed === null ? null : Number(r.passed) === 1,
    cost_nano_usd: Number(r.cost_nano_usd),
    judge_run_ids: r.judge_run_ids === null ? [] : (JSON.parse(r.judge_run_ids) as string[]),
  }));
}

export async function runExists(db: Sql, projectId: string, runId: string): Promise<boolean> {
  return (await db.value<number>('SELECT 1 FROM runs WHERE project_id = ? AND id = ?', [projectId, runId])) !== undefined;
}
