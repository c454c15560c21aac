import type { Sql } from '../../db/sql.js';

/** What one erasure changed, table by table. */
export interface Erased {
  runs: number;
  outcomes: number;
  assignments: number;
  idempotency_records: number;
}

/**
 * Erases what Promptline holds about one user of a project and files the rest under `alias`: the
 * runs' inputs, rendered prompts and outputs, the outcomes' free text (`value`) and `metadata`, and
 * the stored answers of idempotent requests that name those runs or outcomes. Numbers (tokens,
 * cost, latency, success, numeric values, labels) and experiment assignments stay, under the alias,
 * so experiment results count the same users. Runs and outcomes are found on indexes
 * (migrations/0007); idempotency records are scanned, since they are kept by key, not by user.
 */
export async function eraseUser(db: Sql, projectId: string, userId: string, alias: string): Promise<Erased> {
  const params = { project: projectId, user: userId, alias };
  const runIds = await db.column<string>('SELECT id FROM runs WHERE project_id = @project AND external_user_id = @user', params);
  const runs = JSON.stringify(runIds);
  // An outcome is the user's when it names them, is attributed to them, or belongs to one of their runs.
  const outcomeIds = await db.column<string>(
    `SELECT id FROM outcomes WHERE project_id = @project AND external_user_id = @user
    UNION SELECT id FROM outcomes WHERE project_id = @project AND coalesce(attributed_user, external_user_id) = +@user
    UNION SELECT id FROM outcomes WHERE project_id = @project AND prompt_run_id IN (SELECT value FROM ${db.dialect.jsonValues('@runs')})`,
    { ...params, runs },
  );
  const outcomes = JSON.stringify(outcomeIds);

  await db.run(
    `UPDATE runs SET inputs = '{}', rendered = '[]', output = NULL, external_user_id = @alias
    WHERE project_id = @project AND external_user_id = @user`,
    params,
  );
  await db.run(
    `UPDATE outcomes SET value = NULL, metadata = NULL,
      external_user_id = CASE WHEN external_user_id = @user THEN @alias ELSE external_user_id END,
      attributed_user = CASE WHEN attributed_user = @user THEN @alias ELSE attributed_user END
    WHERE project_id = @project AND id IN (SELECT value FROM ${db.dialect.jsonValues('@outcomes')})`,
    { ...params, outcomes },
  );
  // CUPED's captured covariate goes too (migrations/0011): results seek the alias's window instead.
  const assignments = (
    await db.run(
      'UPDATE assignments SET external_user_id = @alias, pre_key = NULL, pre = NULL WHERE project_id = @project AND external_user_id = @user',
      params,
    )
  ).changes;
  const idempotency = (
    await db.run(
      `DELETE FROM idempotency_keys WHERE project_id = @project
      AND (${db.dialect.jsonField('response', 'run_id')} IN (SELECT value FROM ${db.dialect.jsonValues('@runs')})
        OR ${db.dialect.jsonField('response', 'outcome_id')} IN (SELECT value FROM ${db.dialect.jsonValues('@outcomes')}))`,
      { project: projectId, runs, outcomes },
    )
  ).changes;
  return { runs: runIds.length, outcomes: outcomeIds.length, assignments, idempotency_records: idempotency };
}
