import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { callServer, cliAsync, processFixtures } from '../support/processes.js';
import { timeLimit } from '../support/timeLimits.js';

/**
 * The built CLI against a running server over HTTP (--url and --api-key, or PROMPTLINE_URL and
 * PROMPTLINE_API_KEY), from a folder with no database: every command that has an API equivalent
 * goes through the API, acts on the key's project and is attributed to the key. Plus the label move
 * with its impact warning, over HTTP and on the local database.
 */
const ADMIN = 'pl_a_e2e-cli-http-admin-key-00000000000000';
const { dataDir, serve } = processFixtures(ADMIN);

/** A short flush interval: the summary of input names is on disk within a few polls. */
const SERVER_ENV = { PROMPTLINE_INPUT_SUMMARY_FLUSH_MS: '50', PROMPTLINE_RATE_LIMIT_PER_MINUTE: '0' };

async function serverWithPrompt() {
  const server = await serve(dataDir(), SERVER_ENV);
  const call = (path: string, body?: unknown, method?: string) => callServer(server.origin, path, ADMIN, body, method);
  await call('/prompts', { prompt_id: 'p', template: 'A {{x}}', labels: ['production'] });
  await call('/prompts/p/versions', { template: 'B {{x}} {{agent_name}}' });
  await call('/prompts/p/versions', { template: 'C {{x}}' });
  // An empty folder as the data directory: anything that worked went over HTTP.
  const env = { PROMPTLINE_DATA_DIR: dataDir(), PROMPTLINE_URL: server.origin, PROMPTLINE_API_KEY: ADMIN, LOG_LEVEL: 'silent' };
  return { server, call, env };
}

/** Three calls that send x but no agent_name, on disk in the summary the impact reads. */
async function recentCallsWithoutAgentName(server: { origin: string }, call: (path: string, body?: unknown, method?: string) => Promise<{ json: any }>) {
  const runtime = (await call('/keys', { name: 'app', role: 'runtime' })).json.key as string;
  for (let i = 0; i < 3; i++) expect((await callServer(server.origin, '/get_prompt', runtime, { prompt_id: 'p', inputs: { x: i } })).status).toBe(200);
  await expect.poll(async () => (await call('/prompts/p/versions/2/impact', undefined, 'GET')).json.calls).toBe(3);
}

/** A port nothing listens on: one the system just gave out and took back. */
async function closedPort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

const WARNING = 'warning: 3 of 3 calls in the last 24 h sent no agent_name: version 2 would answer them 422';

describe('the CLI over HTTP', () => {
  // a server and ten CLI commands
  it('manages keys, users and the audit log as the key', { timeout: timeLimit({ starts: 11 }) }, async () => {
    const { call, env } = await serverWithPrompt();
    const created = await cliAsync(['keys', 'create', '--role', 'read', '--name', 'dash'], env);
    expect(created.status, created.stderr).toBe(0);
    const keyId = /(key_[0-9a-f]{32})/.exec(created.stdout)![1]!;
    expect(created.stdout).toMatch(/key \(shown only this once\): pl_v_\S+/);
    expect((await call('/keys', undefined, 'GET')).json.data.map((k: { key_id: string }) => k.key_id)).toContain(keyId);

    const listed = await cliAsync(['keys', 'list'], env);
    expect(listed.stdout).toMatch(new RegExp(`${keyId}\\s+dash\\s+read`));
    const json = await cliAsync(['--output', 'json', 'keys', 'list'], env);
    expect(JSON.parse(json.stdout)).toEqual(expect.arrayContaining([expect.objectContaining({ key_id: keyId, name: 'dash' })]));
    const updated = await cliAsync(['keys', 'update', keyId, '--rate-limit', '7'], env);
    expect(updated.stdout).toMatch(new RegExp(`${keyId}\\s+dash\\s+read\\s+7\\s`));
    const reset = await cliAsync(['keys', 'update', keyId, '--rate-limit', 'default'], env);
    expect(reset.stdout).toMatch(new RegExp(`${keyId}\\s+dash\\s+read\\s+-\\s`));
    expect((await cliAsync(['keys', 'revoke', keyId], env)).stdout).toBe(`revoked ${keyId}\n`);
    expect((await cliAsync(['keys', 'revoke', 'key_nope'], env)).stderr).toBe("promptline: API key 'key_nope' not found\n");

    await call('/track_outcome', { prompt_id: 'p', external_user_id: 'someone', event_type: 'click', is_success: true });
    expect((await cliAsync(['users', 'forget', 'someone'], env)).stdout).toMatch(/forgotten_[0-9a-f]{32}\s+0\s+1\s+0\s+0/);
    // Changes made over HTTP are the key's, not the CLI's.
    const audited = await cliAsync(['audit', '--limit', '2'], env);
    expect(audited.stdout).toMatch(/bootstrap\S*\s+user\.forgotten\s+user\s+forgotten_[\s\S]*\s+key\.revoked\s+key\s+key_/);

    // The project is the key's: naming one is refused, not ignored.
    const named = await cliAsync(['keys', 'list', '--project', 'default'], env);
    expect([named.status, named.stderr]).toEqual([
      1,
      "promptline: --project is for the local database: over HTTP the project is the API key's (leave --project out)\n",
    ]);
  });

  // a server, eleven CLI commands, and the summary of calls on disk
  it('runs an experiment from creation to results and stop, with the start warnings', { timeout: timeLimit({ starts: 12, steps: 1 }) }, async () => {
    const { server, call, env } = await serverWithPrompt();
    await recentCallsWithoutAgentName(server, call);
    const spec = JSON.stringify({
      experiment_id: 'e1',
      prompt_id: 'p',
      variants: [
        { key: 'a', version: 1 },
        { key: 'b', version: 2 },
      ],
    });
    // The global options instead of the environment.
    const flags = ['--url', server.origin, '--api-key', ADMIN];
    const flagEnv = { PROMPTLINE_DATA_DIR: env.PROMPTLINE_DATA_DIR, LOG_LEVEL: 'silent' };
    const created = await cliAsync([...flags, 'experiments', 'create', '--json', spec], flagEnv);
    expect(created.status, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/e1\s+p\s+draft\s+a=v1@50% b=v2@50%\s+a\s+1/);
    expect((await cliAsync(['experiments', 'list'], env)).stdout).toMatch(/e1\s+p\s+draft/);
    expect((await cliAsync(['experiments', 'show', 'e1'], env)).stdout).toMatch(/KEY\s+VERSION\s+WEIGHT\na\s+1\s+50%\nb\s+2\s+50%/);

    const started = await cliAsync(['experiments', 'start', 'e1'], env);
    expect(started.status, started.stderr).toBe(0);
    expect(started.stderr).toBe(
      [
        'warning: variant b (version 2): 3 of 3 calls in the last 24 h sent no agent_name: version 2 would answer them 422',
        'warning: 3 of 3 calls in the last 24 h sent no external_user_id: while the experiment runs, such calls answer 422',
        '',
      ].join('\n'),
    );
    expect(started.stdout).toMatch(/e1\s+p\s+running/);
    expect((await call('/experiments/e1', undefined, 'GET')).json.status).toBe('running');

    await call('/get_prompt', { prompt_id: 'p', inputs: { x: 1, agent_name: 'n' }, external_user_id: 'u1' });
    await call('/track_outcome', { prompt_id: 'p', external_user_id: 'u1', event_type: 'click', is_success: true });
    const results = await cliAsync(['experiments', 'results', 'e1'], env);
    expect(results.status, results.stderr).toBe(0);
    expect(results.stdout).toContain('Exploratory (undeclared event types; unadjusted, never part of a decision):');
    expect(results.stdout).toContain('b: KEEP_RUNNING: Keep running: no primary metric is declared');
    // The same document as the API's, printed as it is.
    const report = JSON.parse((await cliAsync(['experiments', 'results', 'e1', '--format', 'json'], env)).stdout);
    expect(report).toMatchObject({ experiment_id: 'e1', options: { explore: true } });

    expect((await cliAsync(['experiments', 'pause', 'e1'], env)).stdout).toMatch(/e1\s+p\s+paused/);
    expect((await cliAsync(['experiments', 'update', 'e1', '--json', '{"coverage": 0.5}'], env)).stdout).toMatch(
      /e1\s+p\s+paused\s+a=v1@50% b=v2@50%\s+a\s+0\.5\s/,
    );
    // The API's 422 in the rule's own words.
    expect((await cliAsync(['experiments', 'stop', 'e1', '--ship'], env)).stderr).toBe(
      'promptline: body.ship: ship needs a winner: name the variant whose version goes to production\n',
    );
    const stopped = await cliAsync(['experiments', 'stop', 'e1', '--winner', 'a'], env);
    expect(stopped.stdout).toMatch(/e1\s+p\s+stopped/);
    const audited = await cliAsync(['audit', '--target', 'e1', '--limit', '1'], env);
    expect(audited.stdout).toMatch(/bootstrap\S*\s+experiment\.stopped\s+experiment\s+e1/);
  });

  // a server and eight CLI commands
  it('says clearly when the key is refused, the server is not there or the options do not fit', { timeout: timeLimit({ starts: 9 }) }, async () => {
    const { server, env } = await serverWithPrompt();
    const badKey = await cliAsync(['experiments', 'list'], { ...env, PROMPTLINE_API_KEY: 'pl_a_not-a-key' });
    expect([badKey.status, badKey.stderr]).toEqual([
      1,
      'promptline: Invalid API key (the server refused the API key: check --api-key or PROMPTLINE_API_KEY)\n',
    ]);

    const read = (await callServer(server.origin, '/keys', ADMIN, { name: 'viewer', role: 'read' })).json.key as string;
    const forbidden = await cliAsync(['keys', 'list'], { ...env, PROMPTLINE_API_KEY: read });
    expect([forbidden.status, forbidden.stderr]).toEqual([
      1,
      'promptline: Not allowed for this API key (this command needs an admin key, or a read key for what only reads)\n',
    ]);
    // A read key reads.
    expect((await cliAsync(['prompts', 'list'], { ...env, PROMPTLINE_API_KEY: read })).stdout).toMatch(/p\s+3\s+production=1/);

    const closed = await closedPort();
    const gone = await cliAsync(['keys', 'list'], { ...env, PROMPTLINE_URL: `http://127.0.0.1:${closed}` });
    expect([gone.status, gone.stderr]).toEqual([1, `promptline: cannot reach http://127.0.0.1:${closed}: connect ECONNREFUSED 127.0.0.1:${closed}\n`]);

    const noKey = await cliAsync(['audit'], { ...env, PROMPTLINE_API_KEY: '' });
    expect([noKey.status, noKey.stderr]).toEqual([1, 'promptline: --url (PROMPTLINE_URL) needs --api-key (PROMPTLINE_API_KEY): the key to call it with\n']);
    const noUrl = await cliAsync(['audit'], { ...env, PROMPTLINE_URL: '' });
    expect([noUrl.status, noUrl.stderr]).toEqual([1, 'promptline: --api-key (PROMPTLINE_API_KEY) needs --url (PROMPTLINE_URL): the server to call\n']);

    // Commands with no API equivalent do not quietly run on a local folder instead.
    const status = await cliAsync(['status'], env);
    expect(status.status).toBe(1);
    expect(status.stderr).toContain("'status' works on the local database only");
    expect((await cliAsync(['projects', 'list'], env)).stderr).toContain("'projects list' works on the local database only");
  });
});

describe('promptline prompts labels move', () => {
  // a server, five CLI commands, and the summary of calls on disk
  it('shows the impact warning and moves only with --yes, over HTTP', { timeout: timeLimit({ starts: 6, steps: 1 }) }, async () => {
    const { server, call, env } = await serverWithPrompt();
    await recentCallsWithoutAgentName(server, call);

    // Not a terminal and no --yes: the warning, exit 1, nothing moved.
    const refused = await cliAsync(['prompts', 'labels', 'move', 'p', 'production', '2'], env);
    expect([refused.status, refused.stderr]).toEqual([1, `${WARNING}\npromptline: not moved: give --yes to move the label all the same\n`]);
    expect((await call('/prompts/p', undefined, 'GET')).json.labels).toEqual({ production: 1 });

    const moved = await cliAsync(['prompts', 'labels', 'move', 'p', 'production', '2', '--yes'], env);
    expect([moved.status, moved.stderr, moved.stdout]).toEqual([0, `${WARNING}\n`, 'production of p now points at version 2 (labels: production=2)\n']);
    expect((await call('/prompts/p', undefined, 'GET')).json.labels).toEqual({ production: 2 });

    // A warning that no recent call would fail (as the console, which then asks for no tick): said, and moved without asking.
    const quiet = await cliAsync(['prompts', 'labels', 'move', 'p', 'staging', '3'], env);
    expect([quiet.status, quiet.stderr, quiet.stdout]).toEqual([
      0,
      'warning: version 3 needs x, which nothing served now needs; every call in the last 24 h whose inputs were recorded sent it\n',
      'staging of p now points at version 3 (labels: production=2 staging=3)\n',
    ]);
    const shown = await cliAsync(['prompts', 'show', 'p'], env);
    expect(shown.stdout).toMatch(/^PROMPT_ID\s+DESCRIPTION\s+LATEST_VERSION\s+LABELS\s+ARCHIVED_AT\np\s+-\s+3\s+production=2 staging=3\s+-\n/);
    expect(shown.stdout).toMatch(/\n2\s+text\s+-\s+x agent_name\s+production\s/);
    const audited = await cliAsync(['audit', '--action', 'prompt.label_moved', '--limit', '1'], env);
    expect(audited.stdout).toMatch(/bootstrap\S*\s+prompt\.label_moved\s+prompt\s+p/);
  });

  // a server, five CLI commands, and the summary of calls on disk
  it('works the same on the local database, as the CLI', { timeout: timeLimit({ starts: 6, steps: 1 }) }, async () => {
    const dir = dataDir();
    const server = await serve(dir, SERVER_ENV);
    const call = (path: string, body?: unknown, method?: string) => callServer(server.origin, path, ADMIN, body, method);
    await call('/prompts', { prompt_id: 'p', template: 'A {{x}}', labels: ['production'] });
    await call('/prompts/p/versions', { template: 'B {{x}} {{agent_name}}' });
    await recentCallsWithoutAgentName(server, call);
    const env = { PROMPTLINE_DATA_DIR: dir, LOG_LEVEL: 'silent' };

    const refused = await cliAsync(['prompts', 'labels', 'move', 'p', 'production', '2'], env);
    expect([refused.status, refused.stderr]).toEqual([1, `${WARNING}\npromptline: not moved: give --yes to move the label all the same\n`]);
    const moved = await cliAsync(['prompts', 'labels', 'move', 'p', 'production', '2', '--yes', '--project', 'default'], env);
    expect([moved.status, moved.stdout]).toEqual([0, 'production of p now points at version 2 (labels: production=2)\n']);
    // The server sees the move on its next request, and the audit log has it as the CLI's.
    expect((await call('/get_prompt', { prompt_id: 'p', inputs: { x: 1, agent_name: 'n' } })).json.prompt_version).toBe(2);
    expect((await cliAsync(['audit', '--project', 'default', '--limit', '1'], env)).stdout).toMatch(/cli\s+prompt\.label_moved\s+prompt\s+p/);
    expect((await cliAsync(['prompts', 'labels', 'move', 'nope', 'production', '1'], env)).stderr).toBe("promptline: Prompt 'nope' not found\n");
  });
});
