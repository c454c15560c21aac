import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach } from 'vitest';
import { createTestDatabase, testBackend } from './postgres.js';
import { acquireStartSlot } from './startSlots.js';
import { START_MS, STEP_MS } from './timeLimits.js';

export const ROOT = path.resolve(import.meta.dirname, '../..');

export function tempDataDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'promptline-e2e-'));
}

export interface RunningServer {
  origin: string;
  process: ChildProcess;
  output: () => string;
  /** The first match of `pattern` in the output, waiting for it up to `ms`; fails naming `what` if it never came. */
  waitForOutput(pattern: RegExp, what: string, ms?: number): Promise<RegExpExecArray>;
  /**
   * Sends `signal` to the server's process group and resolves with its exit code (null when a
   * signal ended it). Bounded: a group still alive after `graceMs` gets SIGKILL, and one still
   * alive `KILL_WAIT_MS` after that rejects instead of hanging the test's teardown.
   */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<number | null>;
}

/**
 * A SIGTERMed server's own bound: PROMPTLINE_SHUTDOWN_TIMEOUT_MS (10 s by default) plus the 5 s
 * close grace, after which it exits by itself. Past that (and a margin for a loaded machine), it
 * is hung: SIGKILL.
 */
const STOP_GRACE_MS = 20_000;
/** After SIGKILL the kernel ends the group at once; this only absorbs a loaded machine's delay. */
const KILL_WAIT_MS = 5_000;
const LIVE_CHILDREN = Symbol.for('promptline.test.liveChildren');

/**
 * Every child this worker started and not yet reaped: if the worker ends with some still running
 * (a test that timed out before its teardown), they are killed with it — detached groups would
 * otherwise outlive it, holding ports and database connections. Vitest ends a worker with SIGTERM
 * (and Ctrl-C sends SIGINT), which skips 'exit': on those, kill them, then die of the same signal.
 * One set per process, however many times this module is loaded in it.
 */
const registry = globalThis as { [LIVE_CHILDREN]?: Set<ChildProcess> };
registry[LIVE_CHILDREN] ??= watchLiveChildren();
const live = registry[LIVE_CHILDREN];

function watchLiveChildren(): Set<ChildProcess> {
  const children = new Set<ChildProcess>();
  const killAll = () => {
    for (const child of children) killGroup(child, 'SIGKILL');
  };
  process.once('exit', killAll);
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    process.once(signal, () => {
      killAll();
      process.kill(process.pid, signal);
    });
  }
  return children;
}

/**
 * A child in a process group of its own (`detached`), so it and anything it starts can be
 * signalled together with `process.kill(-pid)`; reaped from `live` when it exits.
 */
function spawnGroup(args: string[], env: NodeJS.ProcessEnv): { child: ChildProcess; exited: Promise<number | null> } {
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  live.add(child);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      live.delete(child);
      resolve(code);
    }),
  );
  return { child, exited };
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

/** Resolves with `exited`, or with `timedOut` if it has not settled within `ms`. */
function within<T, U>(exited: Promise<T>, ms: number, timedOut: U): Promise<T | U> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<U>((resolve) => {
    timer = setTimeout(resolve, ms, timedOut);
  });
  return Promise.race([exited, deadline]).finally(() => clearTimeout(timer));
}

const STILL_RUNNING = Symbol('still running');

/** Signal the group, wait up to `graceMs`, SIGKILL it, wait up to KILL_WAIT_MS: a bounded stop. */
async function stopGroup(child: ChildProcess, exited: Promise<number | null>, signal: NodeJS.Signals, graceMs: number): Promise<number | null> {
  killGroup(child, signal);
  if (signal !== 'SIGKILL') {
    const code = await within(exited, graceMs, STILL_RUNNING);
    if (code !== STILL_RUNNING) return code;
    killGroup(child, 'SIGKILL');
  }
  const code = await within(exited, KILL_WAIT_MS, STILL_RUNNING);
  if (code === STILL_RUNNING) throw new Error(`process ${child.pid} still running ${KILL_WAIT_MS} ms after SIGKILL`);
  return code;
}

/**
 * The built server as `npm start` runs it, on a free port; resolves once it listens (its "Server
 * listening" line), within START_MS of its spawn, which waits for a start slot (./startSlots.ts).
 */
export async function startServer(env: Record<string, string>): Promise<RunningServer> {
  const release = await acquireStartSlot('the built server');
  const { child, exited } = spawnGroup(['dist/src/server.js'], { ...process.env, PORT: '0', LOG_LEVEL: 'info', ...env });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const stop = (signal: NodeJS.Signals = 'SIGTERM', graceMs = STOP_GRACE_MS) => stopGroup(child, exited, signal, graceMs);
  const waitForOutput = async (pattern: RegExp, what: string, ms = STEP_MS) => {
    for (const until = performance.now() + ms; !pattern.test(output) && performance.now() < until; ) await new Promise((r) => setTimeout(r, 20));
    const match = pattern.exec(output);
    if (match === null) throw new Error(`waited ${ms} ms for ${what} (${pattern}) on the server's output; it printed:\n${output}`);
    return match;
  };
  return new Promise<RunningServer>((resolve, reject) => {
    const started = performance.now();
    const timer = setInterval(() => {
      const port = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
      if (port) {
        clearInterval(timer);
        resolve({ origin: `http://127.0.0.1:${port[1]}`, process: child, output: () => output, waitForOutput, stop });
      } else if (performance.now() - started > START_MS) {
        clearInterval(timer);
        void stop('SIGKILL').finally(() =>
          reject(new Error(`waited ${START_MS} ms for the server's "Server listening" line; killed it. It printed:\n${output}`)),
        );
      }
    }, 20);
    void exited.then((code) => {
      clearInterval(timer);
      reject(new Error(`server exited with ${code} before it listened:\n${output}`));
    });
  }).finally(release);
}

/**
 * A Node script of the repository (`node <args…>` from its root) run to its exit, without blocking
 * this process, holding a start slot while it runs. One still running after `deadlineMs` is killed
 * (its group) and answers status null, saying so on its stderr.
 */
export async function runToExit(
  args: string[],
  env: Record<string, string | undefined>,
  deadlineMs = START_MS,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const release = await acquireStartSlot(`node ${args.slice(0, 3).join(' ')}`);
  try {
    const { child, exited } = spawnGroup(args, { ...process.env, ...env });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    const status = await within(exited, deadlineMs, STILL_RUNNING);
    if (status !== STILL_RUNNING) return { status, stdout, stderr };
    await stopGroup(child, exited, 'SIGKILL', 0);
    return { status: null, stdout, stderr: `${stderr}\n[killed: still running after ${deadlineMs} ms]` };
  } finally {
    release();
  }
}

/**
 * Any other program (npm, tsc…) run to its exit holding a start slot, killed after `deadlineMs`;
 * resolves with its stdout, or rejects with its stderr (or the deadline) when it fails.
 */
export async function runProgram(file: string, args: string[], options: { cwd: string; deadlineMs?: number }): Promise<string> {
  const release = await acquireStartSlot(`${path.basename(file)} ${args[0] ?? ''}`);
  try {
    const { stdout } = await promisify(execFile)(file, args, {
      cwd: options.cwd,
      encoding: 'utf8',
      timeout: options.deadlineMs ?? START_MS,
      killSignal: 'SIGKILL',
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout;
  } catch (error) {
    const { stderr, killed } = error as { stderr?: string; killed?: boolean };
    throw new Error(
      killed
        ? `${file} ${args.join(' ')} still running after ${options.deadlineMs ?? START_MS} ms: killed`
        : `${file} ${args.join(' ')} failed:\n${stderr ?? error}`,
    );
  } finally {
    release();
  }
}

/** The `promptline` CLI as an operator runs it (`node bin/promptline.js …`), to its exit: see runToExit. */
export function cliAsync(
  args: string[],
  env: Record<string, string>,
  deadlineMs = START_MS,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return runToExit(['bin/promptline.js', ...args], env, deadlineMs);
}

/**
 * The data folders and built servers one test file starts, killed and removed after each test:
 * `dataDir()` makes a folder, `serve(dir, env)` starts the server on it with the given admin key.
 */
export function processFixtures(adminKey: string) {
  const dirs: string[] = [];
  const servers: RunningServer[] = [];
  afterEach(async () => {
    // Every folder is removed even if a server could not be stopped; that failure is then reported.
    const stopped = await Promise.allSettled(servers.splice(0).map((s) => s.stop('SIGKILL')));
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
    for (const result of stopped) if (result.status === 'rejected') throw result.reason;
  });
  const dataDir = (): string => {
    const dir = tempDataDir();
    dirs.push(dir);
    return dir;
  };
  return {
    dataDir,
    async serve(dir: string = dataDir(), env: Record<string, string> = {}): Promise<RunningServer> {
      const server = await startServer({ PROMPTLINE_DATA_DIR: dir, PROMPTLINE_BOOTSTRAP_ADMIN_KEY: adminKey, ...env });
      servers.push(server);
      return server;
    },
    /** The server stopped on purpose by the test: not killed again afterwards. */
    forget(server: RunningServer): void {
      const at = servers.indexOf(server);
      if (at !== -1) servers.splice(at, 1);
    },
  };
}

/** One request to a running server with a key, its JSON body parsed (undefined when empty). */
export async function callServer(origin: string, path: string, key: string, body?: unknown, method = 'POST'): Promise<{ status: number; json: any }> {
  const res = await fetch(`${origin}${path}`, {
    method,
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

/**
 * The built server on the backend the suite runs on (a PostgreSQL database of its own with
 * PROMPTLINE_TEST_BACKEND=postgres, else a SQLite folder), with `admin` as its admin key and no
 * per-key rate limit; `stop` also drops the database.
 */
export async function startServerOnTestBackend(admin: string, env: Record<string, string> = {}): Promise<RunningServer> {
  const database = testBackend() === 'postgres' ? await createTestDatabase() : null;
  const server = await startServer({
    PROMPTLINE_DATA_DIR: tempDataDir(),
    PROMPTLINE_BOOTSTRAP_ADMIN_KEY: admin,
    PROMPTLINE_RATE_LIMIT_PER_MINUTE: '0',
    ...(database === null ? {} : { PROMPTLINE_DATABASE_URL: database.url }),
    ...env,
  }).catch(async (error: unknown) => {
    await database?.drop();
    throw error;
  });
  return {
    ...server,
    async stop(signal, graceMs) {
      try {
        return await server.stop(signal, graceMs);
      } finally {
        await database?.drop();
      }
    },
  };
}
