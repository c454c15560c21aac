import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { callServer, cliAsync, processFixtures, runToExit } from '../support/processes.js';
import { timeLimit } from '../support/timeLimits.js';

const ADMIN = 'pl_a_e2e-operations-admin-key-0000000000';
const { dataDir, serve, forget } = processFixtures(ADMIN);

const call = callServer;

describe('configuration', () => {
  it('lists every bad variable, then exits 1', async () => {
    const result = await cliAsync(['serve'], {
      PORT: 'eighty',
      PROMPTLINE_DURABILITY: 'sometimes',
      LOG_LEVEL: 'loud',
      PROMPTLINE_PROVIDER_LOCAL_BASE_URL: 'not a url',
    });
    expect(result.status).toBe(1);
    for (const name of ['PORT', 'PROMPTLINE_DURABILITY', 'LOG_LEVEL', 'PROMPTLINE_PROVIDER_LOCAL_BASE_URL']) expect(result.stderr).toContain(name);
    expect(result.stderr.trim().split('\n')).toHaveLength(4);
  });

  it('a port in use is one line naming PORT, not a stack trace, from npm start and from the CLI', { timeout: timeLimit({ starts: 3 }) }, async () => {
    const first = await serve();
    const port = new URL(first.origin).port;
    const env = { PORT: port, PROMPTLINE_DATA_DIR: dataDir(), LOG_LEVEL: 'silent' };
    const direct = await runToExit(['dist/src/server.js'], env);
    expect(direct.status).toBe(1);
    expect(direct.stderr.trim()).toBe(
      `promptline: cannot listen: PORT=${port} on HOST=127.0.0.1 is already in use (choose another PORT, or stop what listens there)`,
    );
    const viaCli = await cliAsync(['serve'], env);
    expect(viaCli.status).toBe(1);
    expect(viaCli.stderr.trim()).toBe(direct.stderr.trim());
  });

  it('a start that cannot listen prints no admin key, and the next start prints one that works', { timeout: timeLimit({ starts: 2, steps: 1 }) }, async () => {
    const busy = net.createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as net.AddressInfo).port;
    const dir = dataDir();
    // No configured key: a new database gets a generated one, printed once.
    const env = { PORT: String(port), PROMPTLINE_DATA_DIR: dir, PROMPTLINE_BOOTSTRAP_ADMIN_KEY: '' };
    const failed = await runToExit(['dist/src/server.js'], env);
    await new Promise((resolve) => busy.close(resolve));
    expect(failed.status).toBe(1);
    expect(failed.stderr).toContain(`PORT=${port} on HOST=127.0.0.1 is already in use`);
    expect(failed.stdout + failed.stderr).not.toMatch(/pl_a_|admin API key/);

    const server = await serve(dir, { PROMPTLINE_BOOTSTRAP_ADMIN_KEY: '' });
    // Printed once it listens, so just after the line startServer waits for.
    const key = (await server.waitForOutput(/admin API key.*:\n\n {2}(pl_a_\S+)\n/, 'the admin key'))[1]!;
    expect((await call(server.origin, '/keys', key, undefined, 'GET')).status).toBe(200);
  });

  it('a data directory that cannot hold the database is one line naming PROMPTLINE_DATA_DIR', async () => {
    const file = path.join(dataDir(), 'a-file');
    fs.writeFileSync(file, 'not a directory');
    const res = await runToExit(['dist/src/server.js'], { PORT: '0', PROMPTLINE_DATA_DIR: path.join(file, 'data') });
    expect(res.status).toBe(1);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toContain(`promptline: PROMPTLINE_DATA_DIR=${path.join(file, 'data')} cannot hold the database (ENOTDIR`);
  });
});

describe('crash safety', () => {
  // two starts, and two bursts of requests
  it('keeps every acknowledged outcome and run after kill -9', { timeout: timeLimit({ starts: 2, steps: 2 }) }, async () => {
    const dir = dataDir();
    let server = await serve(dir);
    await call(server.origin, '/prompts', ADMIN, { prompt_id: 'p', template: 'hi {{x}}' });
    const acknowledged: string[] = [];
    const send = (i: number) => {
      const run = i % 4 === 0;
      const body = run ? { prompt_id: 'p', inputs: { x: String(i) } } : { prompt_id: 'p', external_user_id: `u${i}` };
      return call(server.origin, run ? '/run_prompt' : '/track_outcome', ADMIN, body).then(
        (res) => {
          if (res.status === 200) acknowledged.push(res.json.run_id ?? res.json.outcome_id);
        },
        () => undefined, // the connection died with the server: not acknowledged
      );
    };
    await Promise.all(Array.from({ length: 200 }, (_, i) => send(i)));
    // A second burst, killed with -9 while part of it is still in flight (once 250 are
    // acknowledged; if the whole burst ends first, the count below says how many were).
    let settled = false;
    const burst = Promise.all(Array.from({ length: 400 }, (_, i) => send(200 + i))).finally(() => (settled = true));
    while (acknowledged.length < 250 && !settled) await new Promise((r) => setImmediate(r));
    server.process.kill('SIGKILL');
    await burst;
    expect(acknowledged.length).toBeGreaterThan(250);
    forget(server);
    expect(acknowledged.length).toBeGreaterThan(0);
    server = await serve(dir);
    const stored = new Set<string>();
    for (const path of ['/runs', '/outcomes']) {
      let cursor: string | null = null;
      do {
        const page = await call(server.origin, `${path}?limit=500${cursor ? `&cursor=${cursor}` : ''}`, ADMIN, undefined, 'GET');
        for (const row of page.json.data) stored.add(row.run_id ?? row.outcome_id);
        cursor = page.json.next_cursor;
      } while (cursor);
    }
    const lost = acknowledged.filter((id) => !stored.has(id));
    expect(lost).toEqual([]);
  });

  // a start, and the stop's grace
  it('shuts down gracefully on SIGTERM with exit code 0', { timeout: timeLimit({ starts: 1, steps: 1 }) }, async () => {
    const server = await serve();
    expect((await call(server.origin, '/prompts', ADMIN, { prompt_id: 'p', template: 'x' })).status).toBe(201);
    forget(server);
    expect(await server.stop('SIGTERM')).toBe(0);
  });
});

// The CLI runs beside a live server here, so it runs without blocking this process: a keep-alive
// connection the server closed while a synchronous spawn held the event loop (a minute of CLI
// start-ups on a loaded machine) would otherwise be reused, and the next request fail.
describe("the promptline CLI on the server's database", () => {
  // a server and ten CLI commands
  it('creates projects and keys, lists and revokes them, and a running server sees it on the next request', {
    timeout: timeLimit({ starts: 11 }),
  }, async () => {
    const dir = dataDir();
    const env = { PROMPTLINE_DATA_DIR: dir, LOG_LEVEL: 'silent' };
    const server = await serve(dir);
    const project = await cliAsync(['projects', 'create', 'acme'], env);
    expect(project.status, project.stderr).toBe(0);
    expect(project.stdout).toMatch(/^ID\s+NAME\s+CREATED_AT\nprj_[0-9a-f]{32}\s+acme\s/);
    expect((await cliAsync(['projects', 'create', 'acme'], env)).stderr).toContain('already exists');
    const created = await cliAsync(['keys', 'create', '--project', 'acme', '--role', 'read', '--name', 'dash'], env);
    expect(created.status, created.stderr).toBe(0);
    const key = /key \(shown only this once\): (pl_v_\S+)/.exec(created.stdout)![1]!;
    const keyId = /(key_[0-9a-f]{32})/.exec(created.stdout)![1]!;
    expect((await call(server.origin, '/prompts', key, undefined, 'GET')).status).toBe(200);
    const listed = await cliAsync(['keys', 'list', '--project', 'acme'], env);
    expect(listed.stdout).toContain(keyId);
    expect(listed.stdout).not.toContain(key);
    // A rate limit set from the CLI bites on the server's next request.
    const limited = await cliAsync(['keys', 'update', keyId, '--project', 'acme', '--rate-limit', '1'], env);
    expect(limited.status, limited.stderr).toBe(0);
    expect(limited.stdout).toMatch(/RATE_LIMIT_PER_MINUTE[\s\S]*\s1\s/);
    const twice = [await call(server.origin, '/prompts', key, undefined, 'GET'), await call(server.origin, '/prompts', key, undefined, 'GET')];
    expect(twice.map((r) => r.status)).toEqual([200, 429]);
    expect((await cliAsync(['keys', 'update', keyId, '--project', 'acme', '--rate-limit', 'default'], env)).status).toBe(0);
    expect((await call(server.origin, '/prompts', key, undefined, 'GET')).status).toBe(200);
    expect((await cliAsync(['keys', 'update', keyId, '--project', 'acme', '--rate-limit', 'lots'], env)).stderr).toContain('expected requests per minute');
    expect((await cliAsync(['keys', 'revoke', keyId, '--project', 'acme'], env)).status).toBe(0);
    expect((await call(server.origin, '/prompts', key, undefined, 'GET')).status).toBe(401);
    expect((await cliAsync(['keys', 'create', '--project', 'acme', '--role', 'root'], env)).stderr).toContain('expected one of runtime, read, admin');
    expect((await cliAsync(['keys', 'list', '--project', 'nope'], env)).stderr).toContain('project "nope" not found');
  });

  // a server and three CLI commands
  it('says which database it uses, and never creates one by mistake', { timeout: timeLimit({ starts: 4 }) }, async () => {
    const dir = dataDir();
    const server = await serve(dir);
    await call(server.origin, '/prompts', ADMIN, { prompt_id: 'p', template: 'A {{x}}' });
    const status = await cliAsync(['--data-dir', dir, 'status'], {});
    expect(status.status, status.stderr).toBe(0);
    expect(status.stdout).toContain(`database:        ${path.join(dir, 'promptline.db')}`);
    expect(status.stdout).toMatch(/schema version: {2}\d+\n/);
    expect(status.stdout).toMatch(/projects: {8}1\n[\s\S]*prompts: {9}1\n/);
    // A folder with no database: said plainly, and nothing created there.
    const empty = dataDir();
    const wrong = await cliAsync(['keys', 'list', '--project', 'default'], { PROMPTLINE_DATA_DIR: empty });
    expect(wrong.status).toBe(1);
    expect(wrong.stderr).toContain(`no database at ${path.join(empty, 'promptline.db')}: give --data-dir`);
    expect(fs.readdirSync(empty)).toEqual([]);
    expect((await cliAsync(['--help'], {})).stdout).toContain('--data-dir <dir>');
  });

  // a server and twenty CLI commands
  it('manages experiments with JSON in and a table out', { timeout: timeLimit({ starts: 21 }) }, async () => {
    const dir = dataDir();
    const env = { PROMPTLINE_DATA_DIR: dir, LOG_LEVEL: 'silent' };
    const server = await serve(dir);
    await call(server.origin, '/prompts', ADMIN, { prompt_id: 'p', template: 'A {{x}}' });
    await call(server.origin, '/prompts/p/versions', ADMIN, { template: 'B {{x}}' });
    const spec = JSON.stringify({
      experiment_id: 'e1',
      prompt_id: 'p',
      variants: [
        { key: 'a', version: 1 },
        { key: 'b', version: 2, weight: 3 },
      ],
    });
    const created = await cliAsync(['experiments', 'create', '--json', spec], env);
    expect(created.status, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/e1\s+p\s+draft\s+a=v1@25% b=v2@75%\s+a\s+1/);
    const bad = await cliAsync(['experiments', 'create', '--json', '{"prompt_id":"p","variants":[]}'], env);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('body.variants: List should have at least 2 items after validation, not 0');
    expect((await cliAsync(['experiments', 'start', 'e1'], env)).stdout).toMatch(/e1\s+p\s+running/);
    const served = await call(server.origin, '/get_prompt', ADMIN, { prompt_id: 'p', inputs: { x: 1 }, external_user_id: 'someone' });
    expect(served.json.experiment_id).toBe('e1');
    expect((await cliAsync(['experiments', 'list', '--status', 'running'], env)).stdout).toContain('e1');
    expect((await cliAsync(['experiments', 'list', '--status', 'bogus'], env)).stderr).toContain('Allowed choices are draft, running, paused, stopped');
    expect((await cliAsync(['experiments', 'show', 'e1'], env)).stdout).toMatch(/KEY\s+VERSION\s+WEIGHT\na\s+1\s+25%\nb\s+2\s+75%/);
    await call(server.origin, '/track_outcome', ADMIN, { prompt_id: 'p', external_user_id: 'someone', event_type: 'click', is_success: true });
    // No metric declared yet: every event type is explored, and nothing decides.
    const explored = await cliAsync(['experiments', 'results', 'e1'], env);
    expect(explored.stdout).toContain('Exploratory (undeclared event types; unadjusted, never part of a decision):');
    expect(explored.stdout).toMatch(/click:success_rate\s+higher/);
    expect(explored.stdout).toContain('b: KEEP_RUNNING: Keep running: no primary metric is declared');
    expect((await cliAsync(['experiments', 'results', 'e1', '--no-explore'], env)).stdout).not.toContain('Exploratory');
    expect((await cliAsync(['experiments', 'pause', 'e1'], env)).status).toBe(0);
    const metrics = {
      metrics: [
        { event_type: 'click', kind: 'success_rate', role: 'primary' },
        { source: 'runs', kind: 'latency_ms', role: 'guardrail', cap: { percentile: 0.99 } },
      ],
      cuped: true,
    };
    expect((await cliAsync(['experiments', 'update', 'e1', '--json', JSON.stringify(metrics)], env)).status).toBe(0);
    expect((await cliAsync(['experiments', 'show', 'e1'], env)).stdout).toMatch(
      /click:success_rate\s+primary\s+higher\s*\nruns:latency_ms\s+guardrail\s+lower\s+p99\n[\s\S]*CUPED on \(14 days before exposure\)/,
    );
    const declared = await cliAsync(['experiments', 'results', 'e1', '--format', 'json'], env);
    expect(JSON.parse(declared.stdout)).toMatchObject({
      options: { explore: false, cuped: true },
      metrics: [{ name: 'click:success_rate' }],
      guardrails: [{ name: 'runs:latency_ms' }],
    });
    expect(JSON.parse((await cliAsync(['experiments', 'results', 'e1', '--format', 'json', '--no-cuped', '--explore'], env)).stdout).options).toMatchObject({
      explore: true,
      cuped: false,
    });
    expect((await cliAsync(['experiments', 'stop', 'e1', '--ship'], env)).stderr).toContain('body.ship: ship needs a winner');
    const forgotten = await cliAsync(['users', 'forget', 'someone', '--project', 'default'], env);
    expect(forgotten.stdout).toMatch(/forgotten_[0-9a-f]{32}\s+0\s+1\s+1\s+0/); // no run, one outcome, one assignment
    // One user decides nothing: the ship is refused with the API's 409 detail, as is, until overridden with a reason.
    const refused = await cliAsync(['experiments', 'stop', 'e1', '--winner', 'b', '--ship'], env);
    expect([refused.status, refused.stderr]).toEqual([
      1,
      expect.stringMatching(/^promptline: Cannot ship 'b': its decision is keep_running, not ship: "Keep running: /),
    ]);
    expect((await cliAsync(['experiments', 'stop', 'e1', '--winner', 'b', '--ship', '--override'], env)).stderr).toContain(
      'body.reason: an override needs a reason',
    );
    const shipped = await cliAsync(['experiments', 'stop', 'e1', '--winner', 'b', '--ship', '--override', '--reason', 'the operator knows better'], env);
    expect(shipped.stdout).toMatch(/stopped\s.*\sb\s/);
    expect(shipped.stdout).toContain('production now serves version 2 of p');
    const audited = (await cliAsync(['audit', '--project', 'default', '--limit', '3'], env)).stdout;
    expect(audited).toMatch(
      /cli\s+experiment\.stopped\s+experiment\s+e1\n.*cli\s+prompt\.label_moved\s+prompt\s+p\n.*cli\s+user\.forgotten\s+user\s+forgotten_/,
    );
    expect((await cliAsync(['experiments', 'start', 'e1'], env)).stderr).toContain("Experiment 'e1' is stopped: cannot start");
    // The server sees the move on its next request: the winner is served to everyone.
    const after = await call(server.origin, '/get_prompt', ADMIN, { prompt_id: 'p', inputs: { x: 1 } });
    expect(after.json).toMatchObject({ experiment_id: null, prompt_version: 2, prompt_text: 'B 1' });
  });
});
