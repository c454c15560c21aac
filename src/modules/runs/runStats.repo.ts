import type { Sql } from '../../db/sql.js';

/** One version's served runs in a window, summed in SQL. */
export interface VersionStatsRow {
  prompt_version: number;
  runs: number;
  errors: number;
  latency_ms_p50: number | null;
  latency_ms_p95: number | null;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cost_nano_usd: number;
}

/**
 * Per version, the served runs (source 'api') of a prompt created in [since, until). Latency
 * percentiles are exact nearest-rank over the runs that succeeded: the value at position
 * ceil(p/100 × n) of their latencies in ascending order, which `(n × p + 99) / 100` computes in
 * integer arithmetic on both backends. Every column read is in `runs_prompt_stats`
 * (migrations/0016), so the scan never reaches a run's large text columns.
 */
export async function versionStats(db: Sql, projectId: string, promptId: string, since: string, until: string): Promise<VersionStatsRow[]> {
  return db.all<VersionStatsRow>(
    `WITH windowed AS (
      SELECT prompt_version, status, latency_ms, prompt_tokens, completion_tokens, total_tokens, cost_nano_usd
      FROM runs INDEXED BY runs_prompt_stats
      WHERE project_id = @project AND prompt_id = @prompt AND source = 'api' AND created_at >= @since AND created_at < @until
    ),
    ranked AS (
      SELECT prompt_version, latency_ms,
        ROW_NUMBER() OVER (PARTITION BY prompt_version ORDER BY latency_ms) AS position,
        COUNT(*) OVER (PARTITION BY prompt_version) AS succeeded
      FROM windowed WHERE status = 'ok'
    ),
    latency AS (
      SELECT prompt_version,
        MAX(CASE WHEN position = (succeeded * 50 + 99) / 100 THEN latency_ms END) AS p50,
        MAX(CASE WHEN position = (succeeded * 95 + 99) / 100 THEN latency_ms END) AS p95
      FROM ranked GROUP BY prompt_version
    ),
    totals AS (
      SELECT prompt_version, COUNT(*) AS runs, SUM(CASE WHEN status = 'error' THEN 1 ELSE 0 END) AS errors,
        SUM(prompt_tokens) AS prompt_tokens, SUM(completion_tokens) AS completion_tokens,
        SUM(total_tokens) AS total_tokens, SUM(cost_nano_usd) AS cost_nano_usd
      FROM windowed GROUP BY prompt_version
    )
    SELECT totals.prompt_version, runs, errors, latency.p50 AS latency_ms_p50, latency.p95 AS latency_ms_p95,
      prompt_tokens, completion_tokens, total_tokens, cost_nano_usd
    FROM totals LEFT JOIN latency ON latency.prompt_version = totals.prompt_version
    ORDER BY totals.prompt_version DESC`,
    { project: projectId, prompt: promptId, since, until },
  );
}
