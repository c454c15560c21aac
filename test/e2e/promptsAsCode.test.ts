import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { callServer, cliAsync, processFixtures, tempDataDir } from '../support/processes.js';
import { timeLimit } from '../support/timeLimits.js';
import { toolMissing } from '../support/tools.js';

/**
 * Prompts as code from end to end: a Git repository of prompt files, the built server and the CLI
 * (pull → edit → check → diff → push), as a CI job would run them.
 */
const ADMIN = 'pl_a_e2e-prompts-as-code-admin-key-00000000';
const { serve } = processFixtures(ADMIN);
const repos: string[] = [];
afterEach(() => {
  for (const dir of repos.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function gitRepository(): string {
  const repo = tempDataDir();
  repos.push(repo);
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'ignore' });
  git('init', '-q');
  git('config', 'user.name', 'Ada');
  git('config', 'user.email', 'ada@example.com');
  return repo;
}

const commit = (repo: string, message: string): string => {
  execFileSync('git', ['add', '-A'], { cwd: repo });
  execFileSync('git', ['commit', '-q', '-m', message], { cwd: repo });
  return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repo, encoding: 'utf8' }).trim();
};

// The files live in a Git repository, and the CLI reads each one's commit and author from git.
const noGit = toolMissing('git', 'git');

describe.skipIf(noGit !== null)(`promptline prompts${noGit === null ? '' : ` (skipped: ${noGit})`}`, () => {
  // a server and thirteen CLI commands
  it('pulls, checks, plans and pushes a Git repository of prompt files', { timeout: timeLimit({ starts: 14 }) }, async () => {
    const server = await serve();
    const call = (p: string, body?: unknown, method?: string) => callServer(server.origin, p, ADMIN, body, method);
    expect((await call('/prompts', { prompt_id: 'greet', description: 'the greeting', template: 'Hello {{name}}', labels: ['production'] })).status).toBe(201);
    const env = { PROMPTLINE_URL: server.origin, PROMPTLINE_API_KEY: ADMIN };
    const prompts = (...args: string[]) => cliAsync(['prompts', ...args], env);
    const repo = gitRepository();
    const dir = path.join(repo, 'prompts');
    const file = path.join(dir, 'greet.prompt.yaml');

    const pulled = await prompts('pull', dir);
    expect(pulled.status, pulled.stderr).toBe(0);
    expect(fs.readFileSync(file, 'utf8')).toBe(
      ['prompt_id: greet', 'description: the greeting', 'labels:', '  - production', 'template: Hello {{name}}', ''].join('\n'),
    );
    const state = fs.readFileSync(path.join(dir, '.promptline-state.json'), 'utf8');
    expect(JSON.parse(state)).toEqual({ prompts: { greet: { latest_version: 1, labels: { production: 1 } } } });
    // A second pull changes no byte.
    expect((await prompts('pull', dir)).stdout).toContain('0 file(s) written, 1 unchanged');
    expect(fs.readFileSync(path.join(dir, '.promptline-state.json'), 'utf8')).toBe(state);

    // An edit that needs nothing new of callers.
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('template: Hello {{name}}', 'template: |\n  Hello {{name}},\n  welcome back.'));
    const checked = await prompts('check', dir);
    expect([checked.status, checked.stdout.trim()]).toEqual([0, '1 file(s) valid, 0 problem(s)']);
    const head = commit(repo, 'warmer greeting');
    const diff = await prompts('diff', dir);
    expect(diff.status, diff.stderr).toBe(2);
    expect(diff.stdout).toContain('~ greet (prompts/greet.prompt.yaml): new version 2');
    expect(diff.stdout).toContain('label production: v1 -> v2');
    const pushed = await prompts('push', dir);
    expect(pushed.status, pushed.stderr).toBe(0);
    expect(pushed.stdout).toContain('Applied: 0 prompt(s) to create, 1 new version(s), 1 label move(s)');
    const v2 = (await call('/prompts/greet/versions/2', undefined, 'GET')).json;
    expect(v2).toMatchObject({ template: 'Hello {{name}},\nwelcome back.\n', labels: ['production'] });
    expect(v2.source).toEqual({ path: 'prompts/greet.prompt.yaml', commit: head, author: 'Ada <ada@example.com>' });

    // Pushed: nothing left to change, and pushing again creates nothing.
    const after = await prompts('diff', dir);
    expect([after.status, after.stdout]).toEqual([0, expect.stringContaining('No changes: the server matches the files.')]);
    expect((await prompts('push', dir)).status).toBe(0);
    expect((await call('/prompts/greet', undefined, 'GET')).json.latest_version).toBe(2);

    // A new required variable for the served label is refused, then allowed.
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('welcome back.', 'welcome back, {{tier}} member.'));
    commit(repo, 'mention the tier');
    const refused = await prompts('push', dir);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('greet: breaking: production would serve version 3');
    expect((await call('/prompts/greet', undefined, 'GET')).json.latest_version).toBe(2);
    const allowed = await prompts('push', dir, '--allow-breaking');
    expect(allowed.status, allowed.stderr).toBe(0);
    expect((await call('/prompts/greet', undefined, 'GET')).json).toMatchObject({ latest_version: 3, labels: { production: 3 } });

    // A version made on the server since the pull is a conflict.
    await call('/prompts/greet/versions', { template: 'Hi {{name}} from the console' });
    const conflicted = await prompts('diff', dir);
    expect(conflicted.status).toBe(1);
    expect(conflicted.stdout).toContain('x conflict: version 4 was created on the server since the last pull');
    const json = await prompts('diff', dir, '--json');
    expect(JSON.parse(json.stdout).prompts[0].conflicts).toEqual(['version 4 was created on the server since the last pull']);

    // What only the server can check (its providers) comes back as file:line too, and nothing is sent.
    fs.writeFileSync(path.join(dir, 'other.prompt.yaml'), 'prompt_id: other\nmodel: nope/model\ntemplate: x\n');
    const refusedModel = await prompts('push', dir);
    expect(refusedModel.status).toBe(1);
    expect(refusedModel.stderr).toContain("other.prompt.yaml:2: model: Value error, provider 'nope' is not configured");
  });

  it('check reports every problem as file:line: message, offline', async () => {
    const repo = gitRepository();
    fs.writeFileSync(path.join(repo, 'ok.prompt.yaml'), 'prompt_id: ok\ntemplate: Hi {{name}}\nvariables:\n  name: {}\n');
    fs.writeFileSync(path.join(repo, 'bad.prompt.yaml'), 'prompt_id: bad\ntemplate: |\n  Hi {{#open}}\nparams:\n  stream: true\n');
    fs.writeFileSync(path.join(repo, 'other.prompt.yaml'), 'prompt_id: wrong\ntemplate: x {{a}}\n');
    const checked = await cliAsync(['prompts', 'check', repo], { PROMPTLINE_URL: '', PROMPTLINE_API_KEY: '' });
    expect(checked.status).toBe(1);
    const shown = path.relative(path.resolve(import.meta.dirname, '../..'), repo);
    expect(checked.stderr.split('\n').filter(Boolean)).toEqual([
      `${shown}/bad.prompt.yaml:3: template: invalid template: Unclosed section "open" at 13`,
      `${shown}/bad.prompt.yaml:5: params.stream: 'stream' is set by the service and cannot be a param`,
      `${shown}/other.prompt.yaml:1: prompt_id 'wrong' does not match the file name (other.prompt.yaml)`,
    ]);
    expect(checked.stdout.trim()).toBe('1 file(s) valid, 3 problem(s)');
  });
});
