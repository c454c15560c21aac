import { prepared } from '../../db/prepared.js';
import type { Db } from '../../db/open.js';
import { buildListWhere, type ListFilter } from '../../db/listQuery.js';

export interface OutcomeRow {
  id: string;
  prompt_id: string;
  prompt_run_id: string | null;
  external_user_id: string | null;
  event_type: string;
  label: string | null;
  value: string | null;
  numeric_value: number | null;
  is_success: number | null;
  source: string | null;
  metadata: string | null;
  experiment_id: string | null;
  variant: string | null;
  attributed_by: 'run' | 'assignment' | 'none';
  attributed_user: string | null;
  created_at: string;
}

const COLUMNS = [
  'id', 'prompt_id', 'prompt_run_id', 'external_user_id', 'event_type', 'label', 'value', 'numeric_value', 'is_success',
  'source', 'metadata', 'experiment_id', 'variant', 'attributed_by', 'attributed_user', 'created_at',
];
const SELECT = COLUMNS.join(', ');

export function insertOutcome(db: Db, projectId: string, row: OutcomeRow): void {
  prepared(db, `INSERT INTO outcomes (project_id, ${SELECT}) VALUES (@project_id, ${COLUMNS.map((c) => `@${c}`).join(', ')})`)
    .run({ ...row, project_id: projectId });
}

export function listOutcomes(db: Db, projectId: string, filter: ListFilter, limit: number): OutcomeRow[] {
  const { where, args } = buildListWhere(projectId, filter);
  return prepared(db, `SELECT ${SELECT} FROM outcomes WHERE ${where} ORDER BY id DESC LIMIT ?`).all(...args, limit) as OutcomeRow[];
}

/** What attribution needs of a run: its prompt and experiment, nothing else. */
export interface RunAttribution {
  prompt_id: string;
  experiment_id: string | null;
  variant: string | null;
  external_user_id: string | null;
}

export function findRunAttribution(db: Db, projectId: string, runId: string): RunAttribution | undefined {
  return prepared(db, 'SELECT prompt_id, experiment_id, variant, external_user_id FROM runs WHERE project_id = ? AND id = ?')
    .get(projectId, runId) as RunAttribution | undefined;
}
