import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStore, type Store } from '../../../src/db/store.js';
import { createTestDatabase } from '../../support/postgres.js';

/** The group-commit writer on PostgreSQL (always: this is about that backend's transactions). */
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let store: Store;

beforeAll(async () => {
  database = await createTestDatabase();
  store = await openPostgresStore(database.url);
  await store.writer.write((tx) => tx.run('CREATE TABLE t (v BIGINT PRIMARY KEY)'));
});
afterAll(async () => {
  await store.close();
  await database.drop();
});

const count = async () => (await store.sql.value<number>('SELECT count(*) FROM t')) ?? -1;

describe('group-commit writer on PostgreSQL', () => {
  it('commits writes arriving in the same turn in one transaction, and resolves after the commit', async () => {
    const before = store.writer.batches;
    const writes = Array.from({ length: 200 }, (_, i) => store.writer.write(async (tx) => (await tx.run('INSERT INTO t (v) VALUES (?)', [i])).changes));
    expect(await Promise.all(writes)).toEqual(Array(200).fill(1));
    expect(store.writer.batches - before).toBe(1);
    expect(await count()).toBe(200);
  });

  it('rolls back a failing write alone, whether it fails in SQL or in its own code; the rest of its batch commits', async () => {
    await store.writer.write((tx) => tx.run('DELETE FROM t'));
    const ok1 = store.writer.write((tx) => tx.run('INSERT INTO t (v) VALUES (1)'));
    const duplicate = store.writer.write(async (tx) => {
      await tx.run('INSERT INTO t (v) VALUES (2)');
      await tx.run('INSERT INTO t (v) VALUES (1)'); // duplicate key: the whole op must vanish
    });
    const refused = store.writer.write(async (tx) => {
      await tx.run('INSERT INTO t (v) VALUES (4)');
      throw new Error('refused by its own rule');
    });
    const ok3 = store.writer.write((tx) => tx.run('INSERT INTO t (v) VALUES (3)'));
    await expect(duplicate).rejects.toMatchObject({ code: '23505' });
    await expect(refused).rejects.toThrow('refused by its own rule');
    await Promise.all([ok1, ok3]);
    expect(await store.sql.column<number>('SELECT v FROM t ORDER BY v')).toEqual([1, 3]);
  });
});
