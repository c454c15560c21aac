import type { Sql } from '../../db/sql.js';
import { boundsOf, listNewestFirst, mapPage, type ListPage, type ListRequest, type PageBounds } from '../../db/pagination.js';
import { boundedColumn } from '../../db/listFields.js';
import type { ChatMessage } from '../../lib/chatMessage.js';
import type { AttemptRecord, PriceUsed } from '../../providers/types.js';

/** A stored run, its JSON and boolean columns decoded (this file is the only one that knows their encoding). */
export interface RunRecord {
  id: string;
  prompt_id: string;
  prompt_version: number;
  experiment_id: string | null;
  variant: string | null;
  external_user_id: string | null;
  inputs: Record<string, unknown>;
  rendered: { text: string; messages: ChatMessage[] };
  output: string | null;
  model_requested: string;
  model_used: string | null;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cached_tokens: number;
  reasoning_tokens: number;
  tokens_estimated: boolean;
  cost_nano_usd: number;
  cost_known: boolean;
  price: PriceUsed | null;
  latency_ms: number;
  /** Time to the first token of a streamed run; null when the run was not streamed. */
  ttft_ms: number | null;
  /** 'cancelled': a streamed run whose client went away before its end. */
  status: RunStatus;
  error: string | null;
  attempts: AttemptRecord[];
  created_at: string;
  /** 'playground': a trial run of any version (never in an experiment, left out of a prompt's stats). */
  source: RunSource;
}

export type RunSource = 'api' | 'playground' | 'evaluation';
type RunStatus = 'ok' | 'error' | 'cancelled';

interface RunRow extends Omit<RunRecord, 'inputs' | 'rendered' | 'tokens_estimated' | 'cost_known' | 'price' | 'attempts'> {
  inputs: string;
  rendered: string;
  tokens_estimated: number;
  cost_known: number;
  price: string | null;
  attempts: string;
}

const COLUMNS = [
  'id',
  'prompt_id',
  'prompt_version',
  'experiment_id',
  'variant',
  'external_user_id',
  'inputs',
  'rendered',
  'output',
  'model_requested',
  'model_used',
  'prompt_tokens',
  'completion_tokens',
  'total_tokens',
  'cached_tokens',
  'reasoning_tokens',
  'tokens_estimated',
  'cost_nano_usd',
  'cost_known',
  'price',
  'latency_ms',
  'status',
  'error',
  'attempts',
  'created_at',
  'source',
  'ttft_ms',
];
const SELECT = COLUMNS.join(', ');
/** The columns that can be large (a client's inputs, a model's output): left out of lists when they are. */
const BOUNDED = ['inputs', 'rendered', 'output', 'error'] as const;
const LIST_SELECT = COLUMNS.map((c) => ((BOUNDED as readonly string[]).includes(c) ? boundedColumn(c) : c)).join(', ');

function encode(run: RunRecord): RunRow {
  return {
    ...run,
    inputs: JSON.stringify(run.inputs),
    rendered: JSON.stringify(run.rendered),
    tokens_estimated: run.tokens_estimated ? 1 : 0,
    cost_known: run.cost_known ? 1 : 0,
    price: run.price === null ? null : JSON.stringify(run.price),
    attempts: JSON.stringify(run.attempts),
  };
}

function decode(row: RunRow): RunRecord {
  return {
    ...row,
    inputs: JSON.parse(row.inputs) as RunRecord['inputs'],
    rendered: JSON.parse(row.rendered) as RunRecord['rendered'],
    tokens_estimated: row.tokens_estimated === 1,
    cost_known: row.cost_known === 1,
    price: row.price === null ? null : (JSON.parse(row.price) as PriceUsed),
    attempts: JSON.parse(row.attempts) as AttemptRecord[],
  };
}

/** Built once: /run_prompt inserts on every call. */
const INSERT = `INSERT INTO runs (project_id, ${SELECT}) VALUES (@project_id, ${COLUMNS.map((c) => `@${c}`).join(', ')})`;

export async function insertRun(db: Sql, projectId: string, run: RunRecord): Promise<void> {
  await db.run(INSERT, {
    ...encode(run),
    project_id: projectId,
  });
}

export async function findRun(db: Sql, projectId: string, runId: string): Promise<RunRecord | undefined> {
  const row = await db.get<RunRow>(`SELECT ${SELECT} FROM runs WHERE project_id = ? AND id = ?`, [projectId, runId]);
  return row === undefined ? undefined : decode(row);
}

/** What attributing an outcome needs of a run: its prompt, experiment, variant and user, nothing else. */
export interface RunAttribution {
  prompt_id: string;
  experiment_id: string | null;
  variant: string | null;
  external_user_id: string | null;
  source: RunSource;
}

export async function findRunAttribution(db: Sql, projectId: string, runId: string): Promise<RunAttribution | undefined> {
  return db.get<RunAttribution>('SELECT prompt_id, experiment_id, variant, external_user_id, source FROM runs WHERE project_id = ? AND id = ?', [
    projectId,
    runId,
  ]);
}

export interface RunListQuery extends PageBounds {
  prompt_id?: string | undefined;
  experiment_id?: string | undefined;
  variant?: string | undefined;
  external_user_id?: string | undefined;
  status?: RunStatus | undefined;
  source?: RunSource | undefined;
}

/** The fields of a listed run left out because they are large (given whole by findRun). */
type LeftOut = 'inputs' | 'rendered_prompt' | 'messages' | 'output' | 'error';
export type ListedRun = RunRecord & { leftOut: LeftOut[] };

type ListedRow = RunRow & Record<`${(typeof BOUNDED)[number]}_left_out`, number>;

/** A run as a list reads it: a large column is empty there ({}, "", []) and named in `leftOut`. */
function decodeListed(row: ListedRow): ListedRun {
  const leftOut: LeftOut[] = [];
  if (row.inputs_left_out === 1) leftOut.push('inputs');
  if (row.rendered_left_out === 1) leftOut.push('rendered_prompt', 'messages');
  if (row.output_left_out === 1) leftOut.push('output');
  if (row.error_left_out === 1) leftOut.push('error');
  const { inputs_left_out: _i, rendered_left_out: _r, output_left_out: _o, error_left_out: _e, ...stored } = row;
  return {
    ...decode({
      ...stored,
      inputs: stored.inputs ?? '{}',
      rendered: stored.rendered ?? JSON.stringify({ text: '', messages: [] }),
      output: row.output_left_out === 1 ? '' : stored.output,
      error: row.error_left_out === 1 ? '' : stored.error,
    }),
    leftOut,
  };
}

export async function listRuns(db: Sql, projectId: string, q: RunListQuery): Promise<ListPage<ListedRun>> {
  return mapPage(await listNewestFirst<ListedRow>(db, runListRequest(projectId, q)), decodeListed);
}

/** Filters in order of selectivity; the first given that has a list index (migrations/0002) leads. */
export function runListRequest(projectId: string, q: RunListQuery): ListRequest {
  return {
    table: 'runs',
    index: 'runs_project_created',
    columns: LIST_SELECT,
    projectId,
    // A run's row can hold megabytes that a list does not read but SQLite must step over.
    chunkRows: 20,
    ...boundsOf(q),
    filters: [
      { column: 'experiment_id', value: q.experiment_id, index: 'runs_experiment_list' },
      // Errors are rare and have a partial index; `ok` is nearly every row, so it is checked, not indexed.
      { column: 'status', value: q.status === 'error' ? 'error' : undefined, literal: true, index: 'runs_error_list' },
      { column: 'prompt_id', value: q.prompt_id, index: 'runs_prompt_list' },
      { column: 'external_user_id', value: q.external_user_id, index: 'runs_user_list' },
      { column: 'variant', value: q.variant },
      { column: 'status', value: q.status === 'error' ? undefined : q.status },
      { column: 'source', value: q.source },
    ],
  };
}

/** Runs of a project created in [from, before) that still hold text, oldest first: the next batch of text retention. */
export async function runsWithTextBefore(
  db: Sql,
  projectId: string,
  from: string,
  before: string,
  limit: number,
): Promise<Array<{ id: string; created_at: string }>> {
  return db.all<{ id: string; created_at: string }>(
    `SELECT id, created_at FROM runs INDEXED BY runs_project_created
    WHERE project_id = @project AND created_at >= @from AND created_at < @before
      AND (inputs <> '{}' OR rendered <> '[]' OR output IS NOT NULL)
    ORDER BY created_at, id LIMIT @limit`,
    { project: projectId, from, before, limit },
  );
}

/** Drops the text of runs (inputs, rendered prompt, output); their numbers stay. */
export async function eraseRunText(db: Sql, projectId: string, ids: readonly string[]): Promise<number> {
  return (
    await db.run(
      `UPDATE runs SET inputs = '{}', rendered = '[]', output = NULL
    WHERE project_id = ? AND id IN (SELECT value FROM ${db.dialect.jsonValues('?')})`,
      [projectId, JSON.stringify(ids)],
    )
  ).changes;
}
