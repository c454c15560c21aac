import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMAGE, limitFlags } from '../../scripts/containers.mjs';
import { buildImage, chooseBase } from '../../scripts/image.mjs';
import {
  containerSetup,
  contextWithoutNewestMigration,
  databaseStatus,
  engineOutput,
  engineRemove,
  publishedOrigin,
  type StartedContainer,
  startContainer,
  waitReady,
} from '../support/containers.js';
import { ROOT } from '../support/processes.js';

// The image as an operator runs it, built by `npm run image`'s own code (scripts/image.mjs) with
// docker or podman, whichever runs here; skipped, and saying why, where neither does. Its steps run
// in order, each on what the previous one left: a volume written by the image one migration
// older, then the current image started on it, restarted, and stopped with SIGTERM.
// "One migration older" is these sources without their newest migration, not an older release:
// building an old commit would cost a whole second build (and the git history), where this one
// shares every layer but the migrations'. Its database is the one a volume had before that
// migration, which is what the upgrade must handle; it needs the code to run on that schema, as
// it does while the newest migration is an index or a table the three runtime endpoints do not use.
const { engine, missing } = containerSetup();
const ADMIN = 'pl_a_e2e-container-admin-key-000000000000';
const id = randomBytes(4).toString('hex');
const volume = `promptline-test-${id}`;
const olderImage = `localhost/promptline:test-older-${id}`;
const older = `promptline-test-older-${id}`;
const current = `promptline-test-current-${id}`;
/** The measured figures, printed and written to test-results/ for CI's log (reported, not asserted). */
const figures: Record<string, number | string> = {};
/** The run the first container made, and every later one finds. */
let runId = '';
const BUILD_MS = 60 * 60_000;
const STEP_MS = 5 * 60_000;

async function call(origin: string, method: string, route: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${origin}${route}`, {
    method,
    headers: { 'x-api-key': ADMIN, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: await res.json().catch(() => null) };
}

/** `stop` sends the image's STOPSIGNAL (SIGTERM) and waits up to 30 s before SIGKILL: resolves with the seconds it took. */
async function stopWithSigterm(name: string): Promise<number> {
  const started = performance.now();
  await engineOutput(engine!, ['stop', '--time', '30', name]);
  return (performance.now() - started) / 1000;
}

describe.skipIf(engine === null)(`the container image${missing ? ` (skipped: ${missing})` : ''}`, () => {
  let newest = 0;
  let container: StartedContainer;

  beforeAll(async () => {
    const base = await chooseBase(engine!);
    figures.base = base;
    await buildImage(engine!, { base });
    const context = fs.mkdtempSync(path.join(os.tmpdir(), 'promptline-older-context-'));
    try {
      newest = contextWithoutNewestMigration(ROOT, context).dropped;
      await buildImage(engine!, { base, tag: olderImage, context });
    } finally {
      fs.rmSync(context, { recursive: true, force: true });
    }
    await engineOutput(engine!, ['volume', 'create', volume]);
  }, BUILD_MS);

  afterAll(() => {
    for (const name of [older, current]) engineRemove(engine!, 'container', name);
    engineRemove(engine!, 'volume', volume);
    engineRemove(engine!, 'image', olderImage);
    fs.mkdirSync(path.join(ROOT, 'test-results'), { recursive: true });
    fs.writeFileSync(path.join(ROOT, 'test-results', 'container-figures.json'), `${JSON.stringify(figures, null, 2)}\n`);
    console.log(`container figures: ${JSON.stringify(figures)}`);
  });

  it(
    'is under 350 MB, runs a supported Node.js LTS, and holds the built console but no dev dependency',
    async () => {
      const bytes = Number(await engineOutput(engine!, ['image', 'inspect', '--format', '{{.Size}}', IMAGE]));
      figures.imageMB = Math.round(bytes / 1e6);
      expect(bytes).toBeLessThan(350e6);
      const probe = [
        'console.log(JSON.stringify({',
        'node: process.versions.node,',
        "console: fs.existsSync('dist/web/index.html'),",
        "devDependencies: ['vitest', 'typescript', 'vite', '@biomejs/biome'].filter((name) => fs.existsSync('node_modules/' + name)),",
        "npm: fs.existsSync('/usr/local/lib/node_modules/npm'),",
        '}))',
      ].join('');
      const seen = JSON.parse(
        await engineOutput(engine!, [
          'run',
          '--rm',
          '--network',
          'none',
          ...limitFlags(engine!),
          IMAGE,
          'node',
          '-e',
          `const fs = require('node:fs'); ${probe}`,
        ]),
      );
      figures.node = seen.node;
      const major = Number(seen.node.split('.')[0]);
      // An LTS line (even) still supported: Node 20 reached its end of life on 2026-04-30.
      expect(major % 2 === 0 && major >= 22).toBe(true);
      expect(seen).toMatchObject({ console: true, devDependencies: [], npm: false });
    },
    STEP_MS,
  );

  it(
    'starts the image one migration older on an empty volume, as a user that is not root, and serves the three runtime endpoints',
    async () => {
      const started = performance.now();
      const old = await startContainer(engine!, { name: older, image: olderImage, volume, env: { PROMPTLINE_BOOTSTRAP_ADMIN_KEY: ADMIN } });
      await waitReady(engine!, old, started);
      expect((await databaseStatus(engine!, older))['schema version']).toBe(String(newest - 1));

      const created = await call(old.origin, 'POST', '/prompts', {
        prompt_id: 'welcome',
        template: 'Write a one-line welcome for {{name}}.',
        model: 'echo/echo',
        labels: ['production'],
      });
      const olderCode = `the current code without migration ${newest}: if it needs that migration, this step cannot be made so`;
      expect(created.status, olderCode).toBe(201);
      const rendered = await call(old.origin, 'POST', '/get_prompt', { prompt_id: 'welcome', inputs: { name: 'Ada' } });
      expect(rendered).toEqual({
        status: 200,
        json: { prompt_text: 'Write a one-line welcome for Ada.', variant_assigned: null, experiment_id: null, prompt_version: 1 },
      });
      const ran = await call(old.origin, 'POST', '/run_prompt', { prompt_id: 'welcome', inputs: { name: 'Ada' }, external_user_id: 'user-42' });
      expect(ran.status, olderCode).toBe(200);
      // echo/echo, the built-in local model, answers with the rendered prompt.
      expect(ran.json.output).toBe('Write a one-line welcome for Ada.');
      runId = ran.json.run_id;
      const tracked = await call(old.origin, 'POST', '/track_outcome', { prompt_run_id: runId, prompt_id: 'welcome', event_type: 'signup', is_success: true });
      expect(tracked.status, olderCode).toBe(200);
      expect(tracked.json.status).toBe('recorded');

      const uid = (await engineOutput(engine!, ['exec', older, 'sh', '-c', "awk '/^Uid:/ {print $2}' /proc/1/status"])).trim();
      expect(uid).toMatch(/^\d+$/);
      expect(uid).not.toBe('0');
      figures.olderSigtermToExitS = round(await stopWithSigterm(older));
      expect(await engineOutput(engine!, ['inspect', '--format', '{{.State.ExitCode}}', older])).toBe('0');
    },
    STEP_MS,
  );

  it(
    'starts the current image on that volume: the newest migration applies and the data is there',
    async () => {
      const started = performance.now();
      container = await startContainer(engine!, { name: current, image: IMAGE, volume, env: { PROMPTLINE_BOOTSTRAP_ADMIN_KEY: ADMIN } });
      figures.startToReadyS = round(await waitReady(engine!, container, started));
      const status = await databaseStatus(engine!, current);
      expect(status['schema version']).toBe(String(newest));
      expect(status).toMatchObject({ prompts: '1', runs: '1', outcomes: '1' });
      const run = await call(container.origin, 'GET', `/runs/${runId}`);
      expect(run.status).toBe(200);
      expect(run.json.output).toBe('Write a one-line welcome for Ada.');
      expect(await outcomeEvents(container.origin)).toEqual(['signup']);
      // The image's own health check, run in the container.
      if (engine === 'podman') await engineOutput(engine, ['healthcheck', 'run', current]);
      else await waitHealthy(current);
    },
    STEP_MS,
  );

  it(
    'keeps what it was given across a restart on the same volume',
    async () => {
      const tracked = await call(container.origin, 'POST', '/track_outcome', {
        prompt_run_id: runId,
        prompt_id: 'welcome',
        event_type: 'return',
        is_success: true,
      });
      expect(tracked.status).toBe(200);
      const started = performance.now();
      await engineOutput(engine!, ['restart', '--time', '30', current]);
      container = { name: current, origin: await publishedOrigin(engine!, current) };
      figures.restartToReadyS = round(await waitReady(engine!, container, started));
      expect(await outcomeEvents(container.origin)).toEqual(['return', 'signup']);
    },
    STEP_MS,
  );

  it(
    'stops on SIGTERM with exit code 0, having shut down gracefully',
    async () => {
      figures.sigtermToExitS = round(await stopWithSigterm(current));
      expect(await engineOutput(engine!, ['inspect', '--format', '{{.State.ExitCode}}', current])).toBe('0');
      const log = await engineOutput(engine!, ['logs', current]);
      expect(log).toMatch(/"signal":"SIGTERM".*"msg":"shutting down"/);
    },
    STEP_MS,
  );
});

/** The event types of the outcomes recorded for the run, sorted. */
async function outcomeEvents(origin: string): Promise<string[]> {
  const page = await call(origin, 'GET', `/outcomes?prompt_run_id=${encodeURIComponent(runId)}`);
  expect(page.status).toBe(200);
  return page.json.data.map((outcome: { event_type: string }) => outcome.event_type).sort();
}

function round(seconds: number): number {
  return Math.round(seconds * 100) / 100;
}

/** Docker runs the health check on its own schedule (every 15 s): wait for its verdict. */
async function waitHealthy(name: string): Promise<void> {
  for (;;) {
    const health = await engineOutput(engine!, ['inspect', '--format', '{{.State.Health.Status}}', name]);
    if (health === 'healthy') return;
    if (health === 'unhealthy') throw new Error(`${name} is unhealthy`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}
