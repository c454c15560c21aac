import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/harness.js';
import { givenPrompt } from '../support/fixtures.js';
import { startServer, type RunningServer } from '../support/processes.js';

// A full disk: writes answer 507, reads go on, /readyz says so, and freeing space recovers
// without a restart.

describe('the database cannot grow (SQLite max_page_count: the same SQLITE_FULL as a full disk)', () => {
  let t: TestApp;
  let runtime: string;
  beforeAll(async () => {
    t = await startTestApp();
    runtime = await t.keyFor('runtime');
    await givenPrompt(t);
  });
  afterAll(async () => {
    t.sqlite.pragma('max_page_count = 1073741823');
    await t.cleanup();
  });

  const track = (i: number) =>
    t.request('POST', '/track_outcome', { key: runtime, body: { prompt_id: 'p', external_user_id: `u${i}`, value: 'v'.repeat(4000) } });

  it('answers 507 for writes, keeps reads, and reports not ready until a probe write commits again', async () => {
    expect((await t.request('GET', '/readyz', { key: null })).status).toBe(200);
    t.sqlite.exec('VACUUM'); // no free pages left to reuse
    const pages = t.sqlite.pragma('page_count', { simple: true }) as number;
    t.sqlite.pragma(`max_page_count = ${pages}`);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => track(i)));
    const full = answers.filter((a) => a.status === 507);
    expect(full.length).toBeGreaterThan(0);
    expect(answers.every((a) => a.status === 200 || a.status === 507)).toBe(true);
    expect(full[0]!.json).toEqual({ detail: 'Storage full: the database cannot grow, so this write was not stored; reads still work' });

    expect((await t.request('POST', '/get_prompt', { key: runtime, body: { prompt_id: 'p', inputs: { name: 'A' } } })).status).toBe(200);
    expect((await t.request('GET', '/outcomes?limit=5')).status).toBe(200);
    const notReady = await t.request('GET', '/readyz', { key: null });
    expect(notReady.status).toBe(503);
    expect(notReady.json).toEqual({ status: 'not ready', reason: 'storage full: writes are failing' });

    // Space comes back: a later probe (at most one a second) commits, and writes work again.
    t.sqlite.pragma('max_page_count = 1073741823');
    await expect.poll(async () => (await t.request('GET', '/readyz', { key: null })).status, { message: '/readyz ready once space is back' }).toBe(200);
    expect((await track(99)).status).toBe(200);
  });
});

/** A small tmpfs for a real full disk; null (and the test skips, saying why) where mounting is not allowed. */
function mountTmpfs(sizeMb: number): string | null {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return null;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'promptline-fulldisk-'));
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m`, 'tmpfs', dir]);
  if (mounted.status !== 0) {
    fs.rmdirSync(dir);
    return null;
  }
  return dir;
}

const mount = mountTmpfs(8);
const ADMIN = 'pl_a_abuse-fulldisk-admin-key-00000000000';

describe.skipIf(mount === null)('a real full disk (tmpfs of 8 MiB; skipped unless root may mount one)', () => {
  let server: RunningServer;
  afterAll(async () => {
    await server?.stop('SIGKILL');
    spawnSync('umount', [mount!]);
    fs.rmSync(mount!, { recursive: true, force: true });
  });

  const call = async (p: string, body?: unknown) => {
    const res = await fetch(`${server.origin}${p}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': ADMIN },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, text: await res.text() };
  };

  /** Stores outcomes until one is refused (the WAL may still have room from before), at most 500. */
  async function writeUntilFull(prefix: string): Promise<number[]> {
    const statuses: number[] = [];
    for (let i = 0; i < 500 && statuses.at(-1) !== 507; i++) {
      statuses.push((await call('/track_outcome', { prompt_id: 'p', external_user_id: `${prefix}${i}`, value: 'v'.repeat(8000) })).status);
    }
    return statuses;
  }

  function fill(file: string): void {
    const chunk = Buffer.alloc(64 * 1024, 1);
    const fd = fs.openSync(file, 'w');
    try {
      for (;;) fs.writeSync(fd, chunk);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
    } finally {
      fs.closeSync(fd);
    }
  }

  it('507 while full, recovery when space is freed, and SIGTERM still exits 0', async () => {
    server = await startServer({ PROMPTLINE_DATA_DIR: path.join(mount!, 'data'), PROMPTLINE_BOOTSTRAP_ADMIN_KEY: ADMIN });
    expect((await call('/prompts', { prompt_id: 'p', template: 'Hi {{name}}' })).status).toBe(201);
    const filler = path.join(mount!, 'filler');
    fill(filler);

    const writes = await writeUntilFull('u');
    expect(writes.at(-1)).toBe(507);
    expect(writes.every((status) => status === 200 || status === 507)).toBe(true);
    expect((await call('/get_prompt', { prompt_id: 'p', inputs: { name: 'A' } })).status).toBe(200);
    expect((await call('/readyz')).status).toBe(503);

    fs.rmSync(filler);
    await expect.poll(async () => (await call('/readyz')).status, { message: '/readyz ready once the filler is gone' }).toBe(200);
    expect((await call('/track_outcome', { prompt_id: 'p', external_user_id: 'after' })).status).toBe(200);

    fill(filler);
    expect((await writeUntilFull('late')).at(-1)).toBe(507);
    const code = await server.stop('SIGTERM');
    expect(code).toBe(0);
    expect(server.output()).toContain('shutting down while the storage refuses writes');
    expect(server.output()).not.toContain('"level":50');
  });
});
