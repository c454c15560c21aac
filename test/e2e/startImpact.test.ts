import { describe, expect, it } from 'vitest';
import { callServer, cliAsync, processFixtures } from '../support/processes.js';
import { timeLimit } from '../support/timeLimits.js';

/**
 * `promptline experiments start` on the server's own SQLite file: before it starts, it prints the
 * impact's warning for each variant version that serves a share of users, and how many recent
 * calls sent no external_user_id; it starts anyway (the impact is advisory).
 */
const ADMIN = 'pl_a_e2e-start-impact-admin-key-0000000000';
const { dataDir, serve } = processFixtures(ADMIN);

describe('promptline experiments start', () => {
  // a server, a CLI command, and the summary of calls on disk
  it('warns of the recent calls a variant would break, then starts', { timeout: timeLimit({ starts: 2, steps: 1 }) }, async () => {
    const dir = dataDir();
    const env = { PROMPTLINE_DATA_DIR: dir, LOG_LEVEL: 'silent' };
    // A short flush interval: the summary is on disk within a few polls.
    const server = await serve(dir, { PROMPTLINE_INPUT_SUMMARY_FLUSH_MS: '50' });
    const call = (path: string, body?: unknown, method?: string) => callServer(server.origin, path, ADMIN, body, method);
    await call('/prompts', { prompt_id: 'p', template: 'A {{x}}', labels: ['production'] });
    await call('/prompts/p/versions', { template: 'B {{x}} {{agent_name}}' });
    await call('/prompts/p/versions', { template: 'C {{x}} {{tone}}' });
    const runtime = (await call('/keys', { name: 'app', role: 'runtime' })).json.key as string;
    for (let i = 0; i < 3; i++) expect((await callServer(server.origin, '/get_prompt', runtime, { prompt_id: 'p', inputs: { x: i } })).status).toBe(200);
    await expect.poll(async () => (await call('/prompts/p/versions/2/impact', undefined, 'GET')).json.calls).toBe(3);
    await call('/experiments', {
      experiment_id: 'e1',
      prompt_id: 'p',
      variants: [
        { key: 'a', version: 1 },
        { key: 'b', version: 2 },
      ],
    });

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
  });
});
