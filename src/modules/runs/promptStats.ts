import type { Sql } from '../../db/sql.js';
import { timeBound } from '../../db/pagination.js';
import type { Clock } from '../../lib/clock.js';
import { invalid } from '../../lib/errors.js';
import { nanoToUsd } from '../../providers/prices.js';
import { versionStats } from './runStats.repo.js';
import type { PromptStats, StatsInput } from './runs.schemas.js';

const DAY_MS = 86_400_000;
const DEFAULT_WINDOW_MS = 7 * DAY_MS;
/** The widest window one request may read: its cost grows with the runs in it. */
const MAX_STATS_WINDOW_DAYS = 90;

/** [since, until): until defaults to now, since to 7 days before until; at most 90 days wide. */
function statsWindow(query: StatsInput, clock: Clock): { since: string; until: string } {
  const until = timeBound('until', query.until) ?? clock.now().toISOString();
  const since = timeBound('since', query.since) ?? new Date(Date.parse(until) - DEFAULT_WINDOW_MS).toISOString();
  const width = Date.parse(until) - Date.parse(since);
  if (width <= 0) throw invalid('query', ['since'], 'since must be before until');
  if (width > MAX_STATS_WINDOW_DAYS * DAY_MS) throw invalid('query', ['since'], `the window may span at most ${MAX_STATS_WINDOW_DAYS} days`);
  return { since, until };
}

/** GET /prompts/{id}/stats: the prompt's served runs per version in the window (playground runs are not counted). */
export async function promptStats(db: Sql, clock: Clock, projectId: string, promptId: string, query: StatsInput): Promise<PromptStats> {
  const { since, until } = statsWindow(query, clock);
  const rows = await versionStats(db, projectId, promptId, since, until);
  return {
    prompt_id: promptId,
    since,
    until,
    versions: rows.map((row) => ({
      version: row.prompt_version,
      runs: row.runs,
      errors: row.errors,
      error_rate: row.errors / row.runs,
      latency_ms_p50: row.latency_ms_p50,
      latency_ms_p95: row.latency_ms_p95,
      prompt_tokens: row.prompt_tokens,
      completion_tokens: row.completion_tokens,
      total_tokens: row.total_tokens,
      cost_usd: nanoToUsd(row.cost_nano_usd),
    })),
  };
}
