import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../../src/db/store.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function store() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'promptline-writer-'));
  dirs.push(dir);
  const s = openSqliteStore(dir, 'full');
  s.sqlite.exec('CREATE TABLE t (v INTEGER PRIMARY KEY)');
  return s;
}

describe('group-commit writer', () => {
  it('commits writes arriving in the same turn in one transaction, and resolves after the commit', async () => {
    const s = store();
    const before = s.writer.batches;
    const writes = Array.from({ length: 200 }, (_, i) => s.writer.write(async (tx) => (await tx.run('INSERT INTO t (v) VALUES (?)', [i])).changes));
    expect(s.sqlite.prepare('SELECT count(*) FROM t').pluck().get()).toBe(0); // nothing runs before the flush
    expect(await Promise.all(writes)).toEqual(Array(200).fill(1));
    expect(s.writer.batches - before).toBe(1);
    expect(s.sqlite.prepare('SELECT count(*) FROM t').pluck().get()).toBe(200);
    await s.close();
  });

  it('fails the whole batch with the storage error when the database cannot grow, and recovers when it can', async () => {
    const s = store();
    s.sqlite.exec('CREATE TABLE big (b BLOB)');
    s.sqlite.exec('VACUUM');
    s.sqlite.pragma(`max_page_count = ${s.sqlite.pragma('page_count', { simple: true }) as number}`);
    const small = s.writer.write((tx) => tx.run('INSERT INTO t (v) VALUES (1)'));
    const large = s.writer.write((tx) => tx.run('INSERT INTO big VALUES (zeroblob(100000))'));
    await expect(large).rejects.toMatchObject({ code: 'SQLITE_FULL' });
    // SQLite rolled the whole transaction back: the small write, although fine, was not committed.
    await expect(small).rejects.toMatchObject({ code: 'SQLITE_FULL' });
    expect(s.writer.storageFailure).toMatchObject({ code: 'SQLITE_FULL' });
    expect(s.sqlite.prepare('SELECT count(*) FROM t').pluck().get()).toBe(0);
    s.sqlite.pragma('max_page_count = 1073741823');
    await s.writer.write((tx) => tx.run('INSERT INTO big VALUES (zeroblob(100000))'));
    expect(s.writer.storageFailure).toBeNull();
    await s.close();
  });

  it('rolls back a failing write alone; the rest of its batch commits', async () => {
    const s = store();
    const ok1 = s.writer.write((tx) => tx.run('INSERT INTO t (v) VALUES (1)'));
    const bad = s.writer.write(async (tx) => {
      await tx.run('INSERT INTO t (v) VALUES (2)');
      await tx.run('INSERT INTO t (v) VALUES (1)'); // duplicate key: the whole op must vanish
    });
    const ok3 = s.writer.write((tx) => tx.run('INSERT INTO t (v) VALUES (3)'));
    await expect(bad).rejects.toThrow(/UNIQUE/);
    await Promise.all([ok1, ok3]);
    expect(s.sqlite.prepare('SELECT v FROM t ORDER BY v').pluck().all()).toEqual([1, 3]);
    await s.close();
  });

  it('splits very large bursts into bounded transactions', async () => {
    const s = store();
    const before = s.writer.batches;
    await Promise.all(Array.from({ length: 2500 }, (_, i) => s.writer.write((tx) => tx.run('INSERT INTO t (v) VALUES (?)', [i]))));
    expect(s.writer.batches - before).toBe(3);
    await s.close();
  });

  it('applies migrations once and records them', async () => {
    const s = store();
    const applied = s.sqlite.prepare('SELECT version FROM schema_migrations').pluck().all();
    expect(applied).toEqual(s.migrations.map((m) => m.version));
    expect(s.sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(s.sqlite.pragma('synchronous', { simple: true })).toBe(2); // FULL
    expect(s.sqlite.pragma('foreign_keys', { simple: true })).toBe(1);
    await s.close();
  });
});
