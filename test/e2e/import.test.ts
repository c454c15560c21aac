import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpClient, type ApiClient } from '../../src/cli/api/client.js';
import { runImport, type ImportOptions } from '../../src/cli/import/command.js';
import { cliAsync, ROOT, startServerOnTestBackend, tempDataDir, type RunningServer } from '../support/processes.js';
import { timeLimit } from '../support/timeLimits.js';

/** `promptline import` against a started server, on the vendors' fixtures (test/fixtures/import/). */
const ADMIN = 'pl_a_e2e-import-admin-key-000000000000000';
const FIXTURES = path.join(ROOT, 'test/fixtures/import');
// Built at run time: the docs check reads any name ending in .md here as a reference to a page.
const MD = '.md';
let server: RunningServer;
let client: ApiClient;

const SETUP_LIMIT = timeLimit({ starts: 1 }); // the server
beforeAll(async () => {
  // An `openai` provider is configured (never called here); `anthropic` is not, so its models are refused.
  server = await startServerOnTestBackend(ADMIN, {
    PROMPTLINE_PROVIDER_OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
    PROMPTLINE_PROVIDER_OPENAI_API_KEY: 'sk-test',
  });
  client = httpClient(server.origin, ADMIN);
}, SETUP_LIMIT);
afterAll(async () => server?.stop());

async function importing(file: string, options: ImportOptions): Promise<string> {
  const lines: string[] = [];
  await runImport(client, path.join(FIXTURES, file), options, (text) => lines.push(text));
  return lines.join('\n');
}
const versions = async (id: string) => (await client.request<{ data: any[] }>('GET', `/prompts/${id}/versions`)).data.reverse();
const prompt = (id: string) => client.request<any>('GET', `/prompts/${id}`);

describe('--from langfuse', () => {
  it('a dry run prints the plan and what cannot be mapped, and changes nothing', async () => {
    const out = await importing('langfuse/prompts.json', { from: 'langfuse', dryRun: true });
    expect(out).toContain('prompt movie-critic (new)\n  + version 1 from v1\n  + version 2 from v2\n  label production → version 2');
    expect(out).toContain("movie-critic v1: label 'Staging Env' does not fit");
    expect(out).toContain('conditional v1: ');
    expect(out).toMatch(/3 version\(s\) to create, 0 already there, 2 label move\(s\) \(dry run\)$/);
    await expect(prompt('movie-critic')).rejects.toMatchObject({ status: 404 });
  });

  it('imports each version in order with its labels; a model whose provider the server lacks is dropped and reported', async () => {
    const out = await importing('langfuse/prompts.json', { from: 'langfuse' });
    expect(out).toContain('movie-critic: label production → version 2');
    const critic = await versions('movie-critic');
    expect(critic.map((v) => [v.version, v.template, v.model, v.params, v.commit_message])).toEqual([
      [1, 'As a {{criticLevel}} movie critic, do you like {{movie}}?', 'openai/gpt-4o', { temperature: 0.5 }, null],
      [2, 'As a {{criticLevel}} movie critic, do you like {{movie}}? Answer in one paragraph.', 'openai/gpt-4o', { temperature: 0.7 }, 'one paragraph'],
    ]);
    expect((await prompt('movie-critic')).labels).toEqual({ production: 2 });
    const [triage] = await versions('support.triage');
    expect([triage.type, triage.model, triage.variables, triage.labels]).toEqual(['chat', null, ['product', 'ticket'], ['staging']]);
    expect(out).toContain("support.triage v1: model 'anthropic/claude-3-5-sonnet-20241022' refused by the server");
    // Nothing of the prompts whose every version was refused by the mapping.
    await expect(prompt('composed')).rejects.toMatchObject({ status: 404 });
  });

  it('running it again creates nothing: every version is already there', async () => {
    const out = await importing('langfuse/prompts.json', { from: 'langfuse' });
    expect(out).toContain('prompt movie-critic (nothing to do)\n  = v1 already there as version 1\n  = v2 already there as version 2');
    expect(out).toContain('= v1 already there as version 1');
    expect(out).toMatch(/0 version\(s\) to create, 3 already there, 0 label move\(s\)$/);
    expect(await versions('movie-critic')).toHaveLength(2);
    expect(await versions('support.triage')).toHaveLength(1);
  });

  it('a prompt that already has other versions gets the new ones after them', async () => {
    await client.request('POST', '/prompts', { body: { prompt_id: 'greeter', template: 'Older {{name}}' } });
    await importing('langfuse/single.json', { from: 'langfuse' });
    expect((await versions('greeter')).map((v) => [v.version, v.type, v.labels])).toEqual([
      [1, 'text', []],
      [2, 'chat', ['production']],
    ]);
  });
});

describe('--from openai', () => {
  it('imports the stored prompt as a chat prompt per version, then a re-run creates nothing', async () => {
    const out = await importing('openai/prompt.json', { from: 'openai' });
    expect(out).toContain('pmpt_6849a1b2c3d4e5f6 version 3: a message that is not');
    const imported = await versions('pmpt_6849a1b2c3d4e5f6');
    expect(imported.map((v) => [v.version, v.model, v.variables])).toEqual([
      [1, 'openai/gpt-4.1', ['company', 'customer_name', 'issue']],
      [2, 'openai/gpt-5', ['company', 'customer_name', 'issue']],
    ]);
    expect(imported[1].params).toMatchObject({ reasoning_effort: 'low', response_format: { type: 'json_schema' } });
    expect((await prompt('pmpt_6849a1b2c3d4e5f6')).description).toBe('Support reply');
    const again = await importing('openai/prompt.json', { from: 'openai' });
    expect(again).toMatch(/0 version\(s\) to create, 2 already there/);
    expect(await versions('pmpt_6849a1b2c3d4e5f6')).toHaveLength(2);
  });
});

describe('promptline import (the command)', () => {
  const env = { PROMPTLINE_URL: '', PROMPTLINE_API_KEY: '' };

  it('--from dir over HTTP: a prompt per file, a broken template reported, and a re-run creates nothing', { timeout: timeLimit({ starts: 2 }) }, async () => {
    const args = ['import', path.join(FIXTURES, 'dir'), '--from', 'dir', '--url', server.origin, '--api-key', ADMIN];
    const first = await cliAsync(args, env);
    expect([first.status, first.stderr]).toEqual([0, '']);
    expect(first.stdout).toContain('welcome: created version 1 from welcome.txt');
    expect(first.stdout).toMatch(/broken\.txt: not a Promptline template \(.*\): skipped/);
    expect(first.stdout).toContain(`greet: greet${MD} and greet.txt name the same prompt: neither imported`);
    expect((await versions('welcome'))[0].template).toBe('Welcome, {{name}}! You are on the {{plan}} plan.\n');
    const second = await cliAsync(args, env);
    expect(second.status).toBe(0);
    expect(second.stdout).toMatch(/0 version\(s\) to create, 2 already there/);
  });

  it('--json prints one document: the plan, what was applied and every problem', { timeout: timeLimit({ starts: 1 }) }, async () => {
    const res = await cliAsync(
      ['import', path.join(FIXTURES, 'langfuse/prompts.json'), '--from', 'langfuse', '--json', '--dry-run', '--url', server.origin, '--api-key', ADMIN],
      env,
    );
    expect(res.status).toBe(0);
    const doc = JSON.parse(res.stdout);
    expect(doc.dry_run).toBe(true);
    expect(doc.applied).toBeNull();
    expect(doc.prompts.find((p: { prompt_id: string }) => p.prompt_id === 'movie-critic')).toEqual({
      prompt_id: 'movie-critic',
      exists: true,
      versions: [
        { from: 'v1', action: 'exists', version: 1 },
        { from: 'v2', action: 'exists', version: 2 },
      ],
      labels: [],
    });
    expect(doc.problems).toContainEqual({ prompt: 'conditional', version: 'v1', reason: expect.stringContaining('not a plain {{variable}}') });
    expect(doc.counts).toEqual({ create: 0, exists: 3, labels: 0 });
  });

  it('without --url and --api-key, into the local database of --data-dir', { timeout: timeLimit({ starts: 4 }) }, async () => {
    const dataDir = tempDataDir();
    try {
      const local = { ...env, PROMPTLINE_DATA_DIR: dataDir };
      expect((await cliAsync(['projects', 'create', 'default'], local)).status).toBe(0);
      const res = await cliAsync(['import', path.join(FIXTURES, 'dir'), '--from', 'dir'], local);
      expect(res.stderr).toBe('');
      expect(res.status).toBe(0);
      const listed = await cliAsync(['prompts', 'list', '--output', 'json'], local);
      const ids = (JSON.parse(listed.stdout) as Array<{ prompt_id: string }>).map((p) => p.prompt_id);
      expect(ids).toContain('welcome');
      // Again: everything is already there, so nothing is created.
      expect((await cliAsync(['import', path.join(FIXTURES, 'dir'), '--from', 'dir'], local)).stdout).toMatch(/^0 version\(s\) to create/m);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('an unknown source, or a file that is not JSON → exit 1', { timeout: timeLimit({ starts: 2 }) }, async () => {
    const bad = await cliAsync(['import', 'x', '--from', 'notion', '--url', server.origin, '--api-key', ADMIN], env);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain("argument 'notion' is invalid");
    const notJson = await cliAsync(['import', path.join(FIXTURES, 'dir/welcome.txt'), '--from', 'langfuse', '--url', server.origin, '--api-key', ADMIN], env);
    expect(notJson.status).toBe(1);
    expect(notJson.stderr).toContain('is not JSON');
  });

  it('a read key → exit 1 with the server’s refusal, nothing created', { timeout: timeLimit({ starts: 1 }) }, async () => {
    const key = (await client.request<{ key: string }>('POST', '/keys', { body: { name: 'reader', role: 'read' } })).key;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'promptline-import-'));
    try {
      fs.writeFileSync(path.join(dir, 'fresh.txt'), 'Fresh {{x}}');
      const res = await cliAsync(['import', dir, '--from', 'dir', '--url', server.origin, '--api-key', key], env);
      expect(res.status).toBe(1);
      expect(res.stderr).toContain('Not allowed for this API key');
      await expect(prompt('fresh')).rejects.toMatchObject({ status: 404 });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
