import { prepared } from '../../db/prepared.js';
import type { Db } from '../../db/open.js';
import { buildListWhere, type ListFilter } from '../../db/listQuery.js';

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

export function listRuns(db: Db, projectId: string, filter: ListFilter, limit: number): RunRow[] {
  const { where, args } = buildListWhere(projectId, filter);
  return prepared(db, `SELECT ${SELECT} FROM runs WHERE ${where} ORDER BY id DESC LIMIT ?`).all(...args, limit) as RunRow[];
}
