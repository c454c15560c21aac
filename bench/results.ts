/**
 * Results at scale (1 M outcomes in < 1 s). Seeds an experiment with 100 000 exposed users, 200 000
 * runs and 1 000 000 outcomes (plus 100 000 from before exposure, for CUPED) straight into a
 * temporary SQLite file opened by the app itself (one transaction, deterministic rows), then times
 * the results computation with two goal metrics, a cost guardrail and CUPED on: the service call the
 * CLI makes, and the HTTP endpoint through app.inject.
 *
 *   npm run build && node dist/bench/results.js
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp, type PromptlineApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import type { Db } from '../src/db/open.js';
import { sqliteSql } from '../src/db/sql.js';
import { insertAssignment, recordExposureCalls } from '../src/modules/experiments/experiments.repo.js';
import { capturedCovariate, type Covariate } from '../src/modules/results/covariate.js';
import { createResultsService } from '../src/modules/results/results.service.js';

const USERS = 100_000;
const OUTCOMES_PER_USER = 10;
const RUNS_PER_USER = 2;
const DAYS = 14;
const TARGET_MS = 1000;
export const ADMIN_KEY = 'pl_a_bench-results-admin-key-0000000000000';

/** mulberry32: a small deterministic PRNG, so every run of the bench measures the same data. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), a | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const hexId = (prefix: string, n: number) => `${prefix}_${n.toString(16).padStart(32, '0')}`;
const userId = (i: number) => `user_${(Math.imul(i, 2654435761) >>> 0).toString(16).padStart(8, '0')}_${i}`;
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Seeds the experiment. Each user's assignment is written the way /get_prompt writes it
 * (insertAssignment, capturing CUPED's covariate when `capture` is given) after their pre-exposure
 * outcomes and before their outcomes after exposure, as the server would have stored them.
 */
export async function seed(db: Db, projectId: string, experimentId: string, startedAt: string, capture: Covariate | null): Promise<void> {
  const sql = sqliteSql(db);
  const random = prng(42);
  const start = Date.parse(startedAt);
  const run = db.prepare(`INSERT INTO runs (id, project_id, prompt_id, prompt_version, experiment_id, variant, external_user_id, inputs, rendered,
      model_requested, model_used, prompt_tokens, completion_tokens, total_tokens, cost_nano_usd, latency_ms, status, error, attempts, created_at)
    VALUES (?, ?, 'bench', ?, ?, ?, ?, '{}', '[]', 'openai/gpt-4o-mini', 'openai/gpt-4o-mini', ?, ?, ?, ?, ?, ?, ?, '[]', ?)`);
  const outcome = db.prepare(`INSERT INTO outcomes (id, project_id, prompt_id, prompt_run_id, external_user_id, event_type, label, numeric_value,
      is_success, experiment_id, variant, attributed_by, attributed_user, created_at)
    VALUES (?, ?, 'bench', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  let runN = 0;
  let outN = 0;
  // One transaction; the repository calls resolve at once on SQLite, so it holds no other work.
  db.exec('BEGIN');
  for (let i = 0; i < USERS; i++) {
    const user = userId(i);
    const variant = random() < 0.5 ? 'control' : 'treatment';
    const version = variant === 'control' ? 1 : 2;
    const seen = start + Math.floor((i / USERS) * DAYS * 86_400_000);
    const calls = 1 + Math.floor(random() * 5);
    const runIds: string[] = [];
    for (let r = 0; r < RUNS_PER_USER; r++) {
      const id = hexId('run', ++runN);
      runIds.push(id);
      const failed = random() < 0.02;
      const promptTokens = 200 + Math.floor(random() * 300);
      const completionTokens = failed ? 0 : 50 + Math.floor(random() * 200);
      run.run(
        id,
        projectId,
        version,
        experimentId,
        variant,
        user,
        promptTokens,
        completionTokens,
        promptTokens + completionTokens,
        failed ? 0 : promptTokens * 150 + completionTokens * 600,
        150 + Math.floor(random() * 1800),
        failed ? 'error' : 'ok',
        failed ? 'timeout' : null,
        iso(seen + r * 1000),
      );
    }
    const rate = variant === 'control' ? 0.1 : 0.115;
    // Half the users were active in the week before their first exposure: CUPED's covariate.
    if (i % 2 === 0) {
      const before = iso(seen - 3 * 86_400_000);
      outcome.run(hexId('out', ++outN), projectId, null, user, 'click', null, null, random() < 0.1 ? 1 : 0, null, null, 'none', null, before);
      outcome.run(hexId('out', ++outN), projectId, null, user, 'rating', null, 1 + Math.floor(random() * 5), null, null, null, 'none', null, before);
    }
    await insertAssignment(sql, projectId, experimentId, user, variant, iso(seen), capture);
    await recordExposureCalls(sql, projectId, experimentId, user, calls - 1, iso(seen + 60_000));
    for (let k = 0; k < OUTCOMES_PER_USER; k++) {
      const at = iso(seen + 3_600_000 + k * 1000);
      const byRun = k % 2 === 0;
      const common = [projectId, byRun ? runIds[k % RUNS_PER_USER]! : null, user] as const;
      if (k < 4) {
        outcome.run(
          hexId('out', ++outN),
          ...common,
          'click',
          null,
          null,
          random() < rate ? 1 : 0,
          experimentId,
          variant,
          byRun ? 'run' : 'assignment',
          user,
          at,
        );
      } else if (k < 8) {
        outcome.run(
          hexId('out', ++outN),
          ...common,
          'rating',
          null,
          1 + Math.floor(random() * 5),
          null,
          experimentId,
          variant,
          byRun ? 'run' : 'assignment',
          user,
          at,
        );
      } else {
        const up = random() < 0.6;
        outcome.run(
          hexId('out', ++outN),
          ...common,
          'feedback',
          up ? 'thumbs_up' : 'thumbs_down',
          null,
          up ? 1 : 0,
          experimentId,
          variant,
          byRun ? 'run' : 'assignment',
          user,
          at,
        );
      }
    }
  }
  for (let k = 0; k < 500; k++) {
    outcome.run(hexId('out', ++outN), projectId, null, null, 'click', null, null, 1, null, null, 'none', null, iso(start + k * 1000));
  }
  db.exec('COMMIT');
}

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

async function time(label: string, repeat: number, action: () => Promise<unknown> | unknown): Promise<void> {
  await action(); // warm-up: statement preparation and the page cache
  const samples: number[] = [];
  for (let i = 0; i < repeat; i++) {
    const started = performance.now();
    await action();
    samples.push(performance.now() - started);
  }
  const { median, max } = stats(samples);
  console.log(
    `${label.padEnd(58)} median ${median.toFixed(0).padStart(5)} ms  max ${max.toFixed(0).padStart(5)} ms  ` +
      `(${repeat} runs)  median/target ${(median / TARGET_MS).toFixed(2)}  median/one pass ${(median / onePassMs).toFixed(1)}`,
  );
}

async function request(app: PromptlineApp, method: 'GET' | 'POST' | 'PATCH', url: string, body?: object) {
  const res = await app.app.inject({ method, url, headers: { 'x-api-key': ADMIN_KEY }, ...(body === undefined ? {} : { payload: body }) });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return res;
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
  const report = request(app, 'GET', url).finally(() => (computing = false));
  while (computing) {
    const started = performance.now();
    await request(app, 'POST', '/get_prompt', { prompt_id: 'bench', inputs: { q: 'x' }, external_user_id: 'bench-user' });
    during.push(performance.now() - started);
  }
  await report;
  console.log(
    `/get_prompt while a report computes: ${during.length} calls, max ${stats(during).max.toFixed(1)} ms ` +
      `(alone: max ${stats(alone).max.toFixed(1)} ms, median ${stats(alone).median.toFixed(2)} ms)`,
  );
}

/**
 * Management lists over the same million outcomes and 200 000 runs: each page should cost about what
 * it returns, whatever the history behind it. Reference: reading one run by id, in the same run.
 */
async function listPages(app: PromptlineApp, experimentId: string): Promise<void> {
  const page = async (url: string) => (await request(app, 'GET', url)).json() as { data: Array<{ run_id?: string }>; next_cursor: string | null };
  const sample = async (action: () => Promise<unknown>) => {
    await action();
    const samples: number[] = [];
    for (let i = 0; i < 20; i++) {
      const started = performance.now();
      await action();
      samples.push(performance.now() - started);
    }
    return stats(samples);
  };
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

/**
 * The benchmark's experiment, made through the API (two versions; a primary and a capped secondary
 * outcome metric, a cost guardrail, CUPED on) and started, with its population seeded. Shared with
 * the console's results-page benchmark.
 */
export async function seededExperiment(app: PromptlineApp, projectId: string): Promise<string> {
  await request(app, 'POST', '/prompts', { prompt_id: 'bench', template: 'v1 {{q}}' });
  await request(app, 'POST', '/prompts/bench/versions', { template: 'v2 {{q}}' });
  const created = await request(app, 'POST', '/experiments', {
    experiment_id: 'bench-results',
    prompt_id: 'bench',
    variants: [
      { key: 'control', version: 1 },
      { key: 'treatment', version: 2 },
    ],
    metrics: [
      { event_type: 'click', kind: 'success_rate', role: 'primary' },
      { event_type: 'rating', kind: 'mean', role: 'secondary', cap: { percentile: 0.99 } },
      { source: 'runs', kind: 'cost_usd', role: 'guardrail' },
    ],
    cuped: true,
  });
  const experimentId = created.json().experiment_id as string;
  const startedAt = (await request(app, 'POST', `/experiments/${experimentId}/start`)).json().started_at as string;
  await seed(app.store.sqlite!, projectId, experimentId, startedAt, capturedCovariate(created.json()));
  return experimentId;
}

/** The app on a fresh data directory, bootstrapped with the benchmark's admin key, and that key's project. */
export async function benchApp(dataDir: string): Promise<{ app: PromptlineApp; projectId: string }> {
  const { config, errors } = loadConfig({ PROMPTLINE_DATA_DIR: dataDir, LOG_LEVEL: 'silent', PROMPTLINE_BOOTSTRAP_ADMIN_KEY: ADMIN_KEY });
  if (config === null) throw new Error(errors.join('; '));
  const app = await buildApp(config);
  await app.bootstrap();
  return { app, projectId: (await app.keys.authenticate(ADMIN_KEY))!.projectId };
}

export async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'promptline-bench-results-'));
  const { app, projectId } = await benchApp(dataDir);
  try {
    const seeding = performance.now();
    const experimentId = await seededExperiment(app, projectId);
    const outcomes = app.store.sqlite!.prepare('SELECT count(*) FROM outcomes WHERE experiment_id = ?').pluck().get(experimentId);
    console.log(
      `results bench: ${USERS} users, ${outcomes} outcomes, ${USERS * RUNS_PER_USER} runs seeded in ${((performance.now() - seeding) / 1000).toFixed(1)} s; target ${TARGET_MS} ms`,
    );

    const service = createResultsService(app.store);
    const onePass = app.store.sqlite!.prepare('SELECT count(*), total(numeric_value) FROM outcomes WHERE project_id = ? AND experiment_id = ?');
    onePass.get(projectId, experimentId);
    const passes: number[] = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      onePass.get(projectId, experimentId);
      passes.push(performance.now() - started);
    }
    onePassMs = stats(passes).median;
    console.log(`reference: one pass over the ${outcomes} outcomes of the experiment, median ${onePassMs.toFixed(0)} ms`);
    const url = `/experiments/${experimentId}/results`;
    await time('service.results (what the CLI runs): 2 goals, 1 guardrail, CUPED', 7, () => service.results(projectId, experimentId));
    await time('service.results without CUPED', 3, () => service.results(projectId, experimentId, { cuped: false }));
    // The same report with no covariate captured (users assigned before migration 0011, or before
    // cuped_days or the event types changed): one seek per user. Alternated with the captured one.
    const captures = (sought: boolean) =>
      app.store
        .sqlite!.prepare(
          sought ? `UPDATE assignments SET pre_key = '~' || pre_key WHERE pre_key IS NOT NULL` : `UPDATE assignments SET pre_key = substr(pre_key, 2)`,
        )
        .run();
    for (let round = 0; round < 2; round++) {
      captures(true);
      await time('service.results, CUPED, no covariate captured (seeks)', 3, () => service.results(projectId, experimentId));
      captures(false);
      await time('service.results, CUPED, every covariate captured', 3, () => service.results(projectId, experimentId));
    }
    await time('service.results, ?sequential=true&prior=proper', 3, () => service.results(projectId, experimentId, { sequential: true, prior: 'proper' }));
    await time(`HTTP GET ${url}`, 5, () => request(app, 'GET', url));
    await time(`HTTP GET ${url}?format=csv`, 3, () => request(app, 'GET', `${url}?format=csv`));
    await hotPathDuringResults(app, url);
    await listPages(app, experimentId);

    // Without declared metrics: every event type explored, the widest one joined to assignments for
    // the multiple-variant check, and a distinct count of users with any success (cost per success).
    await request(app, 'POST', `/experiments/${experimentId}/pause`);
    await request(app, 'PATCH', `/experiments/${experimentId}`, { metrics: [] });
    await time('service.results, no declared metric (all explored)', 3, () => service.results(projectId, experimentId));
  } finally {
    await app.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
