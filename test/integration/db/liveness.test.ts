import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { leaseOwner, newProcessId, processOf, type ProcessLiveness } from '../../../src/db/liveness.js';
import { postgresLiveness } from '../../../src/db/postgresLiveness.js';
import { processesDir, sqliteLiveness } from '../../../src/db/sqliteLiveness.js';
import { openPostgresStore, type Store } from '../../../src/db/store.js';
import { deadSeenFromAnotherProcess, startIdentityHolder } from '../../support/identityHolder.js';
import { createTestDatabase, testBackend } from '../../support/postgres.js';
import { timeLimit } from '../../support/timeLimits.js';

/**
 * Which processes on one database still run (src/db/liveness.ts): real Node processes take an
 * identity and are killed with -9, and the lock each held must be free at once, on the backend the
 * suite runs on.
 */
const opened: ProcessLiveness[] = [];
afterEach(async () => {
  for (const liveness of opened.splice(0)) await liveness.close();
});

describe('lease owners', () => {
  it('name the process that took them, and nothing for an owner of the old form', () => {
    const processId = newProcessId();
    const owner = leaseOwner(processId);
    expect(processOf(owner)).toBe(processId);
    expect(leaseOwner(processId)).not.toBe(owner);
    for (const old of ['lse_01a2534f8e7d72ddaea04e8ea933467b', 'lse_dead', '', '/lse_x', '../../etc/passwd/lse_x', `${processId.toUpperCase()}/lse_x`]) {
      expect(processOf(old)).toBeNull();
    }
  });
});

describe.skipIf(testBackend() === 'postgres')('on SQLite: a lock file per process beside the database (SQLite only)', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'promptline-liveness-'));
  });
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const open = () => {
    const liveness = sqliteLiveness(dataDir);
    opened.push(liveness);
    return liveness;
  };
  const lockFiles = () => fs.readdirSync(processesDir(dataDir)).sort();

  it('a process that runs is alive; killed with -9 it is dead at once, and its file goes', { timeout: timeLimit({ starts: 1, steps: 1 }) }, async () => {
    const holder = await startIdentityHolder('sqlite', dataDir);
    const here = open();
    expect(await here.isDead(holder.id)).toBe(false);
    expect(lockFiles()).toContain(`${holder.id}.lock`);
    await holder.kill();
    expect(await here.isDead(holder.id)).toBe(true);
    expect(lockFiles()).not.toContain(`${holder.id}.lock`);
    expect(await here.isDead(holder.id)).toBe(true); // and stays so
  });

  it('the files of processes that died before this one took its identity are removed then', { timeout: timeLimit({ starts: 2 }) }, async () => {
    const first = await startIdentityHolder('sqlite', dataDir);
    const second = await startIdentityHolder('sqlite', dataDir);
    await first.kill();
    await second.kill();
    expect(lockFiles()).toEqual(expect.arrayContaining([`${first.id}.lock`, `${second.id}.lock`]));
    const mine = await open().identity();
    expect(lockFiles()).toEqual([`${mine}.lock`]);
  });

  it('two identities in one process: each sees the other alive, a look from here leaves the lock held, and a clean close frees it', {
    timeout: timeLimit({ starts: 2 }),
  }, async () => {
    const a = open();
    const b = open();
    const idA = await a.identity();
    const idB = await b.identity();
    expect(idA).not.toBe(idB);
    expect(await b.isDead(idA)).toBe(false);
    expect(await a.isDead(idB)).toBe(false);
    // POSIX record locks belong to the process: had b's look closed a descriptor of a's file, a's lock would be gone.
    expect(await deadSeenFromAnotherProcess(dataDir, idA)).toBe(false);
    await a.close();
    expect(await b.isDead(idA)).toBe(true);
    expect(await deadSeenFromAnotherProcess(dataDir, idA)).toBe(true);
    expect(lockFiles()).toEqual([`${idB}.lock`]);
  });

  it('an owner that names no process of this folder is never taken for dead', async () => {
    const here = open();
    for (const id of ['lse_dead', '../promptline.db', 'prc_zz']) expect(await here.isDead(id)).toBe(false);
  });
});

describe.skipIf(testBackend() !== 'postgres')('on PostgreSQL: a session advisory lock per process (PostgreSQL only)', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let store: Store;
  beforeAll(async () => {
    database = await createTestDatabase();
    store = await openPostgresStore(database.url);
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });
  const open = () => {
    const liveness = postgresLiveness(database.url, null, store.sql);
    opened.push(liveness);
    return liveness;
  };

  it('a process that runs is alive; killed with -9 it is dead at once', { timeout: timeLimit({ starts: 1, steps: 1 }) }, async () => {
    const holder = await startIdentityHolder('postgres', database.url);
    const here = open();
    expect(await here.isDead(holder.id)).toBe(false);
    await holder.kill();
    // The server ends the session when the socket closes; a look at pg_locks just after may still see it.
    await expect.poll(() => here.isDead(holder.id)).toBe(true);
  });

  it('two identities in one process see each other alive; a clean close frees the lock, and a new identity is another', async () => {
    const a = open();
    const b = open();
    const idA = await a.identity();
    expect(await b.isDead(idA)).toBe(false);
    expect(await a.identity()).toBe(idA);
    await a.close();
    await expect.poll(() => b.isDead(idA)).toBe(true);
    expect(await b.identity()).not.toBe(idA);
  });

  it('an identity nobody took is dead, and an owner of another form is never taken for dead', async () => {
    const here = open();
    expect(await here.isDead(newProcessId())).toBe(true);
    expect(await here.isDead('lse_dead')).toBe(false);
  });
});
