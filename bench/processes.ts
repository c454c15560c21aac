import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
export const SERVER_JS = path.resolve(BENCH_DIR, '../src/server.js');

export interface Child {
  port: number;
  origin: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

export interface EventLoopDelay {
  maxMs: number;
  p99Ms: number;
  meanMs: number;
}

/** A server started with bench/eventLoopProbe.js: `eventLoop()` returns its delays since the previous call. */
export interface ProbedChild extends Child {
  eventLoop(): Promise<EventLoopDelay>;
}

/**
 * Node with `args`, pinned with `taskset -c <cpus>` when `cpus` is given (taskset execs node, so
 * the child's pid is node's).
 */
function spawnNode(args: string[], options: Parameters<typeof spawn>[2], cpus?: string): ChildProcess {
  return cpus === undefined ? spawn(process.execPath, args, options) : spawn('taskset', ['-c', cpus, process.execPath, ...args], options);
}

/**
 * Starts a node script in its own process and waits for it to listen; servers never share the load
 * generator's CPU. `cpus` pins it (taskset's CPU list).
 */
export function startProcess(script: string, args: string[], env: Record<string, string>, ready: RegExp, cpus?: string): Promise<Child> {
  return new Promise((resolve, reject) => {
    const child = spawnNode([script, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] }, cpus);
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = ready.exec(output);
      if (match) {
        child.stdout!.off('data', onData);
        child.stdout!.resume(); // keep draining: a full pipe would block the server's logger
        const port = Number(match[1]);
        resolve({
          port,
          origin: `http://127.0.0.1:${port}`,
          process: child,
          stop: () =>
            new Promise((done) => {
              child.once('exit', () => done());
              child.kill('SIGTERM');
            }),
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}: ${output}`)));
  });
}

/** A port that was free a moment ago (the OS hands out another on the next bind). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });
}

/**
 * Starts the built Promptline server on a chosen port and waits until /healthz answers, whatever
 * the log level. The event-loop probe is preloaded, so every figure can come with the longest stall.
 * `nodeArgs` go to node before the script (e.g. `--cpu-prof`); `serverJs` is another build's server
 * (an A/B comparison), this one's by default; `cpus` pins it (taskset's CPU list).
 */
export async function startPromptlineProcess(env: Record<string, string>, nodeArgs: string[] = [], serverJs = SERVER_JS, cpus?: string): Promise<ProbedChild> {
  const port = await freePort();
  const eldFile = path.join(os.tmpdir(), `promptline-bench-eld-${port}.json`);
  const probe = pathToFileURL(path.join(BENCH_DIR, 'eventLoopProbe.js')).href;
  const child = spawnNode(
    [...nodeArgs, '--import', probe, serverJs],
    { env: { ...process.env, ...env, PORT: String(port), PROMPTLINE_BENCH_ELD_FILE: eldFile }, stdio: ['ignore', 'ignore', 'inherit'] },
    cpus,
  );
  const eventLoop = async (): Promise<EventLoopDelay> => {
    fs.rmSync(eldFile, { force: true });
    child.kill('SIGUSR2');
    for (let i = 0; i < 100 && !fs.existsSync(eldFile); i++) await new Promise((r) => setTimeout(r, 20));
    return JSON.parse(fs.readFileSync(eldFile, 'utf8')) as EventLoopDelay;
  };
  const origin = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    const ok = await fetch(`${origin}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) {
      return {
        port,
        origin,
        process: child,
        eventLoop,
        stop: () =>
          new Promise((done) => {
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      };
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  throw new Error('server did not become ready');
}
