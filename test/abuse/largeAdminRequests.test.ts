import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { behave, FakeOpenAI } from '../support/fakeOpenAI.js';
import { healthDuring, type HealthReport } from '../support/healthProbe.js';
import { testBackend } from '../support/postgres.js';
import { callServer, startServerOnTestBackend, type RunningServer } from '../support/processes.js';
import { STEP_MS, timeLimit } from '../support/timeLimits.js';

// Issue 38: single admin requests stalled the event loop for one to two seconds, so every other
// request waited: an evaluation created on 100 000 dataset items (2.0 s) and cancelled (1.6 s), a
// 200 000-item upload committed (1.0 s), a version with 14 tools of 4 000-entry enums (1.35 s,
// ajv compiling them). Each is now done in slices; this measures /healthz from another process
// during each, against the built server, at those sizes.
const ADMIN = 'pl_a_large-admin-requests-key-0000000000';
const EVALUATION_ITEMS = 100_000;
const UPLOAD_ITEMS = 200_000;
const PER_REQUEST = 10_000;
const TOOLS = 14;
const ENUM_ENTRIES = 4_000;
/**
 * The bound asserted on the longest wait of a probe. The issue's target is 50 ms; on a quiet 2-core
 * machine the probes' longest waits were 54–104 ms (p99 11–90 ms), and 55–70 ms on PostgreSQL even
 * before slicing, where these statements never ran on the event loop: that target is not met yet
 * (docs/performance.md, "Large admin requests"). What this holds is that no request stalls the
 * server as it did (one to three seconds): every wait stays under 250 ms.
 */
const MAX_STALL_MS = 250;

let server: RunningServer;
const fake = new FakeOpenAI();
const api = (path: string, body?: unknown, method = 'POST') => callServer(server.origin, path, ADMIN, body, method);

/** An upload of `count` items to `dataset`, staged in requests of PER_REQUEST; answers its id (not committed). */
async function stagedUpload(dataset: string, count: number): Promise<string> {
  const started = await api(`/datasets/${dataset}/uploads`);
  expect(started.status).toBe(201);
  const id = started.json.upload_id as string;
  for (let from = 0; from < count; from += PER_REQUEST) {
    const items = Array.from({ length: Math.min(PER_REQUEST, count - from) }, (_, i) => ({ inputs: { q: `q${from + i}` }, expected: `a${from + i}` }));
    expect((await api(`/datasets/${dataset}/uploads/${id}/items`, { items })).status).toBe(200);
  }
  return id;
}

function report(what: string, health: HealthReport, ms: number): void {
  console.log(
    `[${testBackend()}] ${what}: answered in ${ms.toFixed(0)} ms; /healthz p50 ${health.p50.toFixed(1)} p99 ${health.p99.toFixed(1)} ` +
      `max ${health.max.toFixed(1)} ms over ${health.latenciesMs.length} probes`,
  );
}

/** Runs `request` while probing /healthz from another process; answers its result and what the probe saw. */
async function measured<T>(what: string, request: () => Promise<T>): Promise<{ result: T; health: HealthReport }> {
  let ms = 0;
  const { result, health } = await healthDuring(server.origin, async () => {
    const started = performance.now();
    const answer = await request();
    ms = performance.now() - started;
    // Work that goes on after the answer (what a commit leaves to delete) is measured too.
    await new Promise((r) => setTimeout(r, 1_000));
    return answer;
  });
  report(what, health, ms);
  return { result, health };
}

/** No probe failed, none waited MAX_STALL_MS or more. Checked after the request's own result, so a failure says which. */
function expectNoStall(health: HealthReport): void {
  expect(health.failures).toEqual([]);
  expect(health.max).toBeLessThan(MAX_STALL_MS);
}

beforeAll(
  async () => {
    const { baseURL } = await fake.start();
    // The evaluation's calls wait: what is measured is the admin requests, not the runner's work.
    fake.setDefault(behave.slow(60_000, { content: 'a' }));
    server = await startServerOnTestBackend(ADMIN, {
      PROMPTLINE_PROVIDER_FAKE_BASE_URL: baseURL,
      PROMPTLINE_PROVIDER_FAKE_API_KEY: 'sk-test',
      PROMPTLINE_MAX_RETRIES: '0',
    });
    expect((await api('/prompts', { prompt_id: 'p', template: '{{q}}', model: 'fake/gpt-4o-mini' })).status).toBe(201);
    expect((await api('/prompts/p/versions', { template: '{{q}}!', model: 'fake/gpt-4o-mini' })).status).toBe(201);
    expect((await api('/evaluators', { evaluator_id: 'exact', kind: 'exact_match' })).status).toBe(201);
    expect((await api('/datasets', { dataset_id: 'eval' })).status).toBe(201);
    const upload = await stagedUpload('eval', EVALUATION_ITEMS);
    expect((await api(`/datasets/eval/uploads/${upload}/commit`)).status).toBe(201);
  },
  timeLimit({ starts: 1, steps: 14 }),
);
afterAll(async () => {
  // The evaluation's calls are still waiting on the fake provider: no graceful stop to wait for.
  await server?.stop('SIGKILL');
  await fake.close();
});

describe(`large admin requests keep the event loop free (${testBackend()})`, () => {
  let evaluationId: string;

  it(
    `creating an evaluation on ${EVALUATION_ITEMS} items: /healthz never waits ${MAX_STALL_MS} ms`,
    async () => {
      const { result: created, health } = await measured(`POST /evaluations (${EVALUATION_ITEMS} items)`, () =>
        api('/evaluations', { prompt_id: 'p', versions: [2, 1], dataset_id: 'eval', evaluators: ['exact'], concurrency: 1 }),
      );
      expect(created.status).toBe(202);
      expect(created.json.total).toBe(EVALUATION_ITEMS * 2);
      evaluationId = created.json.evaluation_id;
      expectNoStall(health);
    },
    timeLimit({ steps: 2 }),
  );

  it(
    `cancelling it: /healthz never waits ${MAX_STALL_MS} ms`,
    async () => {
      expect(evaluationId).toBeDefined();
      const { result: cancelled, health } = await measured(`POST /evaluations/{id}/cancel (${EVALUATION_ITEMS * 2} work rows)`, () =>
        api(`/evaluations/${evaluationId}/cancel`),
      );
      expect(cancelled.status).toBe(200);
      expect(cancelled.json.status).toBe('cancelled');
      // Every work row is accounted for: skipped, or the one the runner had begun (interrupted or done later).
      expect(cancelled.json.progress.total - cancelled.json.progress.done).toBeLessThanOrEqual(1);
      expectNoStall(health);
    },
    timeLimit({ steps: 2 }),
  );

  it(
    `committing a ${UPLOAD_ITEMS}-item upload: /healthz never waits ${MAX_STALL_MS} ms`,
    async () => {
      expect((await api('/datasets', { dataset_id: 'upload' })).status).toBe(201);
      const upload = await stagedUpload('upload', UPLOAD_ITEMS);
      const { result: committed, health } = await measured(`POST /datasets/{id}/uploads/{id}/commit (${UPLOAD_ITEMS} items)`, () =>
        api(`/datasets/upload/uploads/${upload}/commit`),
      );
      expect(committed.status).toBe(201);
      expect(committed.json).toMatchObject({ version: 1, item_count: UPLOAD_ITEMS, added: UPLOAD_ITEMS });
      expectNoStall(health);
    },
    timeLimit({ steps: 2 + UPLOAD_ITEMS / PER_REQUEST }),
  );

  it(
    `a version with ${TOOLS} tools of ${ENUM_ENTRIES}-entry enums: /healthz never waits ${MAX_STALL_MS} ms`,
    async () => {
      const tools = Array.from({ length: TOOLS }, (_, t) => ({
        type: 'function',
        function: {
          name: `tool_${t}`,
          parameters: {
            type: 'object',
            properties: { choice: { type: 'string', enum: Array.from({ length: ENUM_ENTRIES }, (_, i) => `t${t}v${i}`) } },
            required: ['choice'],
          },
        },
      }));
      const { result: created, health } = await measured(`POST /prompts/{id}/versions (${TOOLS} tools × ${ENUM_ENTRIES} enum entries)`, () =>
        api('/prompts/p/versions', { template: '{{q}}?', model: 'fake/gpt-4o-mini', tools }),
      );
      expect(created.status).toBe(201);
      expect(created.json.tools).toHaveLength(TOOLS);
      expectNoStall(health);
    },
    STEP_MS,
  );
});
