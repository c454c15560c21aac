import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { healthDuring } from '../support/healthProbe.js';
import { testBackend } from '../support/postgres.js';
import { callServer, startServerOnTestBackend, type RunningServer } from '../support/processes.js';

// 100 runs with 0.3 MB inputs: GET /runs?limit=100 answered 120 MB, and six at once stalled the
// event loop for seconds and doubled the server's memory. List pages are now bounded in bytes
// (large fields are left out there); this measures six of them at once against the built server.
const ADMIN = 'pl_a_list-pages-admin-key-00000000000000';
const BIG = 300_000;
/** How long the six readers keep asking, one page after another each. */
const ATTACK_MS = 3_000;

let server: RunningServer;

/** Starts the server's peak-memory count afresh (Linux: writing 5 to clear_refs resets VmHWM). */
function resetPeak(): void {
  fs.writeFileSync(`/proc/${server.process.pid}/clear_refs`, '5');
}

/** The server's resident memory now and at its peak (Linux /proc), in MB. */
function memoryMb(): { rss: number; peak: number } {
  const status = fs.readFileSync(`/proc/${server.process.pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? Number.NaN);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

beforeAll(async () => {
  server = await startServerOnTestBackend(ADMIN);
  expect((await callServer(server.origin, '/prompts', ADMIN, { prompt_id: 'p', template: 'Hi {{name}}' })).status).toBe(201);
  for (let i = 0; i < 100; i += 10) {
    const runs = Array.from({ length: 10 }, (_, j) =>
      callServer(server.origin, '/run_prompt', ADMIN, { prompt_id: 'p', inputs: { name: `${i + j}${'x'.repeat(BIG)}` } }),
    );
    for (const res of await Promise.all(runs)) expect(res.status).toBe(200);
  }
});
afterAll(async () => server?.stop());

async function listPage(): Promise<number> {
  const res = await fetch(`${server.origin}/runs?limit=100`, { headers: { 'x-api-key': ADMIN } });
  const bytes = (await res.arrayBuffer()).byteLength;
  expect(res.status).toBe(200);
  return bytes;
}

describe(`GET /runs?limit=100 over 100 runs of 0.3 MB inputs (${testBackend()})`, () => {
  it('one page is bounded in bytes; six at once keep /healthz p99 < 100 ms and memory flat', async () => {
    const started = performance.now();
    const bytes = await listPage();
    const oneMs = performance.now() - started;
    resetPeak();
    const before = memoryMb();
    const { result: pages, health } = await healthDuring(server.origin, async () => {
      const until = performance.now() + ATTACK_MS;
      const reader = async () => {
        let n = 0;
        for (; performance.now() < until; n++) await listPage();
        return n;
      };
      return (await Promise.all(Array.from({ length: 6 }, reader))).reduce((a, b) => a + b, 0);
    });
    const after = memoryMb();
    console.log(
      `[${testBackend()}] one page ${(bytes / 1e6).toFixed(2)} MB in ${oneMs.toFixed(0)} ms; six readers: ${pages} pages in ${ATTACK_MS} ms; ` +
        `/healthz p50 ${health.p50.toFixed(1)} p99 ${health.p99.toFixed(1)} max ${health.max.toFixed(1)} ms; ` +
        `RSS ${before.rss.toFixed(0)} → ${after.rss.toFixed(0)} MB (peak ${after.peak.toFixed(0)} MB)`,
    );
    expect(bytes).toBeLessThan(1_500_000);
    expect(health.failures).toEqual([]);
    expect(health.p99).toBeLessThan(100);
    // Unbounded pages took the peak 1 000 MB above the start; bounded ones leave only what the
    // garbage collector lets pile up between collections (up to ~140 MB seen on PostgreSQL).
    expect(after.peak).toBeLessThan(before.rss + 300);
  });
});
