import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliAsync, processFixtures, type RunningServer } from '../support/processes.js';
import { timeLimit } from '../support/timeLimits.js';

// `promptline db backup|restore` on the database a running server uses, as an operator runs them.
const ADMIN = 'pl_a_e2e-backup-admin-key-00000000000000';
const { dataDir, serve } = processFixtures(ADMIN);

async function call(server: RunningServer, p: string, body?: unknown, method = body === undefined ? 'GET' : 'POST') {
  const res = await fetch(`${server.origin}${p}`, {
    method,
    headers: { 'content-type': 'application/json', 'x-api-key': ADMIN },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json().catch(() => undefined)) as any };
}

async function outcomeCount(server: RunningServer): Promise<number> {
  return (await call(server, '/outcomes?limit=500')).json.data.length;
}

describe('promptline db backup and restore', () => {
  // two servers, three CLI commands, and writes while one runs
  it('copies a database while the server writes to it, and the copy serves the same data elsewhere', {
    timeout: timeLimit({ starts: 5, steps: 1 }),
  }, async () => {
    const live = dataDir();
    const server = await serve(live);
    await call(server, '/prompts', { prompt_id: 'p', template: 'Hi {{name}}', labels: ['production'] });
    for (let i = 0; i < 40; i++) await call(server, '/track_outcome', { prompt_id: 'p', external_user_id: `u${i}` });
    // Writes keep arriving while the copy is made.
    let writing = true;
    const writer = (async () => {
      let i = 0;
      for (; writing; i++) await call(server, '/track_outcome', { prompt_id: 'p', external_user_id: `during${i}` });
      return i;
    })();
    const file = path.join(dataDir(), 'copy.db');
    const backup = await cliAsync(['db', 'backup', file], { PROMPTLINE_DATA_DIR: live, LOG_LEVEL: 'silent' });
    writing = false;
    const acknowledgedDuring = await writer;
    expect(acknowledgedDuring).toBeGreaterThan(0);
    expect(backup.status, backup.stderr).toBe(0);
    expect(backup.stdout).toMatch(/^backed up .+ to .+copy\.db: \d+ bytes, schema version \d+, integrity ok/);
    expect((await cliAsync(['db', 'backup', file], { PROMPTLINE_DATA_DIR: live })).stderr).toContain('exists: give --force to overwrite it');

    const elsewhere = dataDir();
    const restore = await cliAsync(['db', 'restore', file], { PROMPTLINE_DATA_DIR: elsewhere, LOG_LEVEL: 'silent' });
    expect(restore.status, restore.stderr).toBe(0);
    const copyServer = await serve(elsewhere);
    expect((await call(copyServer, '/get_prompt', { prompt_id: 'p', inputs: { name: 'A' } })).json.prompt_text).toBe('Hi A');
    const copied = await outcomeCount(copyServer);
    expect(copied).toBeGreaterThanOrEqual(40);
    expect(copied).toBeLessThanOrEqual(await outcomeCount(server));
  });

  // a server and three CLI commands
  it('refuses to replace an existing database without --force; with it, a running server serves the restored data', {
    timeout: timeLimit({ starts: 4 }),
  }, async () => {
    const live = dataDir();
    const server = await serve(live);
    await call(server, '/prompts', { prompt_id: 'p', template: 'v1 {{name}}', labels: ['production'] });
    const file = path.join(dataDir(), 'before.db');
    expect((await cliAsync(['db', 'backup', file], { PROMPTLINE_DATA_DIR: live })).status).toBe(0);
    await call(server, '/prompts/p/versions', { template: 'v2 {{name}}', labels: ['production'] });
    expect((await call(server, '/prompts/p')).json.latest_version).toBe(2);

    const refused = await cliAsync(['db', 'restore', file], { PROMPTLINE_DATA_DIR: live });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('exists (and may be serving): give --force');
    expect((await call(server, '/prompts/p')).json.latest_version).toBe(2);

    const forced = await cliAsync(['db', 'restore', file, '--force'], { PROMPTLINE_DATA_DIR: live, LOG_LEVEL: 'silent' });
    expect(forced.status, forced.stderr).toBe(0);
    expect((await call(server, '/prompts/p')).json.latest_version).toBe(1);
    expect((await call(server, '/get_prompt', { prompt_id: 'p', inputs: { name: 'A' } })).json.prompt_text).toBe('v1 A');
  });

  // two CLI commands
  it('refuses a file that is not a sound Promptline database, and changes nothing', { timeout: timeLimit({ starts: 2 }) }, async () => {
    const dir = dataDir();
    const junk = path.join(dir, 'junk.db');
    fs.writeFileSync(junk, 'SQLite format 3\u0000 but not really a database'.repeat(200));
    const res = await cliAsync(['db', 'restore', junk], { PROMPTLINE_DATA_DIR: path.join(dir, 'data') });
    expect(res.status).toBe(1);
    expect(res.stderr).toMatch(/junk\.db (is not a SQLite database|cannot be read as a database|failed SQLite's integrity check)/);
    expect(fs.existsSync(path.join(dir, 'data', 'promptline.db'))).toBe(false);
    expect((await cliAsync(['db', 'restore', path.join(dir, 'missing.db')], { PROMPTLINE_DATA_DIR: dir })).stderr).toContain('missing.db does not exist');
  });
});
