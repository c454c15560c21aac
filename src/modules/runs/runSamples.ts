import type { Sql } from '../../db/sql.js';

/** Which stored runs a dataset is made from (POST /datasets/{id}/from_runs). */
export interface RunSampleQuery {
  promptId: string;
  version?: number | undefined;
  since?: string | undefined;
  until?: string | undefined;
  status: 'ok' | 'error';
  /** Newest runs to look at: the candidates a sample is drawn from. */
  scanLimit: number;
}

/** A run's text, as a dataset item takes it. */
export interface RunSample {
  id: string;
  inputs: Record<string, unknown>;
  output: string | null;
}

/**
 * The ids of the runs that match, newest first, at most `scanLimit`: only runs served through the
 * API (source 'api': never the playground's trials, nor any other kind a later version adds), and
 * only runs that still hold their text (text retention empties old runs' inputs and outputs).
 */
export async function matchingRunIds(db: Sql, projectId: string, q: RunSampleQuery): Promise<string[]> {
  const clauses = ['project_id = @project', 'prompt_id = @prompt', "source = 'api'", 'status = @status'];
  const params: Record<string, unknown> = { project: projectId, prompt: q.promptId, status: q.status, limit: q.scanLimit };
  const optional = (clause: string, name: string, value: unknown) => {
    if (value === undefined) return;
    clauses.push(clause);
    params[name] = value;
  };
  optional('prompt_version = @version', 'version', q.version);
  optional('created_at >= @since', 'since', q.since);
  optional('created_at < @until', 'until', q.until);
  // An ok run without output has lost its text; an error run never had output, so its inputs decide.
  clauses.push(q.status === 'ok' ? 'output IS NOT NULL' : "inputs <> '{}'");
  return db.column<string>(
    `SELECT id FROM runs INDEXED BY runs_prompt_list WHERE ${clauses.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT @limit`,
    params,
  );
}

/** The text of these runs, in the order of the ids given. */
export async function runTexts(db: Sql, projectId: string, ids: readonly string[]): Promise<RunSample[]> {
  const rows = await db.all<{ id: string; inputs: string; output: string | null }>(
    `SELECT id, inputs, output FROM runs WHERE project_id = ? AND id IN (SELECT value FROM ${db.dialect.jsonValues('?')})`,
    [projectId, JSON.stringify(ids)],
  );
  const byId = new Map(rows.map((r) => [r.id, { id: r.id, inputs: JSON.parse(r.inputs) as Record<string, unknown>, output: r.output }]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}
