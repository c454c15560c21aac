import { spawn, spawnSync, type ChildProcess, type SpawnSyncReturns } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';

export const ROOT = path.resolve(import.meta.dirname, '../..');

export function tempDataDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'promptline-e2e-'));
}

export interface RunningServer {
  origin: string;
  process: ChildProcess;
  output: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** The built server as `npm start` runs it, on a free port; resolves once it listens. */
export function startServer(env: Record<string, string>): Promise<RunningServer> {
  const child = spawn(process.execPath, ['dist/src/server.js'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      const port = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
      if (port) {
        clearInterval(timer);
        resolve({
          origin: `http://127.0.0.1:${port[1]}`,
          process: child,
          output: () => output,
          stop: (signal = 'SIGTERM') => {
            child.kill(signal);
            return exited;
          },
        });
      }
    }, 20);
    void exited.then((code) => {
      clearInterval(timer);
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
}

/** The CLI without blocking this process, so a test can keep sending requests while it runs. */
export function cliAsync(args: string[], env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['bin/promptline.js', ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.once('exit', (status) => resolve({ status, stdout, stderr })));
}

/** The `promptline` CLI as an operator runs it. */
export function cli(args: string[], env: Record<string, string>): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, ['bin/promptline.js', ...args], { cwd: ROOT, env: { ...process.env, ...env }, encoding: 'utf8' });
}

/**
 * The data folders and built servers one test file starts, killed and removed after each test:
 * `dataDir()` makes a folder, `serve(dir, env)` starts the server on it with the given admin key.
 */
export function processFixtures(adminKey: string) {
  const dirs: string[] = [];
  const servers: RunningServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.stop('SIGKILL')));
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
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
