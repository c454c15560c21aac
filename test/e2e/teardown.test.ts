import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, tempDataDir } from '../support/processes.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe('stopping a test server', () => {
  it('is bounded: a server that does not act on SIGTERM is killed (its process group) after the grace, and stop() settles', async () => {
    const dir = tempDataDir();
    dirs.push(dir);
    const server = await startServer({ PROMPTLINE_DATA_DIR: dir });
    // A stopped process keeps SIGTERM pending for ever: the hung server a teardown must not wait on.
    process.kill(server.process.pid!, 'SIGSTOP');
    const started = performance.now();
    const code = await server.stop('SIGTERM', 1_000);
    const tookMs = performance.now() - started;
    console.log(`stop() of a server deaf to SIGTERM settled in ${Math.round(tookMs)} ms`);
    expect(code).toBeNull(); // ended by a signal, not by its own exit
    expect(server.process.signalCode).toBe('SIGKILL');
    expect(tookMs).toBeGreaterThanOrEqual(1_000);
    expect(tookMs).toBeLessThan(6_000);
  });
});
