import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
export const SERVER_JS = path.resolve(BENCH_DIR, '../src/server.js');

export interface Child {
  port: number;
  origin: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Starts a node script in its own process and waits for it to listen; servers never share the load generator's CPU. */
export function startProcess(script: string, args: string[], env: Record<string, string>, ready: RegExp): Promise<Child> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
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
          stop: () => new Promise((done) => {
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
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });
}

/** Starts the built Promptline server on a chosen port and waits until /healthz answers, whatever the log level. */
export async function startPromptlineProcess(env: Record<string, string>): Promise<Child> {
  const port = await freePort();
  const child = spawn(process.execPath, [SERVER_JS], { env: { ...process.env, ...env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'inherit'] });
  const origin = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    const ok = await fetch(`${origin}/healthz`).then((r) => r.ok, () => false);
    if (ok) {
      return {
        port, origin, process: child,
        stop: () => new Promise((done) => {
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
