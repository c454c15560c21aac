import type { Sql } from '../../db/sql.js';
import { listNewestFirst, type ListPage } from '../../db/pagination.js';
import type { EvaluatorKind } from './evaluators.schemas.js';

export interface EvaluatorRow {
  evaluator_id: string;
  kind: EvaluatorKind;
  description: string | null;
  created_at: string;
  archived_at: string | null;
}

export interface EvaluatorVersionRow {
  version: number;
  settings: Record<string, unknown>;
  created_at: string;
}

const COLUMNS = 'evaluator_id, kind, description, created_at, archived_at';

export async function findEvaluator(db: Sql, projectId: string, evaluatorId: string): Promise<EvaluatorRow | undefined> {
  return db.get<EvaluatorRow>(`SELECT ${COLUMNS} FROM evaluators WHERE project_id = ? AND evaluator_id = ?`, [projectId, evaluatorId]);
}

export async function insertEvaluator(db: Sql, projectId: string, row: EvaluatorRow): Promise<void> {
  await db.run('INSERT INTO evaluators (project_id, evaluator_id, kind, description, created_at, archived_at) VALUES (?, ?, ?, ?, ?, ?)', [
    projectId,
    row.evaluator_id,
    row.kind,
    row.description,
    row.created_at,
    row.archived_at,
  ]);
}

export async function archiveEvaluator(db: Sql, projectId: string, evaluatorId: string, at: string): Promise<void> {
  await db.run('UPDATE evaluators SET archived_at = ? WHERE project_id = ? AND evaluator_id = ? AND archived_at IS NULL', [at, projectId, evaluatorId]);
}

/** Serialises the numbering of one evaluator's versions across replicas (the row lock on PostgreSQL). */
export async function lockEvaluator(db: Sql, projectId: string, evaluatorId: string): Promise<void> {
  await db.run('UPDATE evaluators SET description = description WHERE project_id = ? AND evaluator_id = ?', [projectId, evaluatorId]);
}

export async function listEvaluators(
  db: Sql,
  projectId: string,
  q: { includeArchived: boolean; cursor: string | undefined; limit: number },
): Promise<ListPage<EvaluatorRow>> {
  return listNewestFirst<EvaluatorRow>(db, {
    table: 'evaluators',
    key: 'evaluator_id',
    index: 'evaluators_created',
    columns: COLUMNS,
    projectId,
    cursor: q.cursor,
    limit: q.limit,
    filters: [{ column: 'archived_at', value: q.includeArchived ? undefined : null }],
  });
}

type StoredVersionRow = Omit<EvaluatorVersionRow, 'settings'> & { settings: string };
const decode = (row: StoredVersionRow): EvaluatorVersionRow => ({ ...row, settings: JSON.parse(row.settings) as Record<string, unknown> });

export async function insertVersion(db: Sql, projectId: string, evaluatorId: string, row: EvaluatorVersionRow): Promise<void> {
  await db.run('INSERT INTO evaluator_versions (project_id, evaluator_id, version, settings, created_at) VALUES (?, ?, ?, ?, ?)', [
    projectId,
    evaluatorId,
    row.version,
    JSON.stringify(row.settings),
    row.created_at,
  ]);
}

export async function findVersion(db: Sql, projectId: string, evaluatorId: string, version: number): Promise<EvaluatorVersionRow | undefined> {
  const row = await db.get<StoredVersionRow>(
    'SELECT version, settings, created_at FROM evaluator_versions WHERE project_id = ? AND evaluator_id = ? AND version = ?',
    [projectId, evaluatorId, version],
  );
  return row === undefined ? undefined : decode(row);
}

export async function latestVersion(db: Sql, projectId: string, evaluatorId: string): Promise<EvaluatorVersionRow> {
  const row = await db.get<StoredVersionRow>(
    'SELECT version, settings, created_at FROM evaluator_versions WHERE project_id = ? AND evaluator_id = ? ORDER BY version DESC LIMIT 1',
    [projectId, evaluatorId],
  );
  // An evaluator is made with its version 1, in the same transaction.
  return decode(row!);
}

export async function listVersions(db: Sql, projectId: string, evaluatorId: string): Promise<EvaluatorVersionRow[]> {
  return (
    await db.all<StoredVersionRow>(
      'SELECT version, settings, created_at FROM evaluator_versions WHERE project_id = ? AND evaluator_id = ? ORDER BY version DESC',
      [projectId, evaluatorId],
    )
  ).map(decode);
}

/** The versions of a project's regex and json_schema evaluators (the kinds that hold patterns), oldest first. */
export async function listVersionsWithPatterns(
  db: Sql,
  projectId: string,
): Promise<Array<{ evaluator_id: string; kind: EvaluatorKind; version: number; settings: Record<string, unknown> }>> {
  const rows = await db.all<{ evaluator_id: string; kind: EvaluatorKind; version: number; settings: string }>(
    `SELECT v.evaluator_id, e.kind, v.version, v.settings FROM evaluator_versions v
    JOIN evaluators e ON e.project_id = v.project_id AND e.evaluator_id = v.evaluator_id
    WHERE v.project_id = ? AND e.kind IN ('regex', 'json_schema')
    ORDER BY v.evaluator_id, v.version`,
    [projectId],
  );
  return rows.map((row) => ({ ...row, settings: JSON.parse(row.settings) as Record<string, unknown> }));
}
