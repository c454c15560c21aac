/**
 * Results at scale (1 M outcomes in < 1 s). Seeds an experiment with 100 000 exposed users, 200 000
 * runs and 1 000 000 outcomes (plus 100 000 from before exposure, for CUPED) straight into the
 * app's own database, deterministic rows — a temporary SQLite file (one transaction), or a fresh
 * PostgreSQL database (bulk inserts, dropped at the end) — then times the results computation with
 * two goal metrics, a cost guardrail and CUPED on: the service call the CLI makes, and the HTTP
 * endpoint through app.inject, and whether /get_prompt keeps answering while a report computes.
 *
 * This file does the measuring and holds the entry points; the data and its seeding are in
 * resultsSeed.ts, the bench app and experiment in resultsApp.ts, the bulk-seed check in
 * resultsSeedCheck.ts and the PostgreSQL statement profile in resultsProfile.ts.
 *
 *   npm run build && node dist/bench/run.js results             # SQLite
 *   npm run build && node dist/bench/run.js results-postgres    # PostgreSQL (PROMPTLINE_BENCH_POSTGRES_URL)
 */
import os from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import pg from 'pg';
import type { PromptlineApp } from '../src/app.js';
import { createReportServices } from '../src/services.js';
import { request, seededExperiment, withBenchApp } from './resultsApp.js';
import { profileReport } from './resultsProfile.js';
import { RUNS_PER_USER, USERS, userId } from './resultsSeed.js';
import { checkBulkSeed } from './resultsSeedCheck.js';

// What bench/consoleResults.ts imports from here, and the seeding API this file has always exported.
export { ADMIN_KEY, benchApp, seededExperiment } from './resultsApp.js';

const TARGET_MS = 1000;

function stats(samples: number[]): { median: number; max: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  return { median: sorted[Math.floor((sorted.length - 1) / 2)]!, max: sorted[sorted.length - 1]! };
}

/**
 * Same-run reference: one pass over the experiment's outcomes on their covering index, the least
 * any report must read. Reports are also given as a multiple of it, which moves far less than
 * milliseconds do when the machine is shared.
 */
let onePassMs = Number.NaN;

/** Milliseconds of `repeat` runs of `action`, after one unmeasured run (statement preparation, the page cache). */
async function sampleMs(repeat: number, action: () => Promise<unknown> | unknown): Promise<number[]> {
  await action();
  const samples: number[] = [];
  for (let i = 0; i < repeat; i++) {
    const started = performance.now();
    await action();
    samples.push(performance.now() - started);
  }
  return samples;
}

async function time(label: string, repeat: number, action: () => Promise<unknown> | unknown): Promise<void> {
  const { median, max } = stats(await sampleMs(repeat, action));
  console.log(
    `${label.padEnd(58)} median ${median.toFixed(0).padStart(5)} ms  max ${max.toFixed(0).padStart(5)} ms  ` +
      `(${repeat} runs)  median/target ${(median / TARGET_MS).toFixed(2)}  median/one pass ${(median / onePassMs).toFixed(1)}`,
  );
}

/** The runtime endpoints keep answering while a report is computed (in its worker thread). */
async function hotPathDuringResults(app: PromptlineApp, url: string): Promise<void> {
  const alone: number[] = [];
  for (let i = 0; i < 200; i++) {
    const started = performance.now();
    await request(app, 'POST', '/get_prompt', { prompt_id: 'bench', inputs: { q: 'x' }, external_user_id: 'bench-user' });
    alone.push(performance.now() - started);
  }
  const during: number[] = [];
  let computing = true;
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const report = request(app, 'GET', url).finally(() => (computing = false));
  while (computing) {
    const started = performance.now();
    await request(app, 'POST', '/get_prompt', { prompt_id: 'bench', inputs: { q: 'x' }, external_user_id: 'bench-user' });
    during.push(performance.now() - started);
  }
  await report;
  loop.disable();
  console.log(
    `/get_prompt while a report computes: ${during.length} calls, max ${stats(during).max.toFixed(1)} ms, median ${stats(during).median.toFixed(2)} ms ` +
      `(alone: max ${stats(alone).max.toFixed(1)} ms, median ${stats(alone).median.toFixed(2)} ms); longest event-loop stall ${(loop.max / 1e6).toFixed(1)} ms`,
  );
}

/**
 * Management lists over the same million outcomes and 200 000 runs: each page should cost about what
 * it returns, whatever the history behind it. Reference: reading one run by id, in the same run.
 */
async function listPages(app: PromptlineApp, experimentId: string): Promise<void> {
  const page = async (url: string) => (await request(app, 'GET', url)).json() as { data: Array<{ run_id?: string }>; next_cursor: string | null };
  const sample = async (action: () => Promise<unknown>) => stats(await sampleMs(20, action));
  const runId = (await page('/runs?limit=1')).data[0]!.run_id!;
  const reference = await sample(() => request(app, 'GET', `/runs/${runId}`));
  console.log(`\nLists over 1 000 000 outcomes / 200 000 runs, 100 rows a page (reference: GET /runs/{id}, median ${reference.median.toFixed(2)} ms)`);
  const second = (await page('/outcomes?limit=100')).next_cursor!;
  const user = userId(4242);
  for (const url of [
    '/outcomes?limit=100',
    `/outcomes?limit=100&cursor=${second}`,
    '/outcomes?event_type=click&limit=100',
    `/outcomes?experiment_id=${experimentId}&variant=treatment&limit=100`,
    `/outcomes?external_user_id=${user}&limit=100`,
    '/outcomes?prompt_id=bench&event_type=feedback&since=2020-01-01T00:00:00Z&limit=100',
    '/outcomes?prompt_id=bench&variant=nobody&limit=100',
    '/runs?limit=100',
    '/runs?status=error&limit=100',
    `/runs?experiment_id=${experimentId}&external_user_id=${user}&limit=100`,
  ]) {
    const { median, max } = await sample(() => request(app, 'GET', url));
    console.log(
      `  GET ${url.replace(second, '…').padEnd(92)} median ${median.toFixed(2).padStart(7)} ms  max ${max.toFixed(2).padStart(7)} ms  median/reference ${(median / reference.median).toFixed(1)}`,
    );
  }
}

/** The report's timings on the app's backend (SQLite, or PostgreSQL at databaseUrl). */
async function measure(app: PromptlineApp, projectId: string, databaseUrl: string | null): Promise<void> {
  const backend = databaseUrl === null ? 'SQLite' : 'PostgreSQL';
  const seeding = performance.now();
  const experimentId = await seededExperiment(app, projectId, databaseUrl);
  const seconds = (performance.now() - seeding) / 1000;
  const outcomes = await app.store.sql.value<number>('SELECT count(*) FROM outcomes WHERE experiment_id = ?', [experimentId]);
  console.log(
    `results bench on ${backend}: ${USERS} users, ${outcomes} outcomes, ${USERS * RUNS_PER_USER} runs seeded in ${seconds.toFixed(1)} s` +
      `${databaseUrl === null ? '' : ' (bulk, then VACUUM ANALYZE)'}; target ${TARGET_MS} ms; load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
  );

  const { results: service } = createReportServices(app.store);
  const onePass =
    databaseUrl === null
      ? (() => {
          const statement = app.store.sqlite!.prepare('SELECT count(*), total(numeric_value) FROM outcomes WHERE project_id = ? AND experiment_id = ?');
          return async () => statement.get(projectId, experimentId);
        })()
      : () => app.store.sql.get('SELECT count(*), sum(numeric_value) FROM outcomes WHERE project_id = ? AND experiment_id = ?', [projectId, experimentId]);
  onePassMs = stats(await sampleMs(5, onePass)).median;
  console.log(`reference: one pass over the ${outcomes} outcomes of the experiment, median ${onePassMs.toFixed(0)} ms`);
  const url = `/experiments/${experimentId}/results`;
  await time('service.results (what the CLI runs): 2 goals, 1 guardrail, CUPED', 7, () => service.results(projectId, experimentId));
  await time('service.results without CUPED', 3, () => service.results(projectId, experimentId, { cuped: false }));
  // The same report with no covariate captured (users assigned before migration 0011, or before
  // cuped_days or the event types changed): one seek per user. Alternated with the captured one.
  const captures = async (sought: boolean) => {
    const update = sought ? `UPDATE assignments SET pre_key = '~' || pre_key WHERE pre_key IS NOT NULL` : `UPDATE assignments SET pre_key = substr(pre_key, 2)`;
    if (databaseUrl === null) {
      app.store.sqlite!.prepare(update).run();
      return;
    }
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      await client.query(update);
      // Updating every row leaves their pages not all-visible: vacuumed again, as autovacuum would.
      await client.query('VACUUM ANALYZE assignments');
    } finally {
      await client.end();
    }
  };
  for (let round = 0; round < 2; round++) {
    await captures(true);
    await time('service.results, CUPED, no covariate captured (seeks)', 3, () => service.results(projectId, experimentId));
    await captures(false);
    await time('service.results, CUPED, every covariate captured', 3, () => service.results(projectId, experimentId));
  }
  await time('service.results, ?sequential=true&prior=proper', 3, () => service.results(projectId, experimentId, { sequential: true, prior: 'proper' }));
  await time(`HTTP GET ${url}`, 5, () => request(app, 'GET', url));
  await time(`HTTP GET ${url}?format=csv`, 3, () => request(app, 'GET', `${url}?format=csv`));
  await hotPathDuringResults(app, url);
  await listPages(app, experimentId);
  if (databaseUrl !== null) {
    await profileReport(app, databaseUrl, projectId, experimentId, {});
    await profileReport(app, databaseUrl, projectId, experimentId, { cuped: false });
  }

  // Without declared metrics: every event type explored, the widest one joined to assignments for
  // the multiple-variant check, and a distinct count of users with any success (cost per success).
  await request(app, 'POST', `/experiments/${experimentId}/pause`);
  await request(app, 'PATCH', `/experiments/${experimentId}`, { metrics: [] });
  await time('service.results, no declared metric (all explored)', 3, () => service.results(projectId, experimentId));
}

/** `results`: on SQLite, the app's own file in a temporary directory. */
export async function main(): Promise<void> {
  await withBenchApp('sqlite', 'promptline_bench_results', measure);
}

/**
 * `results-postgres`: the same on a fresh PostgreSQL database on PROMPTLINE_BENCH_POSTGRES_URL's
 * server, dropped at the end; first, bulk seeding checked against per-user seeding on a small one.
 */
export async function mainPostgres(): Promise<void> {
  await checkBulkSeed();
  await withBenchApp('postgres', 'promptline_bench_results', measure);
}

if (import.meta.url === `file://${process.argv[1]}`) await (process.argv[2] === 'postgres' ? mainPostgres() : main());
