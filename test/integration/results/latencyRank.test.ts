import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/db/open.js';
import { sqliteSql } from '../../../src/db/sql.js';
import { openSqliteStore } from '../../../src/db/store.js';
import { okLatencyAtRank } from '../../../src/modules/results/results.repo.js';
import { mulberry32 } from '../../support/prng.js';

/**
 * okLatencyAtRank walks from whichever end of a variant's successful runs is nearer: every rank
 * must read the value of the ascending walk, ties and errored runs included.
 */
const P = 'prj_latency';
const EXP = 'exp_latency';
const SIZES = [1, 2, 3, 4, 7, 10, 20, 33];

let dir: string;
let db: Db;
let store: ReturnType<typeof openSqliteStore>;
/** Each variant's successful runs' latencies, sorted ascending: the reference. */
const sorted = new Map<string, number[]>();

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'promptline-latency-rank-'));
  store = openSqliteStore(dir, 'normal');
  db = store.sqlite;
  // Rows go straight into runs: the experiment and prompt rows they point to do not matter here.
  db.pragma('foreign_keys = OFF');
  const insert = db.prepare(`INSERT INTO runs (id, project_id, prompt_id, prompt_version, experiment_id, variant, inputs, rendered,
      model_requested, latency_ms, status, attempts, created_at)
    VALUES (?, ?, 'p', 1, ?, ?, '{}', '[]', 'm', ?, ?, '[]', '2026-01-01T00:00:00.000Z')`);
  const random = mulberry32(7);
  let n = 0;
  db.transaction(() => {
    for (const size of SIZES) {
      const variant = `v${size}`;
      const latencies: number[] = [];
      for (let i = 0; i < size; i++) {
        const latency = Math.floor(random() * 6) * 100; // few distinct values: ties
        latencies.push(latency);
        insert.run(`run_${++n}`, P, EXP, variant, latency, 'ok');
        insert.run(`run_${++n}`, P, EXP, variant, 5000 + latency, 'error');
      }
      sorted.set(
        variant,
        latencies.sort((a, b) => a - b),
      );
    }
  })();
});
afterAll(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('okLatencyAtRank', () => {
  it.each(SIZES)('reads the ascending walk’s value at every rank of %i successful runs', async (size) => {
    const expected = sorted.get(`v${size}`)!;
    const sql = sqliteSql(db);
    expect(await Promise.all(expected.map((_, offset) => okLatencyAtRank(sql, P, EXP, `v${size}`, offset, size)))).toEqual(expected);
  });
});
