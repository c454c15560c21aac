// The container engine on this machine, and the flags it needs here: shared by `npm run image`
// (scripts/image.mjs), the local base (scripts/localBase.mjs) and the container test.
// Plain Node on purpose: it runs before anything is built.
import { spawn, spawnSync } from 'node:child_process';

/** The image `npm run image` builds, and the container test runs. */
export const IMAGE = 'localhost/promptline:latest';

/**
 * `docker` if its engine answers, else `podman` (which needs no daemon); null if neither.
 * `docker` alone is not enough: its client is often installed where no engine runs.
 * PROMPTLINE_CONTAINER_ENGINE picks one of them when both are there.
 */
export function containerEngine() {
  const wanted = process.env.PROMPTLINE_CONTAINER_ENGINE;
  for (const name of wanted ? [wanted] : ['docker', 'podman']) {
    if (spawnSync(name, ['info'], { stdio: 'ignore', timeout: 30_000 }).status === 0) return name;
  }
  return null;
}

/**
 * Flags for `run` and `build` with this engine. Podman started as root raises a container's limits
 * to 1048576 open files and 4194304 processes, which fails ("error setting rlimits ... operation not
 * permitted") wherever that is above what the machine allows, as in a sandbox: the container gets
 * the open files limit of the user who starts it, and 4096 processes (threads included), plenty for
 * one service or one build step. Docker's daemon has limits of its own.
 */
export function limitFlags(engine) {
  if (engine !== 'podman') return [];
  const files = spawnSync('sh', ['-c', 'ulimit -Hn'], { encoding: 'utf8' }).stdout.trim();
  const processes = 4096;
  return [...(/^\d+$/.test(files) ? ['--ulimit', `nofile=${files}:${files}`] : []), '--ulimit', `nproc=${processes}:${processes}`];
}

/**
 * Runs `command` with `args`, its output on this terminal (asynchronously: a build takes minutes,
 * and a test worker must stay responsive meanwhile); rejects with the command if it fails.
 */
export function runCommand(command, args, env = process.env) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: 'inherit', env });
    child.once('error', (error) => reject(new Error(`${command} ${args.join(' ')}: ${error.message}`)));
    child.once('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} ended with ${signal ?? `exit ${code}`}`))));
  });
}

/** Whether the engine has `image` locally. */
export function imageExists(engine, image) {
  return spawnSync(engine, ['image', 'inspect', image], { stdio: 'ignore' }).status === 0;
}
