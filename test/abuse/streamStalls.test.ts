import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { behave, FakeOpenAI } from '../support/fakeOpenAI.js';
import { healthDuring } from '../support/healthProbe.js';
import { testBackend } from '../support/postgres.js';
import { callServer, startServerOnTestBackend, type RunningServer } from '../support/processes.js';
import { stalledSsePost, wholeEvents } from '../support/sse.js';
import { timeLimit } from '../support/timeLimits.js';

// Thirty streaming clients from one address that never read, each asking for an answer of 64 MiB,
// against the built server. Before, each kept its connection past the request deadline for as long
// as it liked (30 of them took the server from 162 to 345 MB, and one address may hold 256); now
// the server reads each answer only as far as its sockets' buffers take it, and the deadline closes
// every connection and stores every run as cancelled.
//
// The streams first run at full speed until the sockets' buffers are full (on loopback the kernel
// takes about 4 MiB of each answer before a write is refused): that is the work of thirty clients
// reading 4 MiB each, not of stalling. /healthz is probed from another process from then on: while
// the thirty hold their connections, and through the cut at the deadline.
const ADMIN = 'pl_a_stream-stalls-admin-key-0000000000000';
const CLIENTS = 30;
/** Long enough for the buffers to fill first on a busy machine, and then for a few hundred probes. */
const DEADLINE_MS = 15_000;
const PIECE_CHARS = 4_096;
const PIECES = 16_384;
const piece = (i: number) => `${String(i).padStart(6, '0')}${'x'.repeat(PIECE_CHARS - 6)}`;

let fake: FakeOpenAI;
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

const cancelledRuns = async () => (await callServer(server.origin, '/runs?status=cancelled&limit=100', ADMIN, undefined, 'GET')).json.data.length;

beforeAll(async () => {
  fake = new FakeOpenAI().setDefault(behave.stream({ chunks: PIECES, piece }));
  const { baseURL } = await fake.start();
  server = await startServerOnTestBackend(ADMIN, {
    PROMPTLINE_PROVIDER_FAKE_BASE_URL: baseURL,
    PROMPTLINE_MAX_RETRIES: '0',
    PROMPTLINE_REQUEST_DEADLINE_MS: String(DEADLINE_MS),
  });
  const made = await callServer(server.origin, '/prompts', ADMIN, { prompt_id: 'long', template: 'Tell {{who}} a long story', model: 'fake/gpt-4o-mini' });
  expect(made.status).toBe(201);
});
afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

describe(`${CLIENTS} streaming clients that never read (${testBackend()})`, () => {
  it(
    'are cut at the request deadline, their runs cancelled; memory bounded, /healthz p99 < 100 ms',
    async () => {
      resetPeak();
      const before = memoryMb();
      const port = Number(new URL(server.origin).port);
      const started = performance.now();
      const clients = Array.from({ length: CLIENTS }, () => stalledSsePost(port, '/run_prompt', { prompt_id: 'long', inputs: { who: 'Ada' } }, ADMIN));
      // Full: every provider call is held back (its writes wait for a drain), and none has moved for a second.
      let last = -1;
      const stillFor1s = async () => {
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        const sent = fake.requests.reduce((sum, r) => sum + r.streamedBytes, 0);
        const still = fake.requests.length === CLIENTS && fake.requests.every((r) => r.waitingForDrain || r.clientClosed) && sent === last;
        last = sent;
        return still;
      };
      await expect.poll(stillFor1s).toBe(true);
      const filledAfterMs = performance.now() - started;
      const filled = memoryMb();
      const { result, health } = await healthDuring(server.origin, async () => {
        await expect.poll(cancelledRuns).toBe(CLIENTS);
        const cutAfterMs = performance.now() - started;
        const answers = await Promise.all(clients.map((c) => c.readRest()));
        return { cutAfterMs, answers };
      });
      const after = memoryMb();
      const providerMb = fake.requests.map((r) => r.streamedBytes / 2 ** 20);
      console.log(
        `[${testBackend()}] ${CLIENTS} stalled streams, deadline ${DEADLINE_MS} ms: buffers full ${filledAfterMs.toFixed(0)} ms after they opened, ` +
          `all cancelled after ${result.cutAfterMs.toFixed(0)} ms; RSS ${before.rss.toFixed(0)} MB before, ${filled.rss.toFixed(0)} MB full, ` +
          `peak ${after.peak.toFixed(0)} MB, ${after.rss.toFixed(0)} MB after; ` +
          `provider bytes sent per stream ${Math.min(...providerMb).toFixed(1)}–${Math.max(...providerMb).toFixed(1)} MiB of ${((PIECES * PIECE_CHARS) / 2 ** 20).toFixed(0)}; ` +
          `/healthz p50 ${health.p50.toFixed(1)} p99 ${health.p99.toFixed(1)} max ${health.max.toFixed(1)} ms`,
      );
      // Every connection was closed by the server mid-answer: no run or error event ever reached a client.
      for (const answer of result.answers) {
        expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
        expect(wholeEvents(answer).every((e) => e.event === 'delta')).toBe(true);
      }
      // Every provider call was held back, then aborted, far from its end.
      expect(fake.requests).toHaveLength(CLIENTS);
      for (const request of fake.requests) {
        expect(request.clientClosed).toBe(true);
        expect(request.refusedWrites).toBeGreaterThan(0);
        expect(request.streamedBytes).toBeLessThan((PIECES * PIECE_CHARS) / 4);
      }
      expect(health.failures).toEqual([]);
      expect(health.p99).toBeLessThan(100);
      // What a stalled stream holds is what its connection's buffers took (the text sent, kept for
      // its run): about 4 MiB on loopback, and as much again for a while when its run is stored.
      // Reading the answers whole would have taken more than 64 MiB each.
      expect(after.peak - before.rss).toBeLessThan(CLIENTS * 20);
    },
    timeLimit({ steps: 3, ms: DEADLINE_MS }),
  );
});
