import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStore, openSqliteStore, type Store } from '../../../src/db/store.js';
import { okLatencyAtRank } from '../../../src/modules/results/runAggregates.repo.js';
import { createTestDatabase, testBackend } from '../../support/postgres.js';
import { mulberry32 } from '../../support/prng.js';

/**
 * okLatencyAtRank walks from whichever end of a variant's successful runs is nearer: every rank
 * must read the value of the ascending walk, ties and errored runs included. Runs on the backend
 * the suite runs on (a SQLite file, or with PROMPTLINE_TEST_BACKEND=postgres a PostgreSQL database
 * of its own), with the same rows on both.
 */
const P = 'prj_latency';
const EXP = 'exp_latency';
const SIZES = [1, 2, 3, 4, 7, 10, 20, 33];

let dir: string;
let database: Awaited<ReturnType<typeof createTestDatabase>> | null = null;
let store: Store;
/** Each variant's successful runs' latencies, sorted ascending: the reference. */
const sorted = new Map<string, number[]>();

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'promptline-latency-rank-'));
  if (testBackend() === 'postgres') {
    database = await createTestDatabase();
    store = await openPostgresStore(database.url);
  } else {
    store = openSqliteStore(dir, 'normal');
  }
  const random = mulberry32(7);
  let n = 0;
  await store.writer.write(async (tx) => {
    // Rows go straight into runs; the project and prompt they point to are there only for the foreign keys.
    const at = '2026-01-01T00:00:00.000Z';
    await tx.run('INSERT INTO projects (id, name, created_at) VALUES (?, ?, ?)', [P, P, at]);
    await tx.run(`INSERT INTO prompts (project_id, prompt_id, created_at) VALUES (?, 'p', ?)`, [P, at]);
    const insert = (id: string, variant: string, latency: number, status: 'ok' | 'error') =>
      tx.run(
        `INSERT INTO runs (id, project_id, prompt_id, prompt_version, experiment_id, variant, inputs, rendered,
          model_requested, latency_ms, status, attempts, created_at)
        VALUES (?, ?, 'p', 1, ?, ?, '{}', '[]', 'm', ?, ?, '[]', ?)`,
        [id, P, EXP, variant, latency, status, at],
      );
    for (const size of SIZES) {
      const variant = `v${size}`;
      const latencies: number[] = [];
      for (let i = 0; i < size; i++) {
        const latency = Math.floor(random() * 6) * 100; // few distinct values: ties
        latencies.push(latency);
        await insert(`run_${++n}`, variant, latency, 'ok');
        await insert(`run_${++n}`, variant, 5000 + latency, 'error');
      }
      sorted.set(
        variant,
        latencies.sort((a, b) => a - b),
      );
    }
  });
});
afterAll(async () => {
  await store?.close();
  await database?.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe(`okLatencyAtRank (${testBackend()})`, () => {
  it.each(SIZES)('reads the ascending walk’s value at every rank of %i successful runs', async (size) => {
    const expected = sorted.get(`v${size}`)!;
    expect(await Promise.all(expected.map((_, offset) => okLatencyAtRank(store.sql, P, EXP, `v${size}`, offset, size)))).toEqual(expected);
  });
});
