import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/harness.js';

/**
 * A report's reads see one state of the data: on SQLite one read transaction, on PostgreSQL one
 * snapshot shared by two connections whose statements run side by side. Runs on the suite's backend.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.cleanup());

const count = "SELECT count(*) FROM projects WHERE name LIKE 'snapshot-%'";
const addProject = (n: number) =>
  t.store.writer.write((tx) =>
    tx.run('INSERT INTO projects (id, name, created_at) VALUES (?, ?, ?)', [`prj_snapshot_${n}`, `snapshot-${n}`, new Date().toISOString()]),
  );

describe('readSnapshot', () => {
  it('does not see what commits while it reads, on any of its connections, and the next one does', async () => {
    await addProject(1);
    const seen = await t.store.readSnapshot(async (sql) => {
      const before = await sql.value<number>(count);
      await addProject(2);
      // Four at once: on PostgreSQL they spread over both of the snapshot's connections.
      const during = await Promise.all([1, 2, 3, 4].map(() => sql.value<number>(count)));
      return { before, during };
    });
    expect(seen).toEqual({ before: 1, during: [1, 1, 1, 1] });
    expect(await t.store.readSnapshot((sql) => sql.value<number>(count))).toBe(2);
    expect(await t.store.sql.value<number>(count)).toBe(2);
  });

  it('gives its connections back after a read that fails, and the next read works', async () => {
    for (let i = 0; i < 12; i++) {
      await expect(t.store.readSnapshot((sql) => sql.value('SELECT * FROM no_such_table'))).rejects.toThrow(/no_such_table|no such table/);
    }
    expect(await t.store.readSnapshot((sql) => sql.value<number>(count))).toBe(2);
  });
});

describe('reports asked for at once', () => {
  it('are computed one after the other, each answered (the worker holds two connections, and a report takes both)', async () => {
    const answers = await Promise.all([1, 2, 3, 4].map(() => t.request('GET', '/experiments/nope/results')));
    expect(answers.map((res) => res.status)).toEqual([404, 404, 404, 404]);
  });
});
