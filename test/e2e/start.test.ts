import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildNeeded, inputsDigest, missingOutputs, readStamp, STAMP_FILE } from '../../scripts/buildStamp.mjs';
import { ROOT, tempDataDir } from '../support/processes.js';
import { acquireStartSlot } from '../support/startSlots.js';
import { START_MS, timeLimit } from '../support/timeLimits.js';

// `npm start` as an operator and a process supervisor use it: npm's own process gets the signal.
// globalSetup has just built dist/ (and stamped it), so a start must not build again.

/** npm's own Node process, then the server's: two starts. */
const START_DEADLINE_MS = 2 * START_MS;
const started: ChildProcess[] = [];
const dirs: string[] = [];

afterEach(() => {
  // Whatever a failed test left running (npm, and the server it started), in its own group.
  for (const child of started.splice(0)) {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // ESRCH: already gone.
    }
  }
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** `npm start`, holding a start slot until the server listens or the command ends. */
async function npmStart(env: Record<string, string>) {
  const release = await acquireStartSlot('npm start');
  const dataDir = tempDataDir();
  dirs.push(dataDir);
  const child = spawn('npm', ['start'], {
    cwd: ROOT,
    env: { ...process.env, PROMPTLINE_DATA_DIR: dataDir, LOG_LEVEL: 'info', PROMPTLINE_BOOTSTRAP_ADMIN_KEY: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  started.push(child);
  let output = '';
  child.stdout!.on('data', (c: Buffer) => {
    output += c.toString();
    if (output.includes('Server listening')) release();
  });
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  child.once('exit', release);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const waitFor = async (pattern: RegExp) => {
    for (const until = performance.now() + START_DEADLINE_MS; performance.now() < until; await new Promise((r) => setTimeout(r, 20))) {
      const match = pattern.exec(output);
      if (match) return match;
      if (child.exitCode !== null || child.signalCode !== null) break;
    }
    throw new Error(`waited ${START_DEADLINE_MS} ms for ${pattern} in the output of npm start (or it ended first):\n${output}`);
  };
  return { child, exited, waitFor, output: () => output };
}

const mtime = (file: string) => fs.statSync(path.join(ROOT, file)).mtimeMs;

describe('npm start', () => {
  // npm and the server, the key's line, and the stop
  it('on a fresh build starts the server without building, and exits 0 on SIGTERM to npm', { timeout: timeLimit({ starts: 2, steps: 2 }) }, async () => {
    expect(
      buildNeeded({ stamp: readStamp(ROOT), digest: inputsDigest(ROOT), missing: missingOutputs(ROOT) }),
      'dist/ should be the build of these sources',
    ).toBeNull();
    const before = { stamp: mtime(STAMP_FILE), server: mtime('dist/src/server.js') };
    const t0 = performance.now();
    const start = await npmStart({ PORT: '0' });
    const port = (await start.waitFor(/Server listening at http:\/\/127\.0\.0\.1:(\d+)/))[1];
    console.log(`npm start: ready in ${Math.round(performance.now() - t0)} ms`);
    // The key is printed in the same tick as the SIGTERM handler is installed.
    await start.waitFor(/admin API key/);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);

    process.kill(start.child.pid!, 'SIGTERM'); // npm's pid only, as a supervisor signals what it started
    expect(await start.exited).toEqual({ code: 0, signal: null });
    expect(start.output()).toContain('shutting down');
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    expect(start.output()).not.toContain('building first');
    expect({ stamp: mtime(STAMP_FILE), server: mtime('dist/src/server.js') }).toEqual(before);
  });

  // npm and the server
  it("gives npm the server's exit code: a port in use is exit 1 and one line", { timeout: timeLimit({ starts: 2 }) }, async () => {
    const busy = net.createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as net.AddressInfo).port;
    try {
      const start = await npmStart({ PORT: String(port) });
      expect((await start.exited).code, start.output()).toBe(1);
      expect(start.output()).toContain(`promptline: cannot listen: PORT=${port} on HOST=127.0.0.1 is already in use`);
    } finally {
      await new Promise((resolve) => busy.close(resolve));
    }
  });
});
