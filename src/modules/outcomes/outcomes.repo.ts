import type { Sql } from '../../db/sql.js';
import { boundsOf, listNewestFirst, mapPage, type ListPage, type ListRequest, type PageBounds } from '../../db/pagination.js';

/** A stored outcome, its JSON and boolean columns decoded (this file is the only one that knows their encoding). */
export interface OutcomeRecord {
  id: string;
  prompt_id: string;
  prompt_run_id: string | null;
  external_user_id: string | null;
  event_type: string;
  label: string | null;
  value: string | null;
  numeric_value: number | null;
  is_success: boolean | null;
  source: string | null;
  metadata: Record<string, unknown> | null;
  experiment_id: string | null;
  variant: string | null;
  attributed_by: 'run' | 'assignment' | 'none';
  /** The experiment's unit: the assigned user (the run's user when attributed by run). */
  attributed_user: string | null;
  created_at: string;
}

interface OutcomeRow extends Omit<OutcomeRecord, 'is_success' | 'metadata'> {
  is_success: number | null;
  metadata: string | null;
}

function encode(outcome: OutcomeRecord): OutcomeRow {
  return {
    ...outcome,
    is_success: outcome.is_success === null ? null : outcome.is_success ? 1 : 0,
    metadata: outcome.metadata === null ? null : JSON.stringify(outcome.metadata),
  };
}

function decode(row: OutcomeRow): OutcomeRecord {
  return {
    ...row,
    is_success: row.is_success === null ? null : row.is_success === 1,
    metadata: row.metadata === null ? null : (JSON.parse(row.metadata) as Record<string, unknown>),
  };
}

const COLUMNS = [
  'id',
  'prompt_id',
  'prompt_run_id',
  'external_user_id',
  'event_type',
  'label',
  'value',
  'numeric_value',
  'is_success',
  'source',
  'metadata',
  'experiment_id',
  'variant',
  'attributed_by',
  'attributed_user',
  'created_at',
];
const SELECT = COLUMNS.join(', ');

export async function insertOutcome(db: Sql, projectId: string, outcome: OutcomeRecord): Promise<void> {
  await db.run(`INSERT INTO outcomes (project_id, ${SELECT}) VALUES (@project_id, ${COLUMNS.map((c) => `@${c}`).join(', ')})`, {
    ...encode(outcome),
    project_id: projectId,
  });
}

export interface OutcomeListQuery extends PageBounds {
  prompt_id?: string | undefined;
  experiment_id?: string | undefined;
  variant?: string | undefined;
  external_user_id?: string | undefined;
  event_type?: string | undefined;
  prompt_run_id?: string | undefined;
}

export async function listOutcomes(db: Sql, projectId: string, q: OutcomeListQuery): Promise<ListPage<OutcomeRecord>> {
  return mapPage(await listNewestFirst<OutcomeRow>(db, outcomeListRequest(projectId, q)), decode);
}

/** Filters in order of selectivity; the first given that has a list index (migrations/0002) leads. */
export function outcomeListRequest(projectId: string, q: OutcomeListQuery): ListRequest {
  return {
    table: 'outcomes',
    index: 'outcomes_project_created',
    columns: SELECT,
    projectId,
    ...boundsOf(q),
    filters: [
      { column: 'prompt_run_id', value: q.prompt_run_id, index: 'outcomes_run_list' },
      { column: 'experiment_id', value: q.experiment_id, index: 'outcomes_experiment_list' },
      { column: 'event_type', value: q.event_type, index: 'outcomes_event_list' },
      { column: 'prompt_id', value: q.prompt_id, index: 'outcomes_prompt_list' },
      { column: 'external_user_id', value: q.external_user_id, index: 'outcomes_user_list' },
      { column: 'variant', value: q.variant },
    ],
  };
}
