import { prepared } from '../../db/prepared.js';
import type { Db } from '../../db/open.js';
import { listNewestFirst, type ListPage, type ListRequest } from '../../db/pagination.js';

export interface RunRow {
  id: string;
  prompt_id: string;
  prompt_version: number;
  experiment_id: string | null;
  variant: string | null;
  external_user_id: string | null;
  inputs: string;
  rendered: string;
  output: string | null;
  model_requested: string;
  model_used: string | null;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cached_tokens: number;
  reasoning_tokens: number;
  tokens_estimated: number;
  cost_nano_usd: number;
  cost_known: number;
  price: string | null;
  latency_ms: number;
  status: 'ok' | 'error';
  error: string | null;
  attempts: string;
  created_at: string;
}

const COLUMNS = [
  'id', 'prompt_id', 'prompt_version', 'experiment_id', 'variant', 'external_user_id', 'inputs', 'rendered', 'output',
  'model_requested', 'model_used', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'cached_tokens', 'reasoning_tokens',
  'tokens_estimated', 'cost_nano_usd', 'cost_known', 'price', 'latency_ms', 'status', 'error', 'attempts', 'created_at',
];
const SELECT = COLUMNS.join(', ');

export function insertRun(db: Db, projectId: string, row: RunRow): void {
  prepared(db, `INSERT INTO runs (project_id, ${SELECT}) VALUES (@project_id, ${COLUMNS.map((c) => `@${c}`).join(', ')})`)
    .run({ ...row, project_id: projectId });
}

export function findRun(db: Db, projectId: string, runId: string): RunRow | undefined {
  return prepared(db, `SELECT ${SELECT} FROM runs WHERE project_id = ? AND id = ?`).get(projectId, runId) as RunRow | undefined;
}

export interface RunListQuery {
  prompt_id?: string | undefined;
  experiment_id?: string | undefined;
  variant?: string | undefined;
  external_user_id?: string | undefined;
  status?: 'ok' | 'error' | undefined;
  since: string | undefined;
  until: string | undefined;
  cursor: string | undefined;
  limit: number;
}

export function listRuns(db: Db, projectId: string, q: RunListQuery): ListPage<RunRow> {
  return listNewestFirst<RunRow>(db, runListRequest(projectId, q));
}

/** Filters in order of selectivity; the first given that has a list index (migrations/0002) leads. */
export function runListRequest(projectId: string, q: RunListQuery): ListRequest {
  return {
    table: 'runs', index: 'runs_project_created', columns: SELECT, projectId, since: q.since, until: q.until, cursor: q.cursor, limit: q.limit,
    filters: [
      { column: 'experiment_id', value: q.experiment_id, index: 'runs_experiment_list' },
      // Errors are rare and have a partial index; `ok` is nearly every row, so it is checked, not indexed.
      { column: 'status', value: q.status === 'error' ? 'error' : undefined, literal: true, index: 'runs_error_list' },
      { column: 'prompt_id', value: q.prompt_id, index: 'runs_prompt_list' },
      { column: 'external_user_id', value: q.external_user_id },
      { column: 'variant', value: q.variant },
      { column: 'status', value: q.status === 'ok' ? 'ok' : undefined },
    ],
  };
}
