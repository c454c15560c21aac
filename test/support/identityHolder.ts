import { spawn } from 'node:child_process';
import { afterEach } from 'vitest';
import { ROOT, runToExit } from './processes.js';
import { acquireStartSlot } from './startSlots.js';
import { STEP_MS } from './timeLimits.js';

/**
 * Another process on the same database: a real Node process that takes a process identity as a
 * server does (the built src/db/*Liveness.js) and keeps it until it is killed. `where`: the SQLite
 * data folder, or the PostgreSQL URL.
 */
export interface IdentityHolder {
  /** The identity it holds: a lease naming it is this process's. */
  id: string;
  /** kill -9, resolved once it has exited. */
  kill(): Promise<void>;
}

/** Holds an identity until killed; or, given a third argument (SQLite), says whether that process is dead and exits. */
const SCRIPT = `
const [backend, where, other] = process.argv.slice(1);
const liveness = backend === 'postgres'
  ? (await import('./dist/src/db/postgresLiveness.js')).postgresLiveness(where, null, null)
  : (await import('./dist/src/db/sqliteLiveness.js')).sqliteLiveness(where);
if (other !== undefined) {
  console.log('dead ' + (await liveness.isDead(other)));
} else {
  console.log('identity ' + (await liveness.identity()));
  setInterval(() => {}, 1 << 30);
}
`;

/** Whether a process other than this one (a new Node process on the SQLite folder) finds `id` dead. */
export async function deadSeenFromAnotherProcess(dataDir: string, id: string): Promise<boolean> {
  const { status, stdout, stderr } = await runToExit(['--input-type=module', '-e', SCRIPT, 'sqlite', dataDir, id], {});
  const answer = /dead (true|false)/.exec(stdout);
  if (status !== 0 || answer === null) throw new Error(`the other process failed (${status}):\n${stdout}${stderr}`);
  return answer[1] === 'true';
}

const started = new Set<() => Promise<void>>();
afterEach(async () => {
  for (const kill of [...started]) await kill();
});

export async function startIdentityHolder(backend: 'sqlite' | 'postgres', where: string): Promise<IdentityHolder> {
  const release = await acquireStartSlot('a process holding an identity');
  const child = spawn(process.execPath, ['--input-type=module', '-e', SCRIPT, backend, where], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const kill = async () => {
    started.delete(kill);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  started.add(kill);
  let output = '';
  try {
    const id = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`waited ${STEP_MS} ms for the holder's identity; it printed:\n${output}`)), STEP_MS);
      const read = (chunk: Buffer) => {
        output += chunk.toString();
        const match = /identity (\S+)/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      };
      child.stdout.on('data', read);
      child.stderr.on('data', read);
      void exited.then(() => {
        clearTimeout(timer);
        reject(new Error(`the holder exited before it took an identity:\n${output}`));
      });
    });
    return { id, kill };
  } catch (error) {
    await kill();
    throw error;
  } finally {
    release();
  }
}
