/**
 * The results benchmark's data: a deterministic population (one PRNG, the same rows in the same
 * order on every run and either backend) written through a row sink — SQLite prepared statements in
 * one transaction, or PostgreSQL bulk inserts from unnest() — by `seed`.
 */
import type pg from 'pg';
import type { Db } from '../src/db/open.js';
import { postgresSql } from '../src/db/postgres.js';
import { sqliteSql } from '../src/db/sql.js';
import { insertAssignment, recordExposureCalls } from '../src/modules/experiments/experiments.repo.js';
import { type Covariate, covariateParams, covariateSql } from '../src/modules/experiments/covariate.js';

export const USERS = 100_000;
const OUTCOMES_PER_USER = 10;
export const RUNS_PER_USER = 2;
const DAYS = 14;

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
export const userId = (i: number) => `user_${(Math.imul(i, 2654435761) >>> 0).toString(16).padStart(8, '0')}_${i}`;
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
