import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalRow, COPY_TABLES, copyDatabase } from '../../src/db/copy.js';
import { defaultMigrationsDir, loadMigrations, migrate } from '../../src/db/migrate.js';
import { startTestApp } from '../support/harness.js';
import { createTestDatabase } from '../support/postgres.js';
import { cliAsync, tempDataDir } from '../support/processes.js';
import { timeLimit } from '../support/timeLimits.js';

// `promptline db copy` between a SQLite file and PostgreSQL, on data the real app made, as an operator runs it.
const dirs: string[] = [];
const databases: { drop(): Promise<void> }[] = [];
let source: string;

const tempFile = (name = 'promptline.db') => {
  const dir = tempDataDir();
  dirs.push(dir);
  return path.join(dir, name);
};
async function freshPostgres(): Promise<string> {
  const db = await createTestDatabase();
  databases.push(db);
  return db.url;
}

/** Every table, rows in primary-key order, each value as SQLite's quote() shows it: storage class included (1 vs 1.0, X'..' blobs). */
function dump(file: string): Record<string, string[][]> {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const out: Record<string, string[][]> = {};
    for (const table of COPY_TABLES) {
      const info = db.pragma(`table_info(${table})`) as { name: string; pk: number }[];
      const key = info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
      const cols = info.map((c) => `quote("${c.name}")`).join(', ');
      out[table] = db
        .prepare(`SELECT ${cols} FROM ${table} ORDER BY ${key.map((c) => `"${c.name}"`).join(', ')}`)
        .raw(true)
        .all() as string[][];
    }
    return out;
  } finally {
    db.close();
  }
}
const fileHash = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');
const copy = (from: string, to: string) => cliAsync(['db', 'copy', '--from', from, '--to', to], { LOG_LEVEL: 'silent' });

beforeAll(async () => {
  const t = await startTestApp({ PROMPTLINE_WEBHOOKS_ALLOW_PRIVATE: 'on' }, { webhookTimers: false, onlineScoringSettleMs: 0 });
  try {
    const runtime = await t.keyFor('runtime');
    await t.request('POST', '/keys', { body: { name: 'ops', role: 'read', rate_limit_per_minute: 120 } });
    await t.request('POST', '/webhooks', { body: { url: 'http://127.0.0.1:9/hook', events: ['prompt.label_moved', 'prompt.version_created'] } });
    await t.request('POST', '/prompts', { body: { prompt_id: 'greet', description: 'héllo ✓ "quoted"', template: 'Hello {{name}}', model: 'echo/echo' } });
    await t.request('POST', '/prompts/greet/versions', { body: { template: 'Hi {{name}} 👋', model: 'echo/echo', commit_message: 'friendlier' } });
    expect((await t.request('PUT', '/prompts/greet/labels/production', { body: { version: 2 } })).status).toBe(200);
    const experiment = await t.request('POST', '/experiments', {
      body: {
        experiment_id: 'x1',
        prompt_id: 'greet',
        variants: [
          { key: 'a', version: 1 },
          { key: 'b', version: 2 },
        ],
        metrics: [{ event_type: 'rate', kind: 'mean', role: 'primary' }],
      },
    });
    expect(experiment.status).toBe(201);
    await t.request('POST', '/experiments/x1/start');
    // An evaluator scoring every live run (online_evaluators, and run_scores once scored below).
    expect((await t.request('POST', '/evaluators', { body: { evaluator_id: 'live', kind: 'length', max_chars: 12 } })).status).toBe(201);
    expect((await t.request('POST', '/prompts/greet/online_evaluators', { body: { evaluator_id: 'live', sample_rate: 1 } })).status).toBe(201);
    for (let i = 0; i < 40; i++) {
      const run = await t.request('POST', '/run_prompt', {
        key: runtime,
        headers: i % 10 === 0 ? { 'idempotency-key': `run-${i}` } : {},
        body: { prompt_id: 'greet', inputs: { name: `user ${i} ✓` }, external_user_id: `u${i}` },
      });
      expect(run.status).toBe(200);
      await t.request('POST', '/track_outcome', {
        key: runtime,
        body: { prompt_id: 'greet', external_user_id: `u${i}`, event_type: 'rate', numeric_value: i / 7, is_success: i % 2 === 0, metadata: { i } },
      });
      await t.request('POST', '/track_outcome', {
        key: runtime,
        body: { prompt_id: 'greet', prompt_run_id: run.json.run_id, event_type: 'note', value: `n°${i}` },
      });
    }
    // A dataset with two versions (one made from the runs) and an evaluator with its version.
    await t.request('POST', '/datasets', { body: { dataset_id: 'ds', description: 'qüestions' } });
    await t.request('POST', '/datasets/ds/items', { body: { items: [{ inputs: { name: 'x ✓' }, expected: { a: 1 }, metadata: { m: true } }] } });
    expect((await t.request('POST', '/datasets/ds/from_runs', { body: { prompt_id: 'greet', limit: 5 } })).status).toBe(201);
    // An upload left open (dataset_uploads and its staged dataset_upload_items).
    const upload = (await t.request('POST', '/datasets/ds/uploads')).json.upload_id as string;
    expect((await t.request('POST', `/datasets/ds/uploads/${upload}/items`, { body: { items: [{ inputs: { name: 'staged ✓' } }] } })).status).toBe(200);
    expect((await t.request('POST', '/evaluators', { body: { evaluator_id: 'ev', kind: 'regex', pattern: '^Hi' } })).status).toBe(201);
    await t.onlineScorer.scoreDue();
    const evaluation = await t.request('POST', '/evaluations', { body: { prompt_id: 'greet', versions: [1, 1], dataset_id: 'ds', evaluators: ['ev'] } });
    expect(evaluation.status).toBe(202);
    await t.evaluations.poll();
    await t.evaluations.idle();
    await t.inputShapes.flush(); // the summary of the calls' input names (input_shapes), written as its timer would
    expect((await t.request('POST', '/session')).status).toBe(201); // a console session (console_sessions)
    source = tempFile();
    await t.sqlite.backup(source);
  } finally {
    await t.cleanup();
  }
  // The tables the app fills only from timers, checks or while storage fails, written as it would.
  const db = new Database(source);
  db.prepare('INSERT INTO storage_probe (id, checked_at, room) VALUES (1, ?, ?)').run('2026-01-01T00:00:00.000Z', Buffer.from([0, 1, 254, 255]));
  db.prepare('INSERT INTO experiment_signals SELECT project_id, id, 1, \'{"b":"ship"}\', created_at FROM experiments').run();
  // The scheduler's tables (a rollout's lease and its timeline), as a check writes them.
  db.prepare("INSERT INTO experiment_schedule SELECT project_id, id, created_at, 'lse_1', created_at FROM experiments").run();
  db.prepare(
    `INSERT INTO experiment_checks SELECT project_id, id, 'chk_1', created_at, NULL, 'manual', 'hold', 'Holding at step 1 of 4 (5%)', 0, 5.5, '{"users":3,"guardrails":[]}' FROM experiments`,
  ).run();
  db.prepare('INSERT INTO bandit_allocations SELECT project_id, id, 0, created_at, \'{"a":0.5,"b":0.5}\', NULL, \'[]\' FROM experiments').run();
  // Doubles that only survive exactly, and an outcome with every optional field empty.
  db.prepare("UPDATE outcomes SET numeric_value = 0.1 + 0.2 WHERE rowid = (SELECT min(rowid) FROM outcomes WHERE event_type = 'rate')").run();
  db.prepare("UPDATE outcomes SET numeric_value = 1e-300 WHERE rowid = (SELECT max(rowid) FROM outcomes WHERE event_type = 'rate')").run();
  db.close();
});

afterAll(async () => {
  for (const db of databases) await db.drop();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

describe('promptline db copy', () => {
  // four CLI commands
  it('copies SQLite to PostgreSQL and back with every row of every table identical, verified by the CLI', { timeout: timeLimit({ starts: 4 }) }, async () => {
    const original = dump(source);
    for (const table of COPY_TABLES) expect(original[table]!.length, table).toBeGreaterThan(0);

    const url = await freshPostgres();
    const there = await copy(source, url);
    expect(there.status, there.stderr).toBe(0);
    const lines = there.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^TABLE\s+ROWS\s+CHECKSUM\s+OK$/);
    for (const table of COPY_TABLES) expect(there.stdout).toMatch(new RegExp(`^${table}\\s+${original[table]!.length}\\s+[0-9a-f]{16}\\s+ok$`, 'm'));
    expect(lines.at(-1)).toMatch(/^copied \d+ rows from .+ to postgres:\/\/postgres@127\.0\.0\.1:5432\/promptline_test_\w+ in [\d.]+ s, verified$/);

    const back = tempFile('local-copy.db');
    const home = await copy(url, back);
    expect(home.status, home.stderr).toBe(0);
    // The checksums printed for the same data agree whichever side computed them.
    expect(home.stdout.split('\n').slice(0, -2)).toEqual(there.stdout.split('\n').slice(0, -2));
    expect(dump(back)).toEqual(original);

    // The CLI's report of the copied experiment is the same on PostgreSQL as on the SQLite file.
    const results = (env: Record<string, string>) => cliAsync(['experiments', 'results', 'x1', '--format', 'json'], { LOG_LEVEL: 'silent', ...env });
    const onSqlite = await results({ PROMPTLINE_DATA_DIR: path.dirname(source) });
    const onPostgres = await results({ PROMPTLINE_DATA_DIR: tempDataDir(), PROMPTLINE_DATABASE_URL: url });
    expect(onSqlite.status, onSqlite.stderr).toBe(0);
    expect(onPostgres.status, onPostgres.stderr).toBe(0);
    const { generated_at: _, ...report } = JSON.parse(onSqlite.stdout);
    expect(report.variants.reduce((n: number, v: { users: number }) => n + v.users, 0)).toBe(40);
    expect({ ...JSON.parse(onPostgres.stdout), generated_at: undefined }).toEqual({ ...report, generated_at: undefined });
  });

  // two CLI commands
  it('refuses a non-empty target, PostgreSQL or SQLite, in one line, and changes nothing', { timeout: timeLimit({ starts: 2 }) }, async () => {
    const url = await freshPostgres();
    const first = await copyDatabase(source, url);
    expect(first.ok).toBe(true);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const count = async () => Number((await client.query('SELECT count(*) AS n FROM outcomes')).rows[0].n);
    const before = await count();

    const again = await copy(source, url);
    expect(again.status).toBe(1);
    expect(again.stderr.trim().split('\n')).toHaveLength(1);
    expect(again.stderr).toMatch(
      /^promptline: postgres:\/\/postgres@127\.0\.0\.1:5432\/\w+ is not empty \(table \w+ has rows\): copy only into a new, empty database$/m,
    );
    expect(await count()).toBe(before);
    await client.end();

    const hash = fileHash(source);
    const intoSqlite = await copy(url, source);
    expect(intoSqlite.status).toBe(1);
    expect(intoSqlite.stderr.trim()).toBe(`promptline: ${source} is not empty (table projects has rows): copy only into a new, empty database`);
    expect(fileHash(source)).toBe(hash);
  });

  // two CLI commands
  it('says in one line, without the password, that PostgreSQL cannot be reached; creates nothing', { timeout: timeLimit({ starts: 2 }) }, async () => {
    const target = tempFile();
    const from = await copy('postgres://postgres:secret@127.0.0.1:1/x', target);
    expect(from.status).toBe(1);
    expect(from.stderr.trim().split('\n')).toHaveLength(1);
    expect(from.stderr).toContain('promptline: cannot open postgres://postgres:***@127.0.0.1:1/x: connect ECONNREFUSED');
    expect(from.stdout + from.stderr).not.toContain('secret');
    expect(fs.existsSync(target)).toBe(false);

    const to = await copy(source, 'postgres://postgres:secret@127.0.0.1:1/x');
    expect(to.status).toBe(1);
    expect(to.stderr.trim().split('\n')).toHaveLength(1);
    expect(to.stdout + to.stderr).not.toContain('secret');
  });

  it('refuses a source of another schema version, or with a table it does not know, and leaves the target empty', async () => {
    const newer = tempFile('newer.db');
    fs.copyFileSync(source, newer);
    const db = new Database(newer);
    db.prepare("INSERT INTO schema_migrations VALUES (99, '0099_future.sql', '2030-01-01')").run();
    db.close();
    const known = Math.max(...loadMigrations(defaultMigrationsDir()).map((m) => m.version));
    await expect(copyDatabase(newer, tempFile())).rejects.toThrow(`source ${newer} has schema version 99, this Promptline's is ${known}`);

    const extra = tempFile('extra.db');
    fs.copyFileSync(source, extra);
    const withTable = new Database(extra);
    withTable.exec('CREATE TABLE surprises (id INTEGER PRIMARY KEY)');
    withTable.close();
    const url = await freshPostgres();
    await expect(copyDatabase(extra, url)).rejects.toThrow("the source has table(s) this Promptline's copy does not know: surprises");
  });

  it('orders tables so that every foreign key points to a table copied earlier, on both schemas', async () => {
    const file = tempFile();
    const db = new Database(file);
    migrate(db, loadMigrations(defaultMigrationsDir()));
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'schema_migrations'").pluck().all();
    expect([...(tables as string[])].sort()).toEqual([...COPY_TABLES].sort());
    for (const [i, table] of COPY_TABLES.entries()) {
      for (const fk of db.pragma(`foreign_key_list(${table})`) as { table: string }[]) expect(COPY_TABLES.indexOf(fk.table as never), table).toBeLessThan(i);
    }
    db.close();

    const url = await freshPostgres();
    await copyDatabase(file, url); // migrates the empty target
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const fks = await client.query<{ child: string; parent: string }>(
      "SELECT conrelid::regclass::text AS child, confrelid::regclass::text AS parent FROM pg_constraint WHERE contype = 'f'",
    );
    await client.end();
    expect(fks.rows.length).toBeGreaterThan(0);
    for (const { child, parent } of fks.rows) expect(COPY_TABLES.indexOf(parent as never), child).toBeLessThan(COPY_TABLES.indexOf(child as never));
  });

  it('encodes values so both backends hash the same data the same way, and different data differently', () => {
    expect(canonicalRow([1, 'a', Buffer.from([1, 2]), null, 0.30000000000000004])).toBe(
      canonicalRow([1, 'a', new Uint8Array([1, 2]), null, 0.30000000000000004]),
    );
    expect(canonicalRow([1n])).toBe(canonicalRow([1]));
    expect(canonicalRow([1])).not.toBe(canonicalRow(['1']));
    expect(canonicalRow([0.30000000000000004])).not.toBe(canonicalRow([0.3]));
    expect(canonicalRow([Number.POSITIVE_INFINITY])).not.toBe(canonicalRow([null]));
    expect(canonicalRow([Buffer.from('a')])).not.toBe(canonicalRow(['a']));
  });
});
