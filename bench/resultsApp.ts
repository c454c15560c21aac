/**
 * The results benchmark's app and experiment: a bench app on its own data directory (and fresh
 * PostgreSQL database), bootstrapped with the benchmark's admin key; its API called through
 * app.inject; the experiment created through the API and its population seeded into the app's database.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { buildApp, type PromptlineApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { capturedCovariate, type Covariate } from '../src/modules/experiments/covariate.js';
import { withDatabase } from './benchDatabase.js';
import { seed, USERS } from './resultsSeed.js';

export const ADMIN_KEY = 'pl_a_bench-results-admin-key-0000000000000';

export async function request(app: PromptlineApp, method: 'GET' | 'POST' | 'PATCH', url: string, body?: object) {
  const res = await app.app.inject({ method, url, headers: { 'x-api-key': ADMIN_KEY }, ...(body === undefined ? {} : { payload: body }) });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return res;
}

/**
 * The benchmark's experiment, made through the API (two versions; a primary and a capped secondary
 * outcome metric, a cost guardrail, CUPED on) and started.
 */
export async function createExperiment(app: PromptlineApp): Promise<{ experimentId: string; startedAt: string; capture: Covariate | null }> {
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
export async function seedApp(
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

/** Runs `use` on a bench app with its own data directory (and database, for PostgreSQL), closed and removed afterwards. */
export async function withBenchApp<T>(
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
