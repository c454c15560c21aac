import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/processes.js';

// The Docker image as an operator runs it. Needs a Docker engine: where none runs (`docker info`
// fails, as on the machines this project's CI uses today), the test is skipped and says so.
const dockerRuns = spawnSync('docker', ['info'], { stdio: 'ignore' }).status === 0;
const ADMIN = 'pl_a_e2e-docker-admin-key-00000000000000';
const name = `promptline-e2e-${randomBytes(4).toString('hex')}`;

function docker(...args: string[]): string {
  const res = spawnSync('docker', args, { cwd: ROOT, encoding: 'utf8', timeout: 900_000 });
  if (res.status !== 0) throw new Error(`docker ${args.join(' ')} failed: ${res.stderr}`);
  return res.stdout.trim();
}

async function ready(origin: string): Promise<void> {
  for (let i = 0; i < 120; i++) {
    const ok = await fetch(`${origin}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${origin} never became ready`);
}

const skipped = dockerRuns ? '' : ' (skipped: no Docker engine answers `docker info`: install Docker and start its engine to run it)';

describe.skipIf(!dockerRuns)(`the Docker image${skipped}`, () => {
  afterAll(() => {
    spawnSync('docker', ['rm', '-f', name]);
    spawnSync('docker', ['volume', 'rm', '-f', name]);
    spawnSync('docker', ['image', 'rm', '-f', `${name}:test`]);
  });

  it('builds, migrates, passes /readyz, keeps its data on the volume across a restart, and stops cleanly on SIGTERM', async () => {
    docker('build', '-t', `${name}:test`, '.');
    docker('volume', 'create', name);
    docker('run', '-d', '--name', name, '-p', '127.0.0.1::8000', '-v', `${name}:/data`, '-e', `PROMPTLINE_BOOTSTRAP_ADMIN_KEY=${ADMIN}`, `${name}:test`);
    const origin = () => `http://${docker('port', name, '8000').split('\n')[0]}`;
    await ready(origin());
    const created = await fetch(`${origin()}/prompts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': ADMIN },
      body: JSON.stringify({ prompt_id: 'p', template: 'Hi {{name}}' }),
    });
    expect(created.status).toBe(201);

    docker('restart', name);
    await ready(origin());
    const kept = await fetch(`${origin()}/prompts/p`, { headers: { 'x-api-key': ADMIN } });
    expect(kept.status).toBe(200);

    docker('stop', '--time', '15', name);
    expect(docker('inspect', '--format', '{{.State.ExitCode}}', name)).toBe('0');
  }, 900_000);
});
