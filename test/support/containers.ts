import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { containerEngine, limitFlags } from '../../scripts/containers.mjs';

/**
 * The container engine the container tests use, or why they are skipped (no docker engine running,
 * no podman). PROMPTLINE_REQUIRE_CONTAINERS=1 (CI sets it) makes a missing engine a failure.
 */
export function containerSetup(): { engine: string; missing: null } | { engine: null; missing: string } {
  const engine = containerEngine();
  if (engine !== null) return { engine, missing: null };
  const missing = 'no container engine: install podman (apt-get install podman runc), or run a Docker engine, to run the container tests';
  if (process.env.PROMPTLINE_REQUIRE_CONTAINERS === '1') throw new Error(missing);
  return { engine: null, missing };
}

/**
 * The command that runs a Compose file with this engine: podman-compose for podman, `docker
 * compose` for docker; null where it is not installed.
 */
export function composeCommand(engine: string): string[] | null {
  const command = engine === 'podman' ? ['podman-compose'] : ['docker', 'compose'];
  const probe = spawnSync(command[0]!, [...command.slice(1), 'version'], { stdio: 'ignore' });
  return probe.status === 0 ? command : null;
}

/** Runs the engine and resolves with its stdout, trimmed; rejects with its stderr. */
export function engineOutput(engine: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(engine, args, { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${engine} ${args.join(' ')} failed: ${stderr.trim() || error.message}`));
      else resolve(stdout.trim());
    });
  });
}

/**
 * Removes what a test made, ignoring what is already gone (teardown after a failure); a container
 * with its anonymous volumes (the image's /data, where nothing was mounted there).
 */
export function engineRemove(engine: string, kind: 'container' | 'volume' | 'image', name: string): void {
  const args = kind === 'container' ? ['rm', '-f', '-v', name] : [kind, 'rm', '-f', name];
  spawnSync(engine, args, { stdio: 'ignore' });
}

export interface StartedContainer {
  name: string;
  /** http://127.0.0.1:<published port> */
  origin: string;
}

/**
 * Starts `image` detached on `volume` (at /data), its port 8000 published on a free loopback port
 * of this host: the tests call it from the host through the engine's bridge network, as an
 * operator's clients would.
 */
export async function startContainer(
  engine: string,
  options: { name: string; image: string; volume: string; env: Record<string, string> },
): Promise<StartedContainer> {
  const env = Object.entries(options.env).flatMap(([key, value]) => ['-e', `${key}=${value}`]);
  await engineOutput(engine, [
    'run',
    '-d',
    ...limitFlags(engine),
    '--name',
    options.name,
    '-p',
    '127.0.0.1::8000',
    '-v',
    `${options.volume}:/data`,
    ...env,
    options.image,
  ]);
  return { name: options.name, origin: await publishedOrigin(engine, options.name) };
}

/** The container's port 8000 as published on this host (a restart may publish it elsewhere). */
export async function publishedOrigin(engine: string, name: string): Promise<string> {
  const mapping = (await engineOutput(engine, ['port', name, '8000'])).split('\n')[0]?.trim();
  if (!mapping) throw new Error(`${name}: port 8000 is not published`);
  return `http://${mapping.replace('0.0.0.0', '127.0.0.1')}`;
}

/**
 * Waits for /readyz to answer 200 (the event, polled; the deadline only bounds a hang), and
 * resolves with the seconds since `since`. On a container that stopped or never got ready, rejects
 * with its log.
 */
export async function waitReady(engine: string, container: StartedContainer, since: number, deadlineMs = 180_000): Promise<number> {
  while (performance.now() - since < deadlineMs) {
    const ok = await fetch(`${container.origin}/readyz`, { signal: AbortSignal.timeout(5_000) }).then(
      (res) => res.ok,
      () => false,
    );
    if (ok) return (performance.now() - since) / 1000;
    if ((await engineOutput(engine, ['inspect', '--format', '{{.State.Running}}', container.name])) !== 'true') break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const log = await engineOutput(engine, ['logs', container.name]).catch((error: Error) => error.message);
  throw new Error(`${container.name} never answered /readyz:\n${log}`);
}

/** What `promptline status` prints in the container, as name → value. */
export async function databaseStatus(engine: string, name: string): Promise<Record<string, string>> {
  const out = await engineOutput(engine, ['exec', name, 'node', 'bin/promptline.js', 'status']);
  return Object.fromEntries(out.split('\n').map((line) => line.split(/:\s+/, 2) as [string, string]));
}

/**
 * A copy of the build context (what git tracks or would track, as it is on disk) without its
 * newest SQLite migration: an image built from it is the image one migration older. Timestamps are
 * kept, so every layer but the migrations' comes from the engine's cache.
 */
export function contextWithoutNewestMigration(root: string, into: string): { dropped: number } {
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' });
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
  const migrations = fs.readdirSync(path.join(root, 'migrations')).filter((file) => /^\d{4}_.*\.sql$/.test(file));
  const newest = migrations.sort().at(-1);
  if (newest === undefined) throw new Error('no migration found');
  for (const file of listed.stdout.split('\0')) {
    if (file === '' || file === `migrations/${newest}` || !fs.existsSync(path.join(root, file))) continue;
    fs.mkdirSync(path.join(into, path.dirname(file)), { recursive: true });
    fs.cpSync(path.join(root, file), path.join(into, file), { preserveTimestamps: true });
  }
  return { dropped: Number(newest.slice(0, 4)) };
}
