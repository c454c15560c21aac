import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMAGE, imageExists, limitFlags, runCommand } from '../../scripts/containers.mjs';
import { buildImage, chooseBase } from '../../scripts/image.mjs';
import { composeCommand, containerSetup, engineOutput, engineRemove, waitReady } from '../support/containers.js';
import { ROOT } from '../support/processes.js';

// deploy/compose.yaml run for real: PostgreSQL, two replicas of the image and nginx in front, as
// `docker compose up` (or podman-compose) runs it. The file is used as it is, with an override
// that only names the images: the one `npm run image` builds for the replicas (Compose would
// build it without the base this machine needs), and where the public postgres and nginx images
// cannot be pulled, stand-ins built here from Debian's packages on the same base
// (test/container/images/). test/unit/deploy/compose.test.ts checks the file itself everywhere.
const { engine, missing: noEngine } = containerSetup();
const compose = engine === null ? null : composeCommand(engine);
const noCompose = compose === null ? 'no compose command: install podman-compose (apt-get install podman-compose), or the docker compose plugin' : null;
if (noCompose && engine !== null && process.env.PROMPTLINE_REQUIRE_CONTAINERS === '1') throw new Error(noCompose);
const missing = noEngine ?? noCompose;
const ADMIN = 'pl_a_e2e-compose-admin-key-00000000000000';
const project = `promptline-test-${randomBytes(4).toString('hex')}`;
const PUBLIC = { postgres: 'docker.io/library/postgres:15', nginx: 'docker.io/library/nginx:1.27' };
let workDir = '';
let origin = '';
const BUILD_MS = 60 * 60_000;
const STEP_MS = 5 * 60_000;

function composeRun(args: string[], env: Record<string, string>): Promise<void> {
  const [command, ...prefix] = compose!;
  // podman-compose's `podman run`s need the limits every podman run here does (scripts/containers.mjs).
  const limits = command === 'podman-compose' ? [`--podman-run-args=${limitFlags(engine!).join(' ')}`] : [];
  return runCommand(command!, [...prefix, ...limits, '-p', project, ...args], { ...process.env, ...env });
}

/**
 * The public image if the engine has it or can pull it, else the stand-in built from `file` on
 * `base`. Stand-ins are kept, as the local base is: the next run finds their layers in the cache.
 */
async function imageFor(publicName: string, file: string, base: string): Promise<string> {
  if (
    imageExists(engine!, publicName) ||
    (await runCommand(engine!, ['pull', publicName]).then(
      () => true,
      () => false,
    ))
  )
    return publicName;
  const tag = `localhost/promptline-test-${path.basename(file, '.Dockerfile')}:latest`;
  const images = path.join(import.meta.dirname, 'images');
  await runCommand(engine!, ['build', ...limitFlags(engine!), '--build-arg', `BASE_IMAGE=${base}`, '-f', path.join(images, file), '-t', tag, images]);
  return tag;
}

async function serviceContainer(service: string): Promise<string> {
  const filters = ['--filter', `label=com.docker.compose.project=${project}`, '--filter', `label=com.docker.compose.service=${service}`];
  const name = (await engineOutput(engine!, ['ps', '-a', ...filters, '--format', '{{.Names}}'])).split('\n')[0];
  if (!name) throw new Error(`no container for the service ${service}`);
  return name;
}

/** A call made from inside a replica's container, to that replica alone (its own port 8000). */
async function callReplica(service: string, method: string, route: string, body?: unknown): Promise<{ status: number; json: any }> {
  const script = [
    `fetch('http://127.0.0.1:8000' + process.argv[1], { method: process.argv[2], headers: { 'x-api-key': '${ADMIN}', 'content-type': 'application/json' }, body: process.argv[3] })`,
    '.then(async (r) => console.log(JSON.stringify({ status: r.status, json: await r.json() })))',
  ].join('');
  const args = ['exec', await serviceContainer(service), 'node', '-e', script, route, method, ...(body === undefined ? [] : [JSON.stringify(body)])];
  return JSON.parse(await engineOutput(engine!, args));
}

async function call(method: string, route: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${origin}${route}`, {
    method,
    headers: { 'x-api-key': ADMIN, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: await res.json().catch(() => null) };
}

describe.skipIf(missing !== null)(`deploy/compose.yaml run for real${missing ? ` (skipped: ${missing})` : ''}`, () => {
  beforeAll(async () => {
    const base = await chooseBase(engine!);
    await buildImage(engine!, { base });
    const images = { postgres: await imageFor(PUBLIC.postgres, 'postgres.Dockerfile', base), nginx: await imageFor(PUBLIC.nginx, 'nginx.Dockerfile', base) };
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'promptline-compose-'));
    const override = path.join(workDir, 'images.yaml');
    const service = (image: string) => `    image: ${image}\n`;
    fs.writeFileSync(
      override,
      `services:\n  postgres:\n${service(images.postgres)}  promptline-1:\n${service(IMAGE)}  promptline-2:\n${service(IMAGE)}  balancer:\n${service(images.nginx)}`,
    );
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    await composeRun(['-f', path.join(ROOT, 'deploy', 'compose.yaml'), '-f', override, 'up', '-d'], {
      PROMPTLINE_BOOTSTRAP_ADMIN_KEY: ADMIN,
      PROMPTLINE_HOST_PORT: String(port),
    });
  }, BUILD_MS);

  afterAll(async () => {
    const labelled = `label=com.docker.compose.project=${project}`;
    const containers = await engineOutput(engine!, ['ps', '-aq', '--filter', labelled]).catch(() => '');
    for (const id of containers.split('\n').filter(Boolean)) engineRemove(engine!, 'container', id);
    const volumes = await engineOutput(engine!, ['volume', 'ls', '-q', '--filter', labelled]).catch(() => '');
    for (const name of volumes.split('\n').filter(Boolean)) engineRemove(engine!, 'volume', name);
    await engineOutput(engine!, ['network', 'rm', '-f', `${project}_default`]).catch(() => undefined);
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  });

  it(
    'serves the three runtime endpoints through nginx, from two replicas that share one PostgreSQL',
    async () => {
      await waitReady(engine!, { name: await serviceContainer('balancer'), origin }, performance.now());
      const created = await call('POST', '/prompts', {
        prompt_id: 'welcome',
        template: 'Write a one-line welcome for {{name}}.',
        model: 'echo/echo',
        labels: ['production'],
      });
      expect(created.status).toBe(201);
      // Each replica, called on its own, serves the prompt made through the balancer: they share the database.
      for (const replica of ['promptline-1', 'promptline-2']) {
        expect(await callReplica(replica, 'POST', '/get_prompt', { prompt_id: 'welcome', inputs: { name: replica } })).toEqual({
          status: 200,
          json: { prompt_text: `Write a one-line welcome for ${replica}.`, variant_assigned: null, experiment_id: null, prompt_version: 1 },
        });
      }
      const ran = await call('POST', '/run_prompt', { prompt_id: 'welcome', inputs: { name: 'Ada' }, external_user_id: 'user-42' });
      expect(ran.status).toBe(200);
      expect(ran.json.output).toBe('Write a one-line welcome for Ada.');
      const tracked = await call('POST', '/track_outcome', { prompt_run_id: ran.json.run_id, prompt_id: 'welcome', event_type: 'signup', is_success: true });
      expect(tracked).toMatchObject({ status: 200, json: { status: 'recorded' } });
      // What went through the balancer is there on each replica.
      for (const replica of ['promptline-1', 'promptline-2']) {
        const outcomes = await callReplica(replica, 'GET', `/outcomes?prompt_run_id=${ran.json.run_id}`);
        expect(outcomes.json.data.map((outcome: { event_type: string }) => outcome.event_type)).toEqual(['signup']);
      }
    },
    STEP_MS,
  );
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
