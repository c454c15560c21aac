/**
 * Results at scale (1 M outcomes in < 1 s). Seeds an experiment with 100 000 exposed users, 200 000
 * runs and 1 000 000 outcomes (plus 100 000 from before exposure, for CUPED) straight into the
 * app's own database, deterministic rows — a temporary SQLite file (one transaction), or a fresh
 * PostgreSQL database (bulk inserts, dropped at the end) — then times the results computation with
 * two goal metrics, a cost guardrail and CUPED on: the service call the CLI makes, and the HTTP
 * endpoint through app.inject, and whether /get_prompt keeps answering while a report computes.
 *
 *   npm run build && node dist/bench/run.js results             # SQLite
 *   npm run build && node dist/bench/run.js results-postgres    # PostgreSQL (PROMPTLINE_BENCH_POSTGRES_URL)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import pg from 'pg';
import { buildApp, type PromptlineApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import type { Db } from '../src/db/open.js';
import { postgresSql, translate } from '../src/db/postgres.js';
import { type Sql, type SqlParams, sqliteSql } from '../src/db/sql.js';
import { insertAssignment, recordExposureCalls } from '../src/modules/experiments/experiments.repo.js';
import { capturedCovariate, type Covariate, covariateParams, covariateSql } from '../src/modules/results/covariate.js';
import type { ResultsOptions } from '../src/modules/results/measured.js';
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

/** One user's assignment as /get_prompt leaves it: first seen, then `calls` exposures in all, the last at `lastSeen`. */
interface Exposure {
  user: string;
  variant: string;
  firstSeen: string;
  calls: number;
  lastSeen: string;
}

/**
 * Where seed() puts its rows, in the order it makes them. `run` and `outcome` take the values of
 * the INSERT statements below, in their order; `assign` is reached after the user's pre-exposure
 * outcomes and before their outcomes after exposure.
 */
interface RowSink {
  run(row: unknown[]): void;
  outcome(row: unknown[]): void;
  assign(exposure: Exposure): Promise<void>;
  /** Writes what is left; resolves to the milliseconds spent on assignments written at the end (bulk), else 0. */
  finish(): Promise<number>;
}

/** Where the benchmark's rows go: the app's SQLite connection, or a pg client on its PostgreSQL database. */
export type SeedTarget =
  | { backend: 'sqlite'; db: Db }
  /**
   * `bulk`: rows in chunks, assignments (with their covariate) in one INSERT … SELECT per chunk after
   * every outcome is in; `per-user`: each assignment through insertAssignment as /get_prompt writes
   * it, after that user's pre-exposure outcomes are flushed (only for checking bulk against it: a
   * round trip per row).
   */
  | { backend: 'postgres'; client: pg.ClientBase; assignments: 'bulk' | 'per-user' };

const RUN_COLUMNS = `id, project_id, prompt_id, prompt_version, experiment_id, variant, external_user_id, inputs, rendered,
      model_requested, model_used, prompt_tokens, completion_tokens, total_tokens, cost_nano_usd, latency_ms, status, error, attempts, created_at`;
const OUTCOME_COLUMNS = `id, project_id, prompt_id, prompt_run_id, external_user_id, event_type, label, numeric_value,
      is_success, experiment_id, variant, attributed_by, attributed_user, created_at`;

/**
 * SQLite: prepared statements in one transaction, each assignment through the repository as
 * /get_prompt writes it. The repository calls resolve at once on SQLite, so the transaction holds no
 * other work.
 */
function sqliteSink(db: Db, projectId: string, experimentId: string, capture: Covariate | null): RowSink {
  const sql = sqliteSql(db);
  const run = db.prepare(`INSERT INTO runs (${RUN_COLUMNS})
    VALUES (?, ?, 'bench', ?, ?, ?, ?, '{}', '[]', 'openai/gpt-4o-mini', 'openai/gpt-4o-mini', ?, ?, ?, ?, ?, ?, ?, '[]', ?)`);
  const outcome = db.prepare(`INSERT INTO outcomes (${OUTCOME_COLUMNS}) VALUES (?, ?, 'bench', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  db.exec('BEGIN');
  return {
    run: (row) => void run.run(...row),
    outcome: (row) => void outcome.run(...row),
    async assign(e) {
      await insertAssignment(sql, projectId, experimentId, e.user, e.variant, e.firstSeen, capture);
      await recordExposureCalls(sql, projectId, experimentId, e.user, e.calls - 1, e.lastSeen);
    },
    async finish() {
      db.exec('COMMIT');
      return 0;
    },
  };
}

/** Rows buffered column by column, inserted CHUNK at a time from unnest() of one array per column. */
const CHUNK = 10_000;

/** Queries one after the other on one client (pg no longer queues them itself), each sent when the previous one is done. */
function serially(client: pg.ClientBase) {
  let tail: Promise<unknown> = Promise.resolve();
  return (text: string, values: unknown[]) => {
    const query = tail.then(() => client.query(text, values));
    query.catch(() => undefined); // surfaces when awaited (columnBuffer's ready or drain)
    tail = query;
    return query;
  };
}

function columnBuffer(query: ReturnType<typeof serially>, insert: string, width: number) {
  let columns: unknown[][] = Array.from({ length: width }, () => []);
  // Chunks are sent while the next ones are generated.
  const sent: Array<Promise<unknown>> = [];
  const send = () => {
    if (columns[0]!.length === 0) return;
    sent.push(query(insert, columns));
    columns = Array.from({ length: width }, () => []);
  };
  return {
    push(row: unknown[]) {
      for (let j = 0; j < width; j++) columns[j]!.push(row[j]);
      if (columns[0]!.length >= CHUNK) send();
    },
    /** Back-pressure: at most one chunk left in flight. */
    async ready() {
      while (sent.length > 1) await sent.shift();
    },
    /** Every buffered row inserted. */
    async drain() {
      send();
      while (sent.length > 0) await sent.shift();
    },
  };
}

const unnest = (types: readonly string[]) => `unnest(${types.map((t, i) => `$${i + 1}::${t}[]`).join(', ')})`;

function postgresSink(client: pg.ClientBase, assignments: 'bulk' | 'per-user', projectId: string, experimentId: string, capture: Covariate | null): RowSink {
  const query = serially(client);
  const runs = columnBuffer(
    query,
    `INSERT INTO runs (${RUN_COLUMNS})
    SELECT r.id, r.project_id, 'bench', r.version, r.experiment_id, r.variant, r.user_id, '{}', '[]', 'openai/gpt-4o-mini', 'openai/gpt-4o-mini',
      r.pt, r.ct, r.tt, r.cost, r.latency, r.status, r.error, '[]', r.created_at
    FROM ${unnest(['text', 'text', 'bigint', 'text', 'text', 'text', 'bigint', 'bigint', 'bigint', 'bigint', 'bigint', 'text', 'text', 'text'])}
      AS r(id, project_id, version, experiment_id, variant, user_id, pt, ct, tt, cost, latency, status, error, created_at)`,
    14,
  );
  const outcomes = columnBuffer(
    query,
    `INSERT INTO outcomes (${OUTCOME_COLUMNS})
    SELECT o.id, o.project_id, 'bench', o.run_id, o.user_id, o.event_type, o.label, o.numeric_value, o.is_success, o.experiment_id, o.variant,
      o.attributed_by, o.attributed_user, o.created_at
    FROM ${unnest(['text', 'text', 'text', 'text', 'text', 'text', 'float8', 'bigint', 'text', 'text', 'text', 'text', 'text'])}
      AS o(id, project_id, run_id, user_id, event_type, label, numeric_value, is_success, experiment_id, variant, attributed_by, attributed_user, created_at)`,
    13,
  );
  const sql = postgresSql(client);
  const exposures: Exposure[] = [];
  return {
    run: (row) => runs.push(row),
    outcome: (row) => outcomes.push(row),
    async assign(e) {
      if (assignments === 'bulk') {
        exposures.push(e);
        await Promise.all([runs.ready(), outcomes.ready()]);
        return;
      }
      await Promise.all([runs.drain(), outcomes.drain()]);
      await insertAssignment(sql, projectId, experimentId, e.user, e.variant, e.firstSeen, capture);
      await recordExposureCalls(sql, projectId, experimentId, e.user, e.calls - 1, e.lastSeen);
    },
    async finish() {
      await Promise.all([runs.drain(), outcomes.drain()]);
      const started = performance.now();
      // Every outcome is in, so each covariate reads the same window insertAssignment would have
      // read at first exposure: the window ends at first_seen, and none of a user's outcomes after
      // it (nor anyone else's) can fall in it. calls and last_seen are what recordExposureCalls
      // leaves: calls - 1 added to the first call, last_seen the later of the two instants.
      for (let i = 0; i < exposures.length; i += CHUNK) {
        const chunk = exposures.slice(i, i + CHUNK);
        await sql.run(
          `INSERT INTO assignments (project_id, experiment_id, external_user_id, variant, first_seen, last_seen, calls, pre_key, pre)
          SELECT a.project_id, a.experiment_id, a.external_user_id, a.variant, a.first_seen,
            CASE WHEN a.first_seen > a.last_seen THEN a.first_seen ELSE a.last_seen END, a.calls,
            ${capture === null ? 'NULL, NULL' : `@key, ${covariateSql(sql.dialect, capture, 'a.project_id', 'a.external_user_id', 'a.first_seen')}`}
          FROM (SELECT CAST(@project AS text) AS project_id, CAST(@experiment AS text) AS experiment_id, u.*
            FROM unnest(CAST(@users AS text[]), CAST(@variants AS text[]), CAST(@firstSeen AS text[]), CAST(@lastSeen AS text[]), CAST(@calls AS bigint[]))
              AS u(external_user_id, variant, first_seen, last_seen, calls)) a
          ON CONFLICT DO NOTHING`,
          {
            project: projectId,
            experiment: experimentId,
            users: chunk.map((e) => e.user),
            variants: chunk.map((e) => e.variant),
            firstSeen: chunk.map((e) => e.firstSeen),
            lastSeen: chunk.map((e) => e.lastSeen),
            calls: chunk.map((e) => e.calls),
            ...(capture === null ? {} : { key: capture.key, ...covariateParams(capture) }),
          },
        );
      }
      return performance.now() - started;
    },
  };
}

/**
 * Seeds the experiment, the same rows in the same order on either backend (one PRNG, called in the
 * same order). Each user's assignment is written as /get_prompt writes it (insertAssignment,
 * capturing CUPED's covariate when `capture` is given) after their pre-exposure outcomes and before
 * their outcomes after exposure, as the server would have stored them — or, in bulk on PostgreSQL,
 * after all outcomes with the same covariate (see postgresSink).
 */
export async function seed(
  target: SeedTarget,
  projectId: string,
  experimentId: string,
  startedAt: string,
  capture: Covariate | null,
  users = USERS,
): Promise<number> {
  const sink =
    target.backend === 'sqlite'
      ? sqliteSink(target.db, projectId, experimentId, capture)
      : postgresSink(target.client, target.assignments, projectId, experimentId, capture);
  const random = prng(42);
  const start = Date.parse(startedAt);
  let runN = 0;
  let outN = 0;
  for (let i = 0; i < users; i++) {
    const user = userId(i);
    const variant = random() < 0.5 ? 'control' : 'treatment';
    const version = variant === 'control' ? 1 : 2;
    const seen = start + Math.floor((i / users) * DAYS * 86_400_000);
    const calls = 1 + Math.floor(random() * 5);
    const runIds: string[] = [];
    for (let r = 0; r < RUNS_PER_USER; r++) {
      const id = hexId('run', ++runN);
      runIds.push(id);
      const failed = random() < 0.02;
      const promptTokens = 200 + Math.floor(random() * 300);
      const completionTokens = failed ? 0 : 50 + Math.floor(random() * 200);
      sink.run([
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
      ]);
    }
    const rate = variant === 'control' ? 0.1 : 0.115;
    // Half the users were active in the week before their first exposure: CUPED's covariate.
    if (i % 2 === 0) {
      const before = iso(seen - 3 * 86_400_000);
      sink.outcome([hexId('out', ++outN), projectId, null, user, 'click', null, null, random() < 0.1 ? 1 : 0, null, null, 'none', null, before]);
      sink.outcome([hexId('out', ++outN), projectId, null, user, 'rating', null, 1 + Math.floor(random() * 5), null, null, null, 'none', null, before]);
    }
    await sink.assign({ user, variant, firstSeen: iso(seen), calls, lastSeen: iso(seen + 60_000) });
    for (let k = 0; k < OUTCOMES_PER_USER; k++) {
      const at = iso(seen + 3_600_000 + k * 1000);
      const byRun = k % 2 === 0;
      const common = [projectId, byRun ? runIds[k % RUNS_PER_USER]! : null, user];
      const attribution = [experimentId, variant, byRun ? 'run' : 'assignment', user, at];
      if (k < 4) {
        sink.outcome([hexId('out', ++outN), ...common, 'click', null, null, random() < rate ? 1 : 0, ...attribution]);
      } else if (k < 8) {
        sink.outcome([hexId('out', ++outN), ...common, 'rating', null, 1 + Math.floor(random() * 5), null, ...attribution]);
      } else {
        const up = random() < 0.6;
        sink.outcome([hexId('out', ++outN), ...common, 'feedback', up ? 'thumbs_up' : 'thumbs_down', null, up ? 1 : 0, ...attribution]);
      }
    }
  }
  for (let k = 0; k < 500; k++) {
    sink.outcome([hexId('out', ++outN), projectId, null, null, 'click', null, null, 1, null, null, 'none', null, iso(start + k * 1000)]);
  }
  return sink.finish();
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
 * outcome metric, a cost guardrail, CUPED on) and started.
 */
async function createExperiment(app: PromptlineApp): Promise<{ experimentId: string; startedAt: string; capture: Covariate | null }> {
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
  return { experimentId, startedAt, capture: capturedCovariate(created.json()) };
}

/**
 * Seeds into the app's own database: its SQLite connection, or (databaseUrl given) a pg client of
 * the seed's own on the app's PostgreSQL database, closed when done.
 */
async function seedApp(
  app: PromptlineApp,
  databaseUrl: string | null,
  projectId: string,
  e: { experimentId: string; startedAt: string; capture: Covariate | null },
  users = USERS,
  assignments: 'bulk' | 'per-user' = 'bulk',
): Promise<void> {
  if (databaseUrl === null) {
    await seed({ backend: 'sqlite', db: app.store.sqlite! }, projectId, e.experimentId, e.startedAt, e.capture, users);
    return;
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    // Bench rows only: a crash loses the database, which is dropped anyway.
    await client.query('SET synchronous_commit = off');
    const started = performance.now();
    const assignmentsMs = await seed({ backend: 'postgres', client, assignments }, projectId, e.experimentId, e.startedAt, e.capture, users);
    const seeded = performance.now();
    // Index-only scans (every report's) skip the heap only for pages the visibility map marks
    // all-visible, which VACUUM sets; a production database has autovacuum, which would have run by
    // the time a million outcomes are in. ANALYZE gives the planner the tables' statistics.
    await client.query('VACUUM ANALYZE assignments, outcomes, runs');
    if (users === USERS)
      console.log(
        `PostgreSQL seeding: runs and outcomes ${((seeded - started - assignmentsMs) / 1000).toFixed(1)} s, assignments with their covariate ` +
          `${(assignmentsMs / 1000).toFixed(1)} s, VACUUM ANALYZE ${((performance.now() - seeded) / 1000).toFixed(1)} s`,
      );
  } finally {
    await client.end();
  }
}

/**
 * The benchmark's experiment with its population seeded, in the app's database (PostgreSQL when
 * `databaseUrl`, the app's, is given). Shared with the console's results-page benchmark.
 */
export async function seededExperiment(app: PromptlineApp, projectId: string, databaseUrl: string | null = null): Promise<string> {
  const e = await createExperiment(app);
  await seedApp(app, databaseUrl, projectId, e);
  return e.experimentId;
}

/** The app on a fresh data directory (and PostgreSQL database, when given), bootstrapped with the benchmark's admin key, and that key's project. */
export async function benchApp(dataDir: string, databaseUrl: string | null = null): Promise<{ app: PromptlineApp; projectId: string }> {
  const { config, errors } = loadConfig({
    PROMPTLINE_DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    PROMPTLINE_BOOTSTRAP_ADMIN_KEY: ADMIN_KEY,
    ...(databaseUrl === null ? {} : { PROMPTLINE_DATABASE_URL: databaseUrl }),
  });
  if (config === null) throw new Error(errors.join('; '));
  const app = await buildApp(config);
  await app.bootstrap();
  return { app, projectId: (await app.keys.authenticate(ADMIN_KEY))!.projectId };
}

const SERVER_URL = process.env.PROMPTLINE_BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A fresh PostgreSQL database for `use`, dropped afterwards whatever happens. */
async function withDatabase<T>(name: string, use: (url: string) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: SERVER_URL });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}`);
    try {
      const url = new URL(SERVER_URL);
      url.pathname = `/${name}`;
      return await use(url.toString());
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    }
  } finally {
    await admin.end();
  }
}

/** Runs `use` on a bench app with its own data directory (and database, for PostgreSQL), closed and removed afterwards. */
async function withBenchApp<T>(
  backend: 'sqlite' | 'postgres',
  name: string,
  use: (app: PromptlineApp, projectId: string, databaseUrl: string | null) => Promise<T>,
): Promise<T> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `promptline-${name.replaceAll('_', '-')}-`));
  const inApp = async (databaseUrl: string | null) => {
    const { app, projectId } = await benchApp(dataDir, databaseUrl);
    try {
      return await use(app, projectId, databaseUrl);
    } finally {
      await app.close();
    }
  };
  try {
    return backend === 'sqlite' ? await inApp(null) : await withDatabase(`${name}_${process.pid}`, inApp);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const CHECK_USERS = 2_000;
const CHECK_START = '2026-01-05T08:00:00.000Z';

/** Every assignment of the experiment, the captured covariate parsed (SQLite and PostgreSQL render JSON numbers differently). */
async function assignmentRows(app: PromptlineApp, experimentId: string): Promise<string[]> {
  const rows = await app.store.sql.all<Record<string, unknown>>(
    `SELECT external_user_id, variant, first_seen, last_seen, calls, pre_key, pre FROM assignments WHERE experiment_id = ? ORDER BY external_user_id`,
    [experimentId],
  );
  return rows.map((r) => JSON.stringify({ ...r, calls: Number(r.calls), pre: r.pre === null ? null : JSON.parse(r.pre as string) }));
}

/** Every seeded run and outcome, as comparable text (the project's id differs between apps). */
async function seededRows(app: PromptlineApp): Promise<string[]> {
  const runs = await app.store.sql.all<Record<string, unknown>>(
    `SELECT id, prompt_version, experiment_id, variant, external_user_id, prompt_tokens, completion_tokens, total_tokens, cost_nano_usd,
      latency_ms, status, error, created_at FROM runs ORDER BY id`,
  );
  const outcomes = await app.store.sql.all<Record<string, unknown>>(
    `SELECT id, prompt_run_id, external_user_id, event_type, label, numeric_value, is_success, experiment_id, variant, attributed_by,
      attributed_user, created_at FROM outcomes ORDER BY id`,
  );
  // BIGINT and NUMERIC arrive as numbers on PostgreSQL too (src/db/postgres.ts), REAL 3.0 as 3 from SQLite.
  return [...runs, ...outcomes].map((row) => JSON.stringify(row));
}

/**
 * Bulk seeding on PostgreSQL checked on a small population: the same runs and outcomes as on
 * SQLite, and the same assignments (calls, last_seen, the captured covariate) as per-user
 * insertAssignment/recordExposureCalls on either backend.
 */
async function checkBulkSeed(): Promise<void> {
  const seeded = async (backend: 'sqlite' | 'postgres', assignments: 'bulk' | 'per-user') =>
    withBenchApp(backend, `promptline_bench_results_check_${assignments.replace('-', '_')}`, async (app, projectId, databaseUrl) => {
      const e = await createExperiment(app);
      const started = performance.now();
      await seedApp(app, databaseUrl, projectId, { ...e, startedAt: CHECK_START }, CHECK_USERS, assignments);
      const ms = performance.now() - started;
      return { ms, assignments: await assignmentRows(app, e.experimentId), rows: await seededRows(app) };
    });
  const sqlite = await seeded('sqlite', 'per-user');
  const perUser = await seeded('postgres', 'per-user');
  const bulk = await seeded('postgres', 'bulk');
  const differing = (a: string[], b: string[]) => (a.length !== b.length ? Math.max(a.length, b.length) : a.filter((row, i) => row !== b[i]).length);
  const captured = bulk.assignments.filter((row) => !row.endsWith('"pre":null}')).length;
  const problems = [
    differing(bulk.assignments, perUser.assignments) && `${differing(bulk.assignments, perUser.assignments)} assignments differ from per-user insertAssignment`,
    differing(bulk.assignments, sqlite.assignments) && `${differing(bulk.assignments, sqlite.assignments)} assignments differ from SQLite's`,
    differing(bulk.rows, sqlite.rows) && `${differing(bulk.rows, sqlite.rows)} runs/outcomes differ from SQLite's`,
    captured === 0 && 'no covariate captured',
  ].filter(Boolean);
  if (problems.length > 0) throw new Error(`bulk seeding on PostgreSQL is not what per-user seeding writes: ${problems.join('; ')}`);
  console.log(
    `check (${CHECK_USERS} users): PostgreSQL bulk seed = per-user insertAssignment on PostgreSQL = SQLite's rows ` +
      `(${bulk.assignments.length} assignments, ${captured} with a captured covariate, ${bulk.rows.length} runs and outcomes); ` +
      `seeding took ${sqlite.ms.toFixed(0)} ms on SQLite, ${perUser.ms.toFixed(0)} ms per-user and ${bulk.ms.toFixed(0)} ms bulk on PostgreSQL`,
  );
}

/** One statement as a report ran it: its text, the parameters of its slowest call, and its calls' time. */
interface StatementTime {
  sql: string;
  params: SqlParams | undefined;
  calls: number;
  totalMs: number;
  slowestMs: number;
}

/**
 * Where one PostgreSQL report spends its time: the report's statements timed one by one (wrapping
 * the Sql its read snapshot hands over, the report computed in this thread), then the heaviest ones
 * run again under EXPLAIN (ANALYZE, BUFFERS) with the parameters of their slowest call, in a
 * REPEATABLE READ transaction like the report's.
 */
async function profileReport(
  app: PromptlineApp,
  databaseUrl: string,
  projectId: string,
  experimentId: string,
  options: Partial<ResultsOptions>,
  /** Session settings tried for the report's transaction (SET LOCAL …), none: the server's. */
  settings: readonly string[] = [],
  /** How many of the heaviest statements to EXPLAIN. */
  explain = 3,
): Promise<void> {
  const statements = new Map<string, StatementTime>();
  const timed = (sql: Sql): Sql => {
    const wrap =
      <R>(call: (text: string, params?: SqlParams) => Promise<R>) =>
      async (text: string, params?: SqlParams): Promise<R> => {
        const started = performance.now();
        try {
          return await call(text, params);
        } finally {
          const ms = performance.now() - started;
          const known = statements.get(text) ?? { sql: text, params, calls: 0, totalMs: 0, slowestMs: 0 };
          statements.set(text, known);
          known.calls++;
          known.totalMs += ms;
          if (ms >= known.slowestMs) Object.assign(known, { slowestMs: ms, params });
        }
      };
    return {
      dialect: sql.dialect,
      all: wrap((t, p) => sql.all(t, p)),
      get: wrap((t, p) => sql.get(t, p)),
      column: wrap((t, p) => sql.column(t, p)),
      value: wrap((t, p) => sql.value(t, p)),
      run: wrap((t, p) => sql.run(t, p)),
    };
  };
  const service = createResultsService({
    readSnapshot: (read) =>
      app.store.readSnapshot(async (sql) => {
        for (const setting of settings) await sql.run(`SET LOCAL ${setting}`);
        return read(timed(sql));
      }),
    clock: app.store.clock,
  });
  await service.results(projectId, experimentId, options); // warm-up, as time() does
  statements.clear();
  const started = performance.now();
  await service.results(projectId, experimentId, options);
  const reportMs = performance.now() - started;
  const all = [...statements.values()].sort((a, b) => b.totalMs - a.totalMs);
  const inSql = all.reduce((ms, s) => ms + s.totalMs, 0);
  const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();
  console.log(
    `\nPostgreSQL profile of one report (${JSON.stringify(options)}${settings.length > 0 ? `, SET LOCAL ${settings.join(', ')}` : ''}): ${reportMs.toFixed(0)} ms in all, ${inSql.toFixed(0)} ms in ${all.reduce((n, s) => n + s.calls, 0)} statements`,
  );
  for (const s of all.slice(0, 8))
    console.log(
      `  ${s.totalMs.toFixed(0).padStart(5)} ms  ${String(s.calls).padStart(2)}×  slowest ${s.slowestMs.toFixed(0).padStart(4)} ms  ${oneLine(s.sql).slice(0, 150)}`,
    );
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    for (const s of all.slice(0, explain)) {
      const { text } = translate(s.sql);
      const values =
        s.params === undefined ? [] : Array.isArray(s.params) ? [...s.params] : translate(s.sql).names!.map((n) => (s.params as Record<string, unknown>)[n]);
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      try {
        const plan = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, values);
        console.log(`\n  EXPLAIN (ANALYZE, BUFFERS) ${oneLine(s.sql).slice(0, 110)}…  params ${JSON.stringify(s.params).slice(0, 160)}`);
        for (const row of plan.rows) console.log(`    ${row['QUERY PLAN']}`);
      } finally {
        await client.query('ROLLBACK');
      }
    }
  } finally {
    await client.end();
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

  const service = createResultsService(app.store);
  const onePass =
    databaseUrl === null
      ? (() => {
          const statement = app.store.sqlite!.prepare('SELECT count(*), total(numeric_value) FROM outcomes WHERE project_id = ? AND experiment_id = ?');
          return async () => statement.get(projectId, experimentId);
        })()
      : () => app.store.sql.get('SELECT count(*), sum(numeric_value) FROM outcomes WHERE project_id = ? AND experiment_id = ?', [projectId, experimentId]);
  await onePass();
  const passes: number[] = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    await onePass();
    passes.push(performance.now() - started);
  }
  onePassMs = stats(passes).median;
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
    // What the server's defaults cost a report on this machine: JIT compiles the heaviest
    // statements (planned costs are far above jit_above_cost), and parallel workers start on 2 cores.
    await profileReport(app, databaseUrl, projectId, experimentId, {}, ['jit = off'], 0);
    await profileReport(app, databaseUrl, projectId, experimentId, {}, ['jit = off', 'max_parallel_workers_per_gather = 0'], 0);
    await profileReport(app, databaseUrl, projectId, experimentId, { cuped: false }, ['jit = off', 'max_parallel_workers_per_gather = 0'], 0);
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
